package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/report"
)

// TestRedrawDemo draws the lab demo's stores again (report/plot/testdata).
func TestRedrawDemo(t *testing.T) {
	dir := filepath.Join("..", "..", "report", "plot", "testdata", "demo-trixie")
	out := t.TempDir()
	var log bytes.Buffer
	stores := []string{filepath.Join(dir, "mtu-sweep.jsonl"), filepath.Join(dir, "netperf-udp-tuning.jsonl")}
	if err := run(&log, stores, "", 0, out, "demo again"); err != nil {
		t.Fatal(err)
	}
	h, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"<h1>demo again</h1>", "mtu-sweep", "netperf-udp-tuning", "udp_stream_B_mtu9000", "ib_send_bw_mtu4200", "udp_loss"} {
		if !strings.Contains(string(h), w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	for _, f := range []string{"rounds.svg", "throughput.svg", "cpu-udp_stream_B_mtu9000.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if err := run(&log, stores[:1], "nope", 0, out, "x"); !errors.Is(err, report.ErrNoData) || !strings.Contains(err.Error(), `no round named "nope"; there are: ib_send_bw_mtu1500`) {
		t.Errorf("no such rounds: %v, want report.ErrNoData naming the rounds there are", err)
	}
	if err := run(&log, stores[:1], "", 1, out, "last"); err != nil {
		t.Fatal(err)
	}
	h, _ = os.ReadFile(filepath.Join(out, "report.html"))
	if strings.Contains(string(h), "ib_send_bw_mtu1500") || !strings.Contains(string(h), "ib_send_bw_mtu9000") {
		t.Error("-last 1 did not keep only the last round")
	}
}
