package tune

import (
	"context"
	"testing"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
)

func TestVerifyDrift(t *testing.T) {
	f, s, _ := applySome(t)
	ctx := context.Background()
	if d, err := s.Verify(ctx); err != nil || len(d) != 0 {
		t.Fatalf("Verify right after Apply = %v, %v", d, err)
	}
	// irqbalance rewrites IRQ 27; the driver clamps the RX ring; the
	// netdev's channel count is unchanged (a field not asked for changes:
	// no drift).
	f.vals["affinity/27"] = Value{CPUs: irq.NewCPUList(0, 1, 2, 3)}
	f.vals["ring//eth0"].Ring.Rx = u32(512)
	f.vals["channels//eth0"].Channels.Rx = u32(4)
	d, err := s.Verify(ctx)
	if err != nil || len(d) != 2 {
		t.Fatalf("Verify = %v, %v; want 2 drifts", d, err)
	}
	want := []string{
		"#3 ring netdev eth0: set rx 1024, now rx 512 rx-mini 0 rx-jumbo 0 tx 256",
		"#6 affinity IRQ 27: set cpus 1, now cpus 0-3",
	}
	for i, w := range want {
		if d[i].String() != w {
			t.Errorf("drift %d: %q, want %q", i, d[i], w)
		}
	}
	// A removed target is drift with its error.
	delete(f.vals, "mtu//eth0")
	if d, _ := s.Verify(ctx); len(d) != 3 || d[0].Err == nil {
		t.Errorf("Verify with eth0 gone = %v", d)
	}
}

func TestVerifyLastChangeCounts(t *testing.T) {
	f := newFake()
	s := fakeSession(t, f)
	ctx := context.Background()
	if _, err := s.Apply(ctx, Channels("", "eth0", nic.ChannelsUpdate{Combined: u32(1)}), Channels("", "eth0", nic.ChannelsUpdate{Combined: u32(4)})); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Verify(ctx); err != nil || len(d) != 0 {
		t.Errorf("Verify = %v, %v; the first change was superseded, not drifted", d, err)
	}
	if _, err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Verify(ctx); err != nil || len(d) != 0 {
		t.Errorf("Verify after Restore = %v, %v; restored changes are not checked", d, err)
	}
	if got := f.get(t, "channels//eth0"); got != "rx 0 tx 0 other 0 combined 2" {
		t.Errorf("channels after Restore: %s", got)
	}
}

func TestDeleteRXERestoresLink(t *testing.T) {
	f := newFake()
	f.vals["rxe//rxe1"] = Value{RXE: &RXELink{Present: true, Netdev: "eth1"}}
	s := fakeSession(t, f)
	ctx := context.Background()
	made, err := s.Apply(ctx, DeleteRXE("", "rxe1"))
	if err != nil || len(made) != 1 || made[0].String() != "#1 rxe rxe link rxe1: rxe on eth1 -> no rxe link" {
		t.Fatalf("Apply = %v, %v", made, err)
	}
	if got := f.get(t, "rxe//rxe1"); got != "no rxe link" {
		t.Errorf("after delete: %s", got)
	}
	if _, err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "rxe//rxe1"); got != "rxe on eth1" {
		t.Errorf("after Restore: %s", got)
	}
}
