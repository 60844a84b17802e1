package tune

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/vishvananda/netlink"
)

// topoNames returns two namespace names unique to this process.
func topoNames(tag string) (a, b string) {
	return fmt.Sprintf("tunetopo-%s-a-%d", tag, os.Getpid()), fmt.Sprintf("tunetopo-%s-b-%d", tag, os.Getpid())
}

func netnsExists(name string) bool {
	_, err := os.Stat(filepath.Join(netnsDir, name))
	return err == nil
}

// vethAddr returns the MTU and IPv4 addresses of a netdev in a namespace.
func vethAddr(t *testing.T, ns, dev string) (int, []string, bool) {
	t.Helper()
	h, ok, err := netlinkIn(ns)
	if err != nil || !ok {
		t.Fatalf("netns %s: %v (exists %v)", ns, err, ok)
	}
	defer h.Close()
	l, err := h.LinkByName(dev)
	if err != nil {
		t.Fatalf("%s in %s: %v", dev, ns, err)
	}
	as, err := h.AddrList(l, netlink.FAMILY_V4)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range as {
		out = append(out, a.IPNet.String())
	}
	return l.Attrs().MTU, out, l.Attrs().Flags&net.FlagUp != 0
}

// TestRootTopology: two namespaces and a veth between them with
// addresses and MTU 9000 are made through the journal, and Restore
// removes exactly them; a namespace that was there before is left.
func TestRootTopology(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates network namespaces")
	}
	a, b := topoNames("r")
	pre := a + "-pre"
	if err := createNetns(pre); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteNetns(pre); deleteNetns(a); deleteNetns(b) })
	ctx := context.Background()
	s, err := Begin(filepath.Join(t.TempDir(), "j.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply(ctx, AddNetns(a), AddNetns(b), AddNetns(pre)); err == nil {
		t.Fatal("creating an existing namespace succeeded")
	}
	if _, err := s.Apply(ctx, AddVeth(a, "tt0", b, "tt1", 9000, "198.18.90.1/24", "198.18.90.2/24")); err != nil {
		t.Fatal(err)
	}
	mtu, addrs, up := vethAddr(t, a, "tt0")
	if mtu != 9000 || len(addrs) != 1 || addrs[0] != "198.18.90.1/24" || !up {
		t.Errorf("tt0: mtu %d addrs %v up %v", mtu, addrs, up)
	}
	mtu, addrs, up = vethAddr(t, b, "tt1")
	if mtu != 9000 || len(addrs) != 1 || addrs[0] != "198.18.90.2/24" || !up {
		t.Errorf("tt1: mtu %d addrs %v up %v", mtu, addrs, up)
	}
	rep, err := s.Restore(ctx)
	if err != nil {
		t.Fatalf("Restore: %v (%+v)", err, rep)
	}
	if netnsExists(a) || netnsExists(b) {
		t.Errorf("after Restore: %s exists %v, %s exists %v", a, netnsExists(a), b, netnsExists(b))
	}
	if !netnsExists(pre) {
		t.Errorf("Restore removed %s, which was there before", pre)
	}
}

// TestRootTopologyCrash: a process killed with SIGKILL after building the
// topology leaves a journal from which Recover removes it all.
func TestRootTopologyCrash(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates network namespaces")
	}
	a, b := topoNames("c")
	t.Cleanup(func() { deleteNetns(a); deleteNetns(b) })
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	crashAfterApply(t, crashPlan{Journal: journal, Changes: []Change{AddNetns(a), AddNetns(b)}})
	if !netnsExists(a) || !netnsExists(b) {
		t.Fatal("the child did not create the namespaces")
	}
	rep, err := Recover(context.Background(), journal)
	if err != nil || len(rep.Undone) != 2 {
		t.Fatalf("Recover = %+v, %v", rep, err)
	}
	if netnsExists(a) || netnsExists(b) {
		t.Errorf("after Recover: %s %v, %s %v", a, netnsExists(a), b, netnsExists(b))
	}
}

// TestTopologyValidate: bad topology changes are refused before anything
// is made.
func TestTopologyValidate(t *testing.T) {
	for _, c := range []Change{
		AddNetns(""),
		AddNetns("a/b"),
		AddVeth("", "v0", "", "v0", 0, "", ""),
		AddVeth("", "v0", "x", "v1", 0, "198.18.0.1", ""),
		AddVeth("", "v0", "x", "v1", 20, "", ""),
		AddVeth("", "", "x", "v1", 0, "", ""),
	} {
		err := c.validate()
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%+v: err %v, want an *InputError", c, err)
		}
	}
	if err := AddVeth("a", "v0", "b", "v1", 9000, "198.18.0.1/24", "198.18.0.2/24").validate(); err != nil {
		t.Error(err)
	}
}
