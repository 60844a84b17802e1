package runbook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/nic"
	"github.com/vishvananda/netlink"
)

// TestIPv4 reads addresses over netlink from a veth pair in a fresh
// namespace: the first IPv4 address of one end (an IPv6 one and a second
// IPv4 one beside it), ErrNoIPv4 for the other end, a netdev that is not
// there, and lo of the caller's namespace.
func TestIPv4(t *testing.T) {
	name := fmt.Sprintf("rbip-%d", os.Getpid())
	nl := netnsVeth(t, name, "rbi0", "rbi1", "")
	l, err := nl.LinkByName("rbi0")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"2001:db8::1/64", "198.18.97.1/24", "198.18.98.1/24"} {
		addr, err := netlink.ParseAddr(a)
		if err != nil {
			t.Fatal(err)
		}
		if err := nl.AddrAdd(l, addr); err != nil {
			t.Fatalf("add %s: %v", a, err)
		}
	}
	ctx := context.Background()
	side := &Local{Netns: name}
	if a, err := side.IPv4(ctx, "rbi0"); err != nil || a != "198.18.97.1" {
		t.Errorf("rbi0: %q, %v; want 198.18.97.1", a, err)
	}
	if a, err := side.IPv4(ctx, "rbi1"); !errors.Is(err, ErrNoIPv4) {
		t.Errorf("rbi1 without an address: %q, %v; want ErrNoIPv4", a, err)
	}
	if _, err := side.IPv4(ctx, "rbi9"); !errors.Is(err, nic.ErrNetdevNotFound) {
		t.Errorf("missing netdev: %v; want nic.ErrNetdevNotFound", err)
	}
	// rbi0 is not in the caller's namespace.
	if _, err := (&Local{}).IPv4(ctx, "rbi0"); !errors.Is(err, nic.ErrNetdevNotFound) {
		t.Errorf("rbi0 seen outside its namespace: %v", err)
	}
	if a, err := (&Local{}).IPv4(ctx, "lo"); err != nil || a != "127.0.0.1" {
		t.Errorf("lo here: %q, %v", a, err)
	}
	if _, err := (&Local{Netns: name + "-none"}).IPv4(ctx, "lo"); err == nil {
		t.Error("a namespace that does not exist gave an address")
	}
}

// netnsVeth creates namespace ns with a veth pair a–b in it, both up, a
// with addr ("": none), and returns a netlink handle in ns.
func netnsVeth(t *testing.T, ns, a, b, addr string) *netlink.Handle {
	t.Helper()
	_, nl := labtest.Netns(t, ns)
	if err := nl.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: a}, PeerName: b}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{a, b} {
		l, err := nl.LinkByName(n)
		if err != nil {
			t.Fatal(err)
		}
		if n == a && addr != "" {
			ad, err := netlink.ParseAddr(addr)
			if err != nil {
				t.Fatal(err)
			}
			if err := nl.AddrAdd(l, ad); err != nil {
				t.Fatal(err)
			}
		}
		if err := nl.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
	return nl
}
