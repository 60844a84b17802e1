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
	dev := guestEth0(t)
	before := affinities(t, dev.IRQNumbers())
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
	var queues []int
	for _, q := range guestEth0(t).Queues() {
		queues = append(queues, q.IRQ)
	}
	before := affinities(t, queues)
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

// guestEth0 is the guest's eth0 and its IRQs, as package irq reads them.
func guestEth0(t *testing.T) irq.Netdev {
	t.Helper()
	fs, err := irq.DefaultRoot()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := fs.Netdev("eth0")
	if err != nil {
		t.Fatal(err)
	}
	return dev
}

// affinities is the affinity of each IRQ of irqs, by number.
func affinities(t *testing.T, irqs []int) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, n := range irqs {
		out[n] = affinity(t, n)
	}
	return out
}

func affinity(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/irq/" + strconv.Itoa(n) + "/smp_affinity_list")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
