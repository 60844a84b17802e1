package tune

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestVerifyJournals: two finished sessions' journals on a fixture tree,
// read back as one history: IRQ 27 set to CPU 1 by the first and to CPU 2
// by the second holds at 2 (the first change is superseded, not drifted);
// a governor the first set and something else rewrote is drift; then IRQ
// 27 moved back to 0-3 is drift against the second journal's value.
// Nothing is changed, and a journal that is not one is an error while the
// drifts found are still returned.
func TestVerifyJournals(t *testing.T) {
	fx := newIRQFixture(t)
	ctx := context.Background()
	var paths []string
	for i, changes := range [][]Change{
		{Affinity(27, irq.NewCPUList(1)), Governor(0, "performance")},
		{Affinity(27, irq.NewCPUList(2))},
	} {
		path := filepath.Join(fx.dir, fmt.Sprintf("call%d.jsonl", i))
		s, err := Begin(path, fx.opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Apply(ctx, changes...); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	if d, err := VerifyJournals(ctx, paths); err != nil || len(d) != 0 {
		t.Fatalf("VerifyJournals right after = %v, %v", d, err)
	}
	gov := "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
	os.WriteFile(filepath.Join(fx.dir, gov), []byte("schedutil\n"), 0o644)
	os.WriteFile(filepath.Join(fx.dir, "proc/irq/27/smp_affinity_list"), []byte("0-3\n"), 0o644)
	bad := filepath.Join(fx.dir, "notajournal.jsonl")
	os.WriteFile(bad, []byte("{\"hello\":1}\n"), 0o600)
	d, err := VerifyJournals(ctx, append(paths, bad))
	var got []string
	for _, x := range d {
		got = append(got, x.String())
	}
	want := []string{"#2 governor CPU 0: set governor performance, now governor schedutil", "#1 affinity IRQ 27: set cpus 2, now cpus 0-3"}
	if !slices.Equal(got, want) {
		t.Errorf("drifts %q, want %q", got, want)
	}
	if err == nil || !strings.Contains(err.Error(), "notajournal.jsonl") {
		t.Errorf("error %v, want the file that is not a journal named", err)
	}
	fx.want(t, gov, "schedutil")
}
