package runbook

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocekit/rocekit/sysroot"
	"github.com/rocekit/rocekit/tune"
)

// TestLocalVerify: Local reads back its journaled changes; a sysctl set
// back behind its session is a drift, and irqbalance pauses through the
// journal (none runs in the fixture's /proc). Roots are fixture trees, so
// no root and no live setting is touched.
func TestLocalVerify(t *testing.T) {
	ctx := context.Background()
	proc := t.TempDir()
	key := filepath.Join(proc, "sys", "net", "core", "rmem_max")
	if err := os.MkdirAll(filepath.Dir(key), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("212992\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Local{Journal: filepath.Join(t.TempDir(), "journal.jsonl"), Root: sysroot.ProcSys(proc, t.TempDir())}
	defer l.Close()
	if d, err := l.Verify(ctx); d != nil || err != nil {
		t.Fatalf("Verify before any change: %v, %v", d, err)
	}
	// An odd value no live host has, so that SetSysctl's live check does
	// not skip it.
	if err := l.SetSysctl(ctx, "net.core.rmem_max", "4194301"); err != nil {
		t.Fatal(err)
	}
	if d, err := l.Verify(ctx); len(d) != 0 || err != nil {
		t.Fatalf("Verify after the change: %v, %v", d, err)
	}
	if err := os.WriteFile(key, []byte("212992\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := l.Verify(ctx)
	if err != nil || len(d) != 1 || d[0].Entry.Kind != tune.KindSysctl || d[0].Got.Sysctl == nil || *d[0].Got.Sysctl != "212992" {
		t.Fatalf("Verify after the value was set back: %+v, %v; want one sysctl drift to 212992", d, err)
	}
	// No irqbalance in the fixture's /proc: nothing paused, nothing
	// journaled, so nothing reads back as drifted.
	if pids, err := l.PauseIRQBalance(ctx); err != nil || pids != nil {
		t.Fatalf("PauseIRQBalance without irqbalance: %v, %v", pids, err)
	}
	if d, err := l.Verify(ctx); err != nil || len(d) != 1 {
		t.Fatalf("Verify after PauseIRQBalance: %+v, %v; want the sysctl drift only", d, err)
	}
	if err := l.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(key); string(b) != "212992\n" && string(b) != "212992" {
		t.Errorf("rmem_max after Restore %q, want 212992", b)
	}
}
