//go:build lab

package rxe

import (
	"testing"

	"github.com/vishvananda/netlink"
)

// newVeth creates a veth pair in the caller's namespace, optionally moves
// the peer into ns, sets both up, gives the first end addr (a/len), and
// removes the pair when the test ends.
func newVeth(t *testing.T, name, peer, addr string) *netlink.Veth {
	t.Helper()
	v := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: name}, PeerName: peer}
	if err := netlink.LinkAdd(v); err != nil {
		t.Fatalf("add veth %s: %v", name, err)
	}
	t.Cleanup(func() {
		// Either end removes both; the first may have moved to another
		// namespace.
		for _, n := range []string{name, peer} {
			if l, err := netlink.LinkByName(n); err == nil {
				netlink.LinkDel(l)
				return
			}
		}
	})
	for _, n := range []string{name, peer} {
		l, err := netlink.LinkByName(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := netlink.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
	if addr != "" {
		a, err := netlink.ParseAddr(addr)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := netlink.LinkByName(name)
		if err := netlink.AddrAdd(l, a); err != nil {
			t.Fatalf("add %s to %s: %v", addr, name, err)
		}
	}
	return v
}
