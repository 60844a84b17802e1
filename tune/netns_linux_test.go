package tune

import (
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/vishvananda/netlink"
)

// testNetns is a fresh named network namespace for one test, with tune's
// helpers for the netdevs in it.
type testNetns struct{ *labtest.NamedNetns }

// newNetns creates tunetest-SUFFIX-PID with lo up and deletes it (with its
// netdevs) when the test ends. The calling thread stays where it was.
func newNetns(t *testing.T, suffix string) *testNetns {
	t.Helper()
	return &testNetns{labtest.NewNamedNetns(t, "tunetest", suffix)}
}

// veth makes a veth pair a/b in the namespace, both up, with addresses
// (CIDR, in 198.18.60.0/24).
func (tn *testNetns) veth(t *testing.T, a, addrA, b, addrB string) {
	t.Helper()
	if err := tn.NL.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: a}, PeerName: b}); err != nil {
		t.Fatalf("add veth %s/%s: %v", a, b, err)
	}
	for _, end := range [][2]string{{a, addrA}, {b, addrB}} {
		l, err := tn.NL.LinkByName(end[0])
		if err != nil {
			t.Fatal(err)
		}
		ad, err := netlink.ParseAddr(end[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := tn.NL.AddrAdd(l, ad); err != nil {
			t.Fatal(err)
		}
		if err := tn.NL.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
}

// link returns a netdev's attributes as netlink reports them now.
func (tn *testNetns) link(t *testing.T, name string) *netlink.LinkAttrs {
	t.Helper()
	l, err := tn.NL.LinkByName(name)
	if err != nil {
		t.Fatalf("%s in %s: %v", name, tn.Name, err)
	}
	return l.Attrs()
}

// waitGone waits until a netdev no longer exists.
func (tn *testNetns) waitGone(t *testing.T, name string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := tn.NL.LinkByName(name); err != nil {
			return
		}
	}
	t.Fatalf("%s still exists", name)
}
