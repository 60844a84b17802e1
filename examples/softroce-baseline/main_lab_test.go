//go:build lab

package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/report"
)

// TestLabBaselineTwice runs the baseline twice on a veth in a real guest:
// the first run is the baseline, the second is compared against it; both
// leave the rxe link and the MTU as they found them.
func TestLabBaselineTwice(t *testing.T) {
	c := config{StepFlags: clitest.LabStepFlags(t, "sbveth0", "sbveth1", "198.18.90.1/24", "sbrxe0", 2), MTU: 4200}
	var outs []string
	for i := 0; i < 2; i++ {
		t.Logf("run %d", i+1)
		outs = append(outs, clitest.RunRestored(t, c.StepFlags, 10*time.Minute, func(ctx context.Context, out io.Writer) error {
			return run(ctx, c, out, io.Discard)
		}))
	}
	if !strings.Contains(outs[0], "first round: the baseline") || !strings.Contains(outs[1], "against the previous round") {
		t.Errorf("the second run is not compared against the first")
	}
	// The report and one archive per round (the last run's) are in -out.
	for _, name := range []string{"report.md", "summary.json", "ib_send_bw.tar.gz", "ib_send_lat.tar.gz"} {
		if _, err := os.Stat(filepath.Join(c.Out, name)); err != nil {
			t.Errorf("-out: %v", err)
		}
	}
	// The archive's rerun.sh reruns the round (here, the loopback),
	// adding again the rxe link the run made and removed.
	checkRerun(t, filepath.Join(c.Out, "ib_send_bw.tar.gz"), nil)
	exec.Command("rdma", "link", "del", "sbrxe0").Run() // rerun.sh's, not journaled
	rounds, _, err := report.OpenStore(c.Store).Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 4 {
		t.Fatalf("store holds %d rounds, want 4 (2 tests x 2 runs)", len(rounds))
	}
	for _, r := range rounds {
		if mtu, _ := r.Param("netdev_mtu"); mtu != "4200" {
			t.Errorf("%s: netdev_mtu %q, want 4200 (set for the run)", r.Name, mtu)
		}
		if pmtu, _ := r.Param("mtu"); pmtu != "4096" {
			t.Errorf("%s: RoCE path MTU %q, want 4096 at netdev MTU 4200", r.Name, pmtu)
		}
		for _, m := range r.Metrics {
			// A run whose value was inf or nan (bookworm's emulated clock
			// does that) is left out of the metric, with a warning.
			switch n := len(m.Values); {
			case n == 0 || n > c.Count:
				t.Errorf("%s %s: %d values, want 1 to %d", r.Name, m.Key(), n, c.Count)
			case n < c.Count && len(r.Warnings) == 0:
				t.Errorf("%s %s: %d of %d values and no warning saying why", r.Name, m.Key(), n, c.Count)
			}
		}
	}
}
