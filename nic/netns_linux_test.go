package nic

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

// newNetns creates nictest-SUFFIX-PID with lo up and deletes it (and the
// netdevs in it) when the test ends. The calling thread stays where it was.
func newNetns(t *testing.T, suffix string) *testNetns {
	t.Helper()
	tn := &testNetns{name: fmt.Sprintf("nictest-%s-%d", suffix, os.Getpid())}
	tn.ns, tn.nl = labtest.Netns(t, tn.name)
	return tn
}

// run calls f on a thread inside the namespace (sockets made there stay
// there).
func (tn *testNetns) run(t *testing.T, f func()) {
	t.Helper()
	labtest.InNetns(t, tn.ns, f)
}

// vethPair makes a veth pair with one end in a and the other in b, both up,
// with the given addresses (CIDR).
func vethPair(t *testing.T, a *testNetns, nameA, addrA string, b *testNetns, nameB, addrB string) {
	t.Helper()
	if err := a.nl.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: nameA}, PeerName: nameB}); err != nil {
		t.Fatalf("add veth %s/%s: %v", nameA, nameB, err)
	}
	if b != a {
		peer, err := a.nl.LinkByName(nameB)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.nl.LinkSetNsFd(peer, int(b.ns)); err != nil {
			t.Fatal(err)
		}
	}
	for _, end := range []struct {
		tn         *testNetns
		name, addr string
	}{{a, nameA, addrA}, {b, nameB, addrB}} {
		l, err := end.tn.nl.LinkByName(end.name)
		if err != nil {
			t.Fatal(err)
		}
		if end.addr != "" {
			ad, err := netlink.ParseAddr(end.addr)
			if err != nil {
				t.Fatal(err)
			}
			if err := end.tn.nl.AddrAdd(l, ad); err != nil {
				t.Fatal(err)
			}
		}
		if err := end.tn.nl.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
	// Wait for carrier on both ends: frames sent before are dropped.
	for _, end := range []struct {
		tn   *testNetns
		name string
	}{{a, nameA}, {b, nameB}} {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			l, err := end.tn.nl.LinkByName(end.name)
			if err == nil && l.Attrs().OperState == netlink.OperUp {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is not up after 5s", end.name)
			}
		}
	}
}
