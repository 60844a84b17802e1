//go:build lab

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/internal/labtest"
)

var pairsFailed = regexp.MustCompile(`^fleet: pairs failed: \d+: (.*)$`)

// TestLabNICPairs runs two real ib_send_bw pairs at once in a guest, one
// per virtio NIC (eth0, eth1; each pair on its own rxe link, in loopback),
// unidirectional and with -b: both pairs give a bandwidth, have their own
// port and device, are pinned to disjoint shares of the NICs' local CPUs,
// their clients start together, and the rxe links are gone afterwards.
// Bandwidths are emulated and not checked beyond being positive; a pair
// that still prints a 0.00 average after three rounds (a TCG artifact, root
// cause not found) is kept, as long as some pair measured. -n, not
// -D: under TCG, -D -b runs printed a 0.00 average (trixie).
func TestLabNICPairs(t *testing.T) {
	labtest.Guest(t)
	total := 0
	for _, a := range [][]string{{"198.18.96.1/24", "eth0"}, {"198.18.97.1/24", "eth1"}} {
		for _, args := range [][]string{{"addr", "add", a[0], "dev", a[1]}, {"link", "set", a[1], "up"}} {
			if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
				t.Fatalf("ip %v: %v %s", args, err, out)
			}
		}
		t.Cleanup(func() { exec.Command("ip", "addr", "del", a[0], "dev", a[1]).Run() })
	}
	for _, bidir := range []bool{false, true} {
		dir := t.TempDir()
		c := config{Flags: cli.Flags{Journal: filepath.Join(dir, "journal.jsonl")}, Netdevs: "eth0,eth1", Tool: "perftest",
			Iterations: 300, Bidir: bidir, Pin: true, QPTimeout: 22, LineRate: 1, MinRatio: 0.9, Out: filepath.Join(dir, "out")}
		out := runUntilMeasured(t, c, dir)
		labtest.CheckRestored(t, "rxe_eth0", "eth0", "1500")
		labtest.CheckRestored(t, "rxe_eth1", "eth1", "1500")
		total += checkPairsSummary(t, out)
	}
	if total == 0 {
		t.Fatal("no pair measured a bandwidth in either mode")
	}
}

// runUntilMeasured runs the pairs, up to two more rounds after a 0.00
// average, and returns the -out of the last round. A run that still
// fails is kept only when every failure is the TCG 0.00 average, not a
// failure of ports, CPUs, starts or restore (checked by the caller).
func runUntilMeasured(t *testing.T, c config, dir string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var out, prog bytes.Buffer
	err := run(ctx, c, &out, &prog)
	t.Logf("-b %v:\n%s\n%s", c.Bidir, out.String(), prog.String())
	for round := 2; round <= 3 && err != nil && strings.Contains(err.Error(), "measured 0.00 bandwidth"); round++ {
		// Under TCG, ib_send_bw (bookworm 4.5 and trixie 25.01, with
		// and without -b) now and then prints a 0.00 average; more
		// rounds, in fresh output directories, tell that apart from a
		// pair that never works.
		c.Out, out, prog = filepath.Join(dir, fmt.Sprint("out", round)), bytes.Buffer{}, bytes.Buffer{}
		err = run(ctx, c, &out, &prog)
		t.Logf("-b %v, round %d:\n%s\n%s", c.Bidir, round, out.String(), prog.String())
	}
	if err != nil {
		m := pairsFailed.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("run: %v", err)
		}
		for _, e := range strings.Split(m[1], "; ") {
			if !strings.Contains(e, "measured 0.00 bandwidth") {
				t.Fatalf("run: %v", err)
			}
		}
		t.Logf("-b %v: kept after 3 rounds with a 0.00 average: %v", c.Bidir, err)
	}
	return c.Out
}

// checkPairsSummary checks summary.json in out: two pairs on their own
// ports and disjoint pinned CPUs, clients started together, and the
// aggregate. It returns how many pairs measured a bandwidth.
func checkPairsSummary(t *testing.T, out string) (measured int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Pairs) != 2 || s.Mode != "loopback" {
		t.Fatalf("summary: %s", b)
	}
	var starts []time.Time
	for i, p := range s.Pairs {
		if p.OK {
			measured++
		}
		if (p.OK && p.Gbps <= 0) || (!p.OK && !strings.Contains(p.Error, "measured 0.00 bandwidth")) || p.Port != 18515+i || p.Name != []string{"eth0-eth0", "eth1-eth1"}[i] {
			t.Errorf("pair %d: %+v", i, p)
		}
		if len(p.ServerCPUs) == 0 || !slices.Equal(p.ServerCPUs, p.ClientCPUs) {
			t.Errorf("pair %d not pinned to its NIC's CPUs: server %v client %v", i, p.ServerCPUs, p.ClientCPUs)
		}
		st, err := time.Parse(time.RFC3339Nano, p.ClientStart)
		if err != nil {
			t.Errorf("pair %d client start %q: %v", i, p.ClientStart, err)
		}
		starts = append(starts, st)
	}
	for _, cpu := range s.Pairs[0].ServerCPUs {
		if slices.Contains(s.Pairs[1].ServerCPUs, cpu) {
			t.Errorf("pairs share CPU %d: %v and %v", cpu, s.Pairs[0].ServerCPUs, s.Pairs[1].ServerCPUs)
		}
	}
	if d := starts[1].Sub(starts[0]).Abs(); d > 250*time.Millisecond {
		t.Errorf("clients started %v apart", d)
	}
	if d := s.SumGbps - s.Pairs[0].Gbps - s.Pairs[1].Gbps; (s.Slowest < 0) != (s.Failed == 2) || d > 1e-9 || d < -1e-9 || s.Below != 2-s.Failed {
		t.Errorf("aggregate: slowest %d sum %v below %d", s.Slowest, s.SumGbps, s.Below)
	}
	return measured
}
