//go:build lab

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/report"
)

// TestLabBaselineSoak runs the baseline once with -soak 8s on a veth in a
// real guest: the round ib_send_bw_soak holds the interim rows of
// ib_send_bw --run_infinitely -D 1, and report.html draws them.
func TestLabBaselineSoak(t *testing.T) {
	c := config{StepFlags: clitest.LabStepFlags(t, "skveth0", "skveth1", "198.18.91.1/24", "skrxe0", 1), Soak: 8 * time.Second}
	clitest.RunRestored(t, c.StepFlags, 10*time.Minute, func(ctx context.Context, out io.Writer) error {
		return run(ctx, c, out, io.Discard)
	})
	rounds, _, err := report.OpenStore(c.Store).Load()
	if err != nil {
		t.Fatal(err)
	}
	var soak *report.Round
	for i := range rounds {
		if rounds[i].Name == "ib_send_bw_soak" {
			soak = &rounds[i]
		}
	}
	if soak == nil {
		t.Fatalf("no ib_send_bw_soak round among %d", len(rounds))
	}
	n := 0
	for _, m := range soak.Metrics {
		if m.Name == "interim_bw_avg" && m.Unit == report.UnitGbps && len(m.Values) == 1 && m.Values[0] >= 0 {
			n++
		}
	}
	t.Logf("ib_send_bw_soak: %d interim rows, warnings %q", n, soak.Warnings)
	if n == 0 || n != len(soak.Metrics) {
		t.Errorf("ib_send_bw_soak: %d interim rows of %d metrics", n, len(soak.Metrics))
	}
	html, err := os.ReadFile(filepath.Join(c.Out, "report.html"))
	if err != nil || !bytes.Contains(html, []byte("bw_avg over time (interim results)")) {
		t.Errorf("report.html without the soak's picture (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(c.Out, "ib_send_bw_soak.tar.gz")); err != nil {
		t.Errorf("-out: %v", err)
	}
}
