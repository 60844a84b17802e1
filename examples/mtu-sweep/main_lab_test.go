//go:build lab

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report"
)

// TestLabMTUSweep sweeps 1500, 4200 and 9000 on a veth in a real guest, in
// loopback: every MTU gives a round, rdma_rxe follows each MTU change, and
// the rxe link and the MTU are as they were afterwards. Bandwidth numbers
// are emulated and never checked.
func TestLabMTUSweep(t *testing.T) {
	c := config{StepFlags: clitest.LabStepFlags(t, "msveth0", "msveth1", "198.18.92.1/24", "msrxe0", 2), MTUs: "1500,4200,9000", Size: 65536}
	printed := clitest.RunRestored(t, c.StepFlags, 15*time.Minute, func(ctx context.Context, out io.Writer) error {
		return run(ctx, c, out, io.Discard)
	})
	labtest.CheckOutFiles(t, c.Out, printed, "bandwidth.svg", "ib_send_bw_mtu1500.tar.gz", "ib_send_bw_mtu4200.tar.gz", "ib_send_bw_mtu9000.tar.gz")
	want := []struct {
		mtu, path int
	}{{1500, 1024}, {4200, 4096}, {9000, 4096}}
	s := checkSummary(t, c.Out)
	if len(s.Rounds) != len(want) {
		t.Fatalf("summary.json has %d rounds, want %d: %+v", len(s.Rounds), len(want), s.Rounds)
	}
	for i, w := range want {
		r := s.Rounds[i]
		// rdma_rxe follows the netdev MTU (NETDEV_CHANGEMTU): a fact of
		// the kernel, not a performance level.
		if r.NetdevMTU != w.mtu || r.PathMTUExpected != w.path || r.PathMTUSeen != w.path || !r.TookEffect {
			t.Errorf("round %d: %+v, want netdev MTU %d at RoCE path MTU %d, taken", i, r, w.mtu, w.path)
		}
	}
	t.Run("cancelled", func(t *testing.T) { testCancelled(t, c, filepath.Dir(c.Out)) })
	checkStore(t, c, s)
}

// checkSummary reads summary.json and checks what holds for every round:
// loopback, the metric, and one took-effect finding per round.
func checkSummary(t *testing.T, out string) summaryJSON {
	t.Helper()
	var s summaryJSON
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v\n%s", err, b)
	}
	if s.Mode != "loopback" {
		t.Errorf("mode %q, want loopback", s.Mode)
	}
	for i, r := range s.Rounds {
		if r.Metric != "bw_avg/size=65536" {
			t.Errorf("round %d: metric %q", i, r.Metric)
		}
	}
	took := 0
	for _, f := range s.Findings {
		if f.Rule == RuleMTUTookEffect {
			took++
		}
		if f.Severity == "" || f.Summary == "" {
			t.Errorf("finding without severity or summary: %+v", f)
		}
	}
	if took != len(s.Rounds) {
		t.Errorf("%d %s findings, want one per MTU (%d):\n%s", took, RuleMTUTookEffect, len(s.Rounds), b)
	}
	return s
}

// testCancelled: Ctrl-C in the middle of the 4200 step: the run fails and
// still restores the MTU and removes the link.
func testCancelled(t *testing.T, c config, dir string) {
	c.Out, c.Store = filepath.Join(dir, "out-cancelled"), filepath.Join(dir, "rounds-cancelled.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	prog := cancelOn{match: "MTU 4200 run 1", cancel: cancel}
	var buf bytes.Buffer
	err := run(ctx, c, &buf, &prog)
	if err == nil {
		t.Fatalf("a cancelled run succeeded:\n%s", buf.String())
	}
	if !prog.seen {
		t.Fatalf("never reached the 4200 step: %v", err)
	}
	t.Logf("cancelled run: %v", err)
	labtest.CheckRestored(t, "msrxe0", "msveth0", "1500")
}

// checkStore checks the store holds the summary's rounds, each with 1 to
// -count values per metric.
func checkStore(t *testing.T, c config, s summaryJSON) {
	t.Helper()
	rounds, _, err := report.OpenStore(c.Store).Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != len(s.Rounds) {
		t.Fatalf("store holds %d rounds, want %d", len(rounds), len(s.Rounds))
	}
	for i, r := range rounds {
		if mtu, _ := r.Param("netdev_mtu"); mtu != s.Rounds[i].Name[len("ib_send_bw_mtu"):] {
			t.Errorf("%s: netdev_mtu %q", r.Name, mtu)
		}
		for _, m := range r.Metrics {
			if n := len(m.Values); n == 0 || n > c.Count {
				t.Errorf("%s %s: %d values, want 1 to %d", r.Name, m.Key(), n, c.Count)
			}
		}
	}
}

// cancelOn is a progress writer that cancels the run when a line contains
// match.
type cancelOn struct {
	match  string
	cancel context.CancelFunc
	seen   bool
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.match) {
		c.seen = true
		c.cancel()
	}
	return len(p), nil
}
