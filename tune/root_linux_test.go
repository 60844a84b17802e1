package tune

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
)

// Tier 2: root tests on the host, in fresh network namespaces named
// tunetest-*, with veth pairs addressed in 198.18.60.0/24.

func rootCtx(t *testing.T) context.Context { return labtest.Context(t, time.Minute) }

// nicChannels reads a netdev's channels through nic.
func nicChannels(t *testing.T, ctx context.Context, ns, dev string) nic.Channels {
	t.Helper()
	h, err := nic.Open(nic.Options{Netns: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c, err := h.Channels(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// beginSession begins a Session journaling to a fresh file, closed when
// the test ends.
func beginSession(t *testing.T) *Session {
	t.Helper()
	s, err := Begin(filepath.Join(t.TempDir(), "journal.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// wantUndone checks what Restore and Recover must bring back after the
// MTU, link and channel changes: tv0's MTU 1500 and channels ch, tv1 up.
func wantUndone(t *testing.T, ctx context.Context, tn *testNetns, ch nic.Channels, after string) {
	t.Helper()
	if a := tn.link(t, "tv0"); a.MTU != 1500 {
		t.Errorf("tv0 MTU %d after %s", a.MTU, after)
	}
	if a := tn.link(t, "tv1"); a.Flags&net.FlagUp == 0 {
		t.Errorf("tv1 down after %s", after)
	}
	if c := nicChannels(t, ctx, tn.Name, "tv0"); c != ch {
		t.Errorf("tv0 channels %+v after %s, want %+v", c, after, ch)
	}
}

// otherCount is a queue count other than cur that max allows, or cur when
// there is none.
func otherCount(cur, max uint32) uint32 {
	if cur != max {
		return max
	}
	if cur > 1 {
		return 1
	}
	return cur
}

// TestRootMTULinkChannels applies MTU 9000, link down and a channel change
// to veth netdevs in a namespace, checks them with netlink and ethtool,
// finds drift made behind the session's back, and restores everything,
// twice.
func TestRootMTULinkChannels(t *testing.T) {
	tn := newNetns(t, "apply")
	tn.veth(t, "tv0", "198.18.60.1/24", "tv1", "198.18.60.2/24")
	ctx := rootCtx(t)
	ch := nicChannels(t, ctx, tn.Name, "tv0")
	rx := otherCount(ch.Rx, ch.MaxRx)
	t.Logf("tv0 channels %+v; setting rx and tx to %d", ch, rx)

	s := beginSession(t)
	made, err := s.Apply(ctx,
		MTU(tn.Name, "tv0", 9000),
		LinkUp(tn.Name, "tv1", false),
		Channels(tn.Name, "tv0", nic.ChannelsUpdate{Rx: &rx, Tx: &rx}),
	)
	if err != nil || len(made) != 3 {
		t.Fatalf("Apply = %v, %v", made, err)
	}
	if a := tn.link(t, "tv0"); a.MTU != 9000 {
		t.Errorf("tv0 MTU %d after Apply", a.MTU)
	}
	if a := tn.link(t, "tv1"); a.Flags&net.FlagUp != 0 {
		t.Errorf("tv1 still up after Apply")
	}
	if c := nicChannels(t, ctx, tn.Name, "tv0"); c.Rx != rx || c.Tx != rx {
		t.Errorf("tv0 channels %+v after Apply, want rx/tx %d", c, rx)
	}
	if made[0].Old.MTU != 1500 || made[1].Old.Up == nil || !*made[1].Old.Up || *made[2].Old.Channels.Rx != ch.Rx {
		t.Errorf("old values journaled: %v", made)
	}
	if d, err := s.Verify(ctx); err != nil || len(d) != 0 {
		t.Errorf("Verify right after Apply = %v, %v", d, err)
	}

	// Someone sets the MTU back behind the session's back: drift.
	l, _ := tn.NL.LinkByName("tv0")
	if err := tn.NL.LinkSetMTU(l, 1400); err != nil {
		t.Fatal(err)
	}
	d, err := s.Verify(ctx)
	if err != nil || len(d) != 1 || d[0].Entry.Seq != 1 || d[0].Got.MTU != 1400 {
		t.Errorf("Verify after ip link set mtu 1400 = %v, %v", d, err)
	} else {
		t.Logf("drift: %s", d[0])
	}

	rep, err := s.Restore(ctx)
	if err != nil || len(rep.Undone) != 3 {
		t.Fatalf("Restore = %+v, %v", rep, err)
	}
	wantUndone(t, ctx, tn, ch, "Restore")
	rep, err = s.Restore(ctx)
	if err != nil || len(rep.Undone) != 0 || rep.AlreadyRestored != 3 {
		t.Errorf("second Restore = %+v, %v", rep, err)
	}
}

// TestRootInterfaceRemoved: a netdev disappears between Apply and Restore.
// Restore reports that change, with the netdev's error, and still restores
// the other netdev.
func TestRootInterfaceRemoved(t *testing.T) {
	tn := newNetns(t, "gone")
	tn.veth(t, "tv0", "198.18.60.1/24", "tv1", "198.18.60.2/24")
	tn.veth(t, "tw0", "198.18.60.3/24", "tw1", "198.18.60.4/24")
	ctx := rootCtx(t)
	s := beginSession(t)
	if _, err := s.Apply(ctx, MTU(tn.Name, "tv0", 9000), MTU(tn.Name, "tw0", 9000), LinkUp(tn.Name, "tv1", false)); err != nil {
		t.Fatal(err)
	}
	l, _ := tn.NL.LinkByName("tw0")
	if err := tn.NL.LinkDel(l); err != nil {
		t.Fatal(err)
	}
	tn.waitGone(t, "tw0")

	d, err := s.Verify(ctx)
	if err != nil || len(d) != 1 || d[0].Entry.Target.Netdev != "tw0" || !errors.Is(d[0].Err, nic.ErrNetdevNotFound) {
		t.Errorf("Verify = %v, %v; want tw0 not found", d, err)
	}
	rep, err := s.Restore(ctx)
	var ue *UndoError
	if !errors.As(err, &ue) || !errors.Is(err, nic.ErrNetdevNotFound) || ue.Entry.Target.Netdev != "tw0" {
		t.Fatalf("Restore error %v, want an *UndoError for tw0 matching nic.ErrNetdevNotFound", err)
	}
	t.Logf("reported: %v", err)
	if len(rep.Undone) != 2 || tn.link(t, "tv0").MTU != 1500 || tn.link(t, "tv1").Flags&net.FlagUp == 0 {
		t.Errorf("the rest was not undone: %+v; tv0 MTU %d", rep, tn.link(t, "tv0").MTU)
	}
}

// TestRootInvalidInputChangesNothing: a batch with one bad change (a bad
// name, a missing netdev, an offline CPU) is refused whole.
func TestRootInvalidInputChangesNothing(t *testing.T) {
	tn := newNetns(t, "invalid")
	tn.veth(t, "tv0", "198.18.60.1/24", "tv1", "198.18.60.2/24")
	ctx := rootCtx(t)
	s := beginSession(t)
	for _, bad := range []Change{
		MTU(tn.Name, "../tv0", 9000),
		MTU(tn.Name, "nosuchdev0", 9000),
		MTU(tn.Name, "tv1", 70000), // above any MTU
		LinkUp("tunetest-nosuchns", "tv1", false),
		Affinity(0, irq.NewCPUList(4096)),
	} {
		made, err := s.Apply(ctx, MTU(tn.Name, "tv0", 9000), bad)
		if err == nil || len(made) != 0 {
			t.Errorf("Apply(…, %v) = %v, %v", bad, made, err)
		}
		t.Logf("refused: %v", err)
		if a := tn.link(t, "tv0"); a.MTU != 1500 {
			t.Fatalf("tv0 MTU %d: a refused batch changed it", a.MTU)
		}
	}
	if len(s.Entries()) != 0 {
		t.Errorf("journaled %v", s.Entries())
	}
}

// TestRootCrashRecoverNetns: a child applies MTU, link and channel changes
// in a namespace, and IRQ and governor changes to a fixture tree, and is
// killed with SIGKILL; Recover brings each value back, and a second
// Recover changes nothing.
func TestRootCrashRecoverNetns(t *testing.T) {
	tn := newNetns(t, "crash")
	tn.veth(t, "tv0", "198.18.60.1/24", "tv1", "198.18.60.2/24")
	ctx := rootCtx(t)
	fx := newIRQFixture(t)
	ch := nicChannels(t, ctx, tn.Name, "tv0")
	rx := otherCount(ch.Rx, ch.MaxRx)
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	crashAfterApply(t, crashPlan{Journal: journal, Options: fx.opts, Changes: []Change{
		MTU(tn.Name, "tv0", 9000),
		MTU(tn.Name, "tv1", 9000),
		LinkUp(tn.Name, "tv1", false),
		Channels(tn.Name, "tv0", nic.ChannelsUpdate{Rx: &rx}),
		Affinity(27, irq.NewCPUList(2)),
		Governor(0, "performance"),
	}})
	if tn.link(t, "tv0").MTU != 9000 || tn.link(t, "tv1").Flags&net.FlagUp != 0 {
		t.Fatal("the child did not apply its changes")
	}
	fx.want(t, "proc/irq/27/smp_affinity_list", "2")

	rep, err := Recover(ctx, journal)
	if err != nil || len(rep.Undone) != 6 {
		t.Fatalf("Recover = %+v, %v", rep, err)
	}
	wantUndone(t, ctx, tn, ch, "Recover")
	if a := tn.link(t, "tv1"); a.MTU != 1500 {
		t.Errorf("tv1 MTU %d after Recover", a.MTU)
	}
	fx.wantOriginal(t)

	rep, err = Recover(ctx, journal)
	if err != nil || len(rep.Undone) != 0 || rep.AlreadyRestored != 6 {
		t.Errorf("second Recover = %+v, %v", rep, err)
	}
}
