package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/report/page"
)

// TestDemoSection builds the demo page's section of the netperf example
// from the rounds and report a lab demo wrote (report/plot/testdata,
// report/page/testdata), laid out as demo-out is.
func TestDemoSection(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(dir, "netperf-udp-tuning")
	if err := os.MkdirAll(ex, 0o755); err != nil {
		t.Fatal(err)
	}
	store, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "report", "plot", "testdata", "demo-trixie", "netperf-udp-tuning.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ex, "rounds.jsonl"), store, 0o644)
	md, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "report", "page", "testdata", "netperf-udp-tuning.md"))
	if err != nil {
		t.Fatal(err)
	}
	sec := demoSection(dir, "trixie", exampleResult{name: "netperf-udp-tuning", ok: true, report: md}, "ok")
	if sec.Title != "trixie netperf-udp-tuning: ok" || len(sec.Rounds) != 3 || len(sec.Figures) != 4 {
		t.Errorf("section %q: %d rounds, %d figures; want 3 and 4 (throughput, cpu per round)", sec.Title, len(sec.Rounds), len(sec.Figures))
	}
	if len(sec.Findings) == 0 || sec.Findings[0].Rule == "" || len(sec.Notes) != 0 {
		t.Errorf("findings %v, notes %v", sec.Findings, sec.Notes)
	}
	// The example's summary.json is where its findings are read from,
	// the most severe first; the report's Markdown is not scraped.
	sum := `{"findings": [{"rule": "udp_loss", "severity": "warning", "summary": "loss 7%"}, {"rule": "perftest_run_failed", "severity": "critical", "summary": "every run failed"}]}`
	if err := os.WriteFile(filepath.Join(ex, "summary.json"), []byte(sum), 0o644); err != nil {
		t.Fatal(err)
	}
	withSum := demoSection(dir, "trixie", exampleResult{name: "netperf-udp-tuning", ok: true, report: md}, "ok")
	if len(withSum.Findings) != 2 || withSum.Findings[0].Rule != "perftest_run_failed" || withSum.Findings[1].Summary != "loss 7%" {
		t.Errorf("findings from summary.json: %+v", withSum.Findings)
	}
	os.WriteFile(filepath.Join(ex, "summary.json"), []byte("{"), 0o644)
	if bad := demoSection(dir, "trixie", exampleResult{name: "netperf-udp-tuning", ok: true, report: md}, "ok"); len(bad.Notes) != 1 {
		t.Errorf("a broken summary.json: notes %q", bad.Notes)
	}
	var b bytes.Buffer
	if err := page.Write(&b, page.Page{Title: "rocekit demo", Sections: []page.Section{sec}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "udp_stream_C_mtu9000_irqspread") || strings.Count(b.String(), "<svg ") != 4 {
		t.Error("page lacks the rounds or the pictures")
	}
	missing := demoSection(dir, "trixie", exampleResult{name: "nope", report: []byte("# nope\n")}, "FAILED")
	if len(missing.Rounds) != 0 || len(missing.Figures) != 0 {
		t.Errorf("an example without a store: %+v", missing)
	}
}
