//go:build lab

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/irq"
)

// TestLabSpreadAndRestore spreads eth0's queue IRQs over CPUs 2-3 in a
// real guest, watches, and checks that every affinity is back afterwards.
func TestLabSpreadAndRestore(t *testing.T) {
	labtest.Guest(t)
	fs, err := irq.DefaultFS()
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
	var out strings.Builder
	if err := run(ctx, &out, "eth0", "2-3", -1, -1, true, false, 2*time.Second); err != nil {
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
	if err := run(ctx, io.Discard, "eth0", "2", -1, -1, false, false, time.Second); err != nil {
		t.Fatal(err)
	}
	for n, was := range before {
		if now := affinity(t, n); now != was {
			t.Errorf("IRQ %d: affinity %s after a read-only run, was %s", n, now, was)
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
