//go:build lab

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/tune"
)

// TestLabSpreadAndRestore spreads eth0's queue IRQs over CPUs 2-3 in a
// real guest, watches, and checks that every affinity is back afterwards.
func TestLabSpreadAndRestore(t *testing.T) {
	labtest.Guest(t)
	fs, err := irq.DefaultRoot()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := fs.Netdev("eth0")
	if err != nil {
		t.Fatal(err)
	}
	before := map[int]string{}
	for _, n := range dev.IRQNumbers() {
		before[n] = affinity(t, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	var out strings.Builder
	if err := run(ctx, &out, journal, "eth0", "2-3", -1, -1, true, false, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("output:\n%s", out.String())
	// Every queue IRQ was moved to CPU 2 or 3 while it ran.
	for _, q := range dev.Queues() {
		if !strings.Contains(out.String(), fmt.Sprintf("IRQ %d: %s -> ", q.IRQ, before[q.IRQ])) {
			t.Errorf("IRQ %d was not moved", q.IRQ)
		}
	}
	for n, was := range before {
		if now := affinity(t, n); now != was {
			t.Errorf("IRQ %d: affinity %s after the run, was %s", n, now, was)
		}
	}
	// Without -apply nothing is written.
	if err := run(ctx, io.Discard, journal, "eth0", "2", -1, -1, false, false, time.Second); err != nil {
		t.Fatal(err)
	}
	for n, was := range before {
		if now := affinity(t, n); now != was {
			t.Errorf("IRQ %d: affinity %s after a read-only run, was %s", n, now, was)
		}
	}
}

// TestLabKeepThenRecover keeps a spread, is refused a second run while
// the journal holds it, and gets every affinity back from the journal.
func TestLabKeepThenRecover(t *testing.T) {
	labtest.Guest(t)
	fs, err := irq.DefaultRoot()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := fs.Netdev("eth0")
	if err != nil {
		t.Fatal(err)
	}
	before := map[int]string{}
	for _, q := range dev.Queues() {
		before[q.IRQ] = affinity(t, q.IRQ)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := run(ctx, io.Discard, journal, "eth0", "", -1, 3, true, true, time.Second); err != nil {
		t.Fatal(err)
	}
	for n := range before {
		if got := affinity(t, n); got != "3" {
			t.Errorf("IRQ %d: affinity %s after -pin 3 -keep, want 3", n, got)
		}
	}
	if err := run(ctx, io.Discard, journal, "eth0", "", -1, 2, true, false, time.Second); !errors.Is(err, tune.ErrPending) {
		t.Errorf("second run over a kept journal: %v, want tune.ErrPending", err)
	}
	if _, err := tune.Recover(ctx, journal); err != nil {
		t.Fatal(err)
	}
	for n, was := range before {
		if got := affinity(t, n); got != was {
			t.Errorf("IRQ %d: affinity %s after Recover, was %s", n, got, was)
		}
	}
}

func affinity(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/irq/" + strconv.Itoa(n) + "/smp_affinity_list")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
