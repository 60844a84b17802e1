package nic

import (
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/vishvananda/netlink"
)

// testNetns is a fresh named network namespace for one test.
type testNetns = labtest.NamedNetns

// newNetns creates nictest-SUFFIX-PID with lo up and deletes it (and the
// netdevs in it) when the test ends. The calling thread stays where it was.
func newNetns(t *testing.T, suffix string) *testNetns {
	t.Helper()
	return labtest.NewNamedNetns(t, "nictest", suffix)
}

// vethPair makes a veth pair with one end in a and the other in b, both up,
// with the given addresses (CIDR).
func vethPair(t *testing.T, a *testNetns, nameA, addrA string, b *testNetns, nameB, addrB string) {
	t.Helper()
	if err := a.NL.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: nameA}, PeerName: nameB}); err != nil {
		t.Fatalf("add veth %s/%s: %v", nameA, nameB, err)
	}
	if b != a {
		peer, err := a.NL.LinkByName(nameB)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.NL.LinkSetNsFd(peer, int(b.NS)); err != nil {
			t.Fatal(err)
		}
	}
	for _, end := range []struct {
		tn         *testNetns
		name, addr string
	}{{a, nameA, addrA}, {b, nameB, addrB}} {
		l, err := end.tn.NL.LinkByName(end.name)
		if err != nil {
			t.Fatal(err)
		}
		if end.addr != "" {
			ad, err := netlink.ParseAddr(end.addr)
			if err != nil {
				t.Fatal(err)
			}
			if err := end.tn.NL.AddrAdd(l, ad); err != nil {
				t.Fatal(err)
			}
		}
		if err := end.tn.NL.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
	// Wait for carrier on both ends: frames sent before are dropped.
	for _, end := range []struct {
		tn   *testNetns
		name string
	}{{a, nameA}, {b, nameB}} {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			l, err := end.tn.NL.LinkByName(end.name)
			if err == nil && l.Attrs().OperState == netlink.OperUp {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is not up after 5s", end.name)
			}
		}
	}
}
