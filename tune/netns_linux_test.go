package tune

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// testNetns is a fresh named network namespace for one test.
type testNetns struct {
	name string
	ns   netns.NsHandle
	nl   *netlink.Handle
}

// newNetns creates tunetest-SUFFIX-PID with lo up and deletes it (with its
// netdevs) when the test ends. The calling thread stays where it was.
func newNetns(t *testing.T, suffix string) *testNetns {
	t.Helper()
	tn := &testNetns{name: fmt.Sprintf("tunetest-%s-%d", suffix, os.Getpid())}
	tn.ns, tn.nl = labtest.Netns(t, tn.name)
	return tn
}

// veth makes a veth pair a/b in the namespace, both up, with addresses
// (CIDR, in 198.18.60.0/24).
func (tn *testNetns) veth(t *testing.T, a, addrA, b, addrB string) {
	t.Helper()
	if err := tn.nl.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: a}, PeerName: b}); err != nil {
		t.Fatalf("add veth %s/%s: %v", a, b, err)
	}
	for _, end := range [][2]string{{a, addrA}, {b, addrB}} {
		l, err := tn.nl.LinkByName(end[0])
		if err != nil {
			t.Fatal(err)
		}
		ad, err := netlink.ParseAddr(end[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := tn.nl.AddrAdd(l, ad); err != nil {
			t.Fatal(err)
		}
		if err := tn.nl.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
}

// link returns a netdev's attributes as netlink reports them now.
func (tn *testNetns) link(t *testing.T, name string) *netlink.LinkAttrs {
	t.Helper()
	l, err := tn.nl.LinkByName(name)
	if err != nil {
		t.Fatalf("%s in %s: %v", name, tn.name, err)
	}
	return l.Attrs()
}

// waitGone waits until a netdev no longer exists.
func (tn *testNetns) waitGone(t *testing.T, name string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := tn.nl.LinkByName(name); err != nil {
			return
		}
	}
	t.Fatalf("%s still exists", name)
}
