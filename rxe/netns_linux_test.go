package rxe

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// newNetns creates a fresh named network namespace (nictest-...) and
// deletes it when the test ends. The calling thread stays where it was.
func newNetns(t *testing.T, suffix string) (string, netns.NsHandle) {
	t.Helper()
	name := fmt.Sprintf("nictest-%s-%d", suffix, os.Getpid())
	done := make(chan error, 1)
	var ns netns.NsHandle
	go func() {
		// NewNamed switches the thread into the new namespace. Switch it
		// back; if that fails, leave it locked so Go discards it.
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			done <- err
			return
		}
		defer orig.Close()
		ns, err = netns.NewNamed(name)
		if err == nil {
			if err = netns.Set(orig); err == nil {
				runtime.UnlockOSThread()
			}
		}
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatalf("create netns %s: %v", name, err)
	}
	t.Cleanup(func() {
		ns.Close()
		if err := netns.DeleteNamed(name); err != nil {
			t.Errorf("delete netns %s: %v", name, err)
		}
	})
	return name, ns
}

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
