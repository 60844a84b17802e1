package labtest

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// Netns creates the named network namespace with lo up, for a root test,
// and deletes it (with the netdevs in it) when the test ends. It skips
// without root. The calling thread stays in its own namespace; the netlink
// handle acts in the new one.
//
// Similar to: ip netns add NAME; ip -n NAME link set lo up
func Netns(t testing.TB, name string) (netns.NsHandle, *netlink.Handle) {
	t.Helper()
	Root(t)
	var ns netns.NsHandle
	// NewNamed moves the thread into the new namespace.
	err, backErr := onThreadMovedBack(func() (err error) {
		ns, err = netns.NewNamed(name)
		return err
	})
	if err == nil {
		err = backErr
	}
	if err != nil {
		t.Fatalf("create netns %s: %v", name, err)
	}
	var nl *netlink.Handle
	t.Cleanup(func() {
		if nl != nil {
			nl.Close()
		}
		ns.Close()
		if err := netns.DeleteNamed(name); err != nil {
			t.Errorf("delete netns %s: %v", name, err)
		}
	})
	if nl, err = netlink.NewHandleAt(ns); err != nil {
		t.Fatal(err)
	}
	lo, err := nl.LinkByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	if err := nl.LinkSetUp(lo); err != nil {
		t.Fatal(err)
	}
	return ns, nl
}

// NamedNetns is a network namespace made for one test, with the netlink
// handle that acts in it: what helpers need to add netdevs there and
// what they pass as Options.Netns.
type NamedNetns struct {
	Name string
	NS   netns.NsHandle
	NL   *netlink.Handle
}

// NewNamedNetns creates PREFIX-SUFFIX-PID as Netns does (lo up, deleted
// with its netdevs when the test ends, skipped without root). The PID
// keeps two runs of the same tests at once out of each other's
// namespaces.
func NewNamedNetns(t testing.TB, prefix, suffix string) *NamedNetns {
	t.Helper()
	n := &NamedNetns{Name: fmt.Sprintf("%s-%s-%d", prefix, suffix, os.Getpid())}
	n.NS, n.NL = Netns(t, n.Name)
	return n
}

// Run calls f on a thread inside the namespace, as InNetns does: sockets
// made there stay there.
func (n *NamedNetns) Run(t testing.TB, f func()) {
	t.Helper()
	InNetns(t, n.NS, f)
}

// InNetns calls f on an OS thread inside ns, for sockets that must be
// made there; the calling thread stays where it was. It fails the test
// when the thread cannot enter ns.
//
// Similar to: ip netns exec NAME ...
func InNetns(t testing.TB, ns netns.NsHandle, f func()) {
	t.Helper()
	err, _ := onThreadMovedBack(func() error {
		if err := netns.Set(ns); err != nil {
			return err
		}
		f()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// onThreadMovedBack calls move on a locked OS thread that move puts in
// another network namespace, then puts the thread back in its own. It
// returns move's error and the error of going back; a thread that failed
// either stays locked, so that Go discards it rather than reuse it.
func onThreadMovedBack(move func() error) (err, backErr error) {
	type result struct{ err, backErr error }
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			done <- result{err: err}
			return
		}
		defer orig.Close()
		if err := move(); err != nil {
			done <- result{err: err}
			return
		}
		backErr := netns.Set(orig)
		if backErr == nil {
			runtime.UnlockOSThread()
		}
		done <- result{backErr: backErr}
	}()
	r := <-done
	return r.err, r.backErr
}

// NetnsPair creates the namespaces near and far (as Netns does) joined by
// the veth pair a, in near, and b, in far, both up, with the addresses
// nearCIDR on a and farCIDR on b where they are not "": two ends of a
// test on one host. Deleting the namespaces deletes the pair.
//
// Similar to: ip link add A netns NEAR type veth peer name B netns FAR; ip -n NEAR addr add CIDR dev A; ip -n NEAR link set A up (and B)
func NetnsPair(t testing.TB, near, far, a, b, nearCIDR, farCIDR string) (nearNs, farNs netns.NsHandle) {
	t.Helper()
	nearNs, _ = Netns(t, near)
	farNs, _ = Netns(t, far)
	IP(t, "link", "add", a, "netns", near, "type", "veth", "peer", "name", b, "netns", far)
	for _, end := range []struct{ ns, dev, cidr string }{{near, a, nearCIDR}, {far, b, farCIDR}} {
		if end.cidr != "" {
			IP(t, "-n", end.ns, "addr", "add", end.cidr, "dev", end.dev)
		}
		IP(t, "-n", end.ns, "link", "set", end.dev, "up")
	}
	return nearNs, farNs
}
