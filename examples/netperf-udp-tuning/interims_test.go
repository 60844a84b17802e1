package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

func TestWithInterims(t *testing.T) {
	c := config{Length: 10, MsgSize: 1400, SockBuf: "2M", Count: 1, Interval: 1}
	o, err := c.netperfOptions()
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Join(o.Argv(), " ")
	if !strings.Contains(argv, " -D 1 ") || strings.Index(argv, "-D 1") > strings.Index(argv, " -- ") {
		t.Errorf("argv %q: want the global -D 1 before --", argv)
	}
	c.Interval = 0
	if o, _ := c.netperfOptions(); slices.Contains(o.Argv(), "-D") {
		t.Errorf("-interval 0 still asks for interim results: %q", o.Argv())
	}
	c.Interval = -1
	if _, err := c.netperfOptions(); err == nil {
		t.Error("-interval -1 accepted")
	}
}

// demoRun is a run whose netperf output is the captured keyval output of
// netperf -D (netperf/testdata/loopback/tcp-stream-demo-k), as Run parses
// it.
func demoRun(t *testing.T) netperfRun {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "netperf", "testdata", "loopback", "tcp-stream-demo-k", "client.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := netperf.ParseKeyVal(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interims) < 2 {
		t.Fatalf("the capture has %d interim results", len(res.Interims))
	}
	return netperfRun{Result: res}
}

// TestInterimsInOutputs: the interim results of each run are recorded in
// the round, drawn in interims-throughput.svg and on report.html, and kept
// out of the side-by-side tables.
func TestInterimsInOutputs(t *testing.T) {
	results := fakeResults()[:1] // round A, which has per-CPU load for cpu-A.svg
	if figs, err := interimFigures([]report.Round{results[0].Round}); err != nil || figs != nil {
		t.Fatalf("no interims: %d figures, %v; want none", len(figs), err)
	}
	run := demoRun(t)
	if err := addInterims(&results[0].Round, []netperfRun{run, run}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range results[0].Round.Metrics {
		if m.Name == "interim_throughput" {
			n++
		}
	}
	if n != 2*len(run.Result.Interims) {
		t.Fatalf("%d interim metrics, want %d (two runs)", n, 2*len(run.Result.Interims))
	}
	dir := t.TempDir()
	sides := &runbook.Sides{Mode: runbook.TwoNetns, Near: &runbook.Local{}, Far: &runbook.Local{Netns: "udppeer"},
		NearNetdev: "eth0", FarNetdev: "eth1"}
	if err := writeOutputs(dir, io.Discard, sides, report.OpenStore(filepath.Join(dir, "rounds.jsonl")), results); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "interims-throughput.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"throughput over time", "udp_stream_A_default run 0", "udp_stream_A_default run 1"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("interims-throughput.svg lacks %q", want)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte("throughput over time (interim results)")) {
		t.Error("report.html lacks the interim picture")
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if bytes.Contains(md, []byte("interim_throughput")) || bytes.Contains(html, []byte("interim_throughput/")) {
		t.Error("interim results in the side-by-side tables")
	}
}
