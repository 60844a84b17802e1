package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/report"
)

// The demo's terminal summary prints each example's answers and findings.
func TestPrintFindingsAnswers(t *testing.T) {
	md := "## trixie (kernel 6.12)\n\n### mtu-sweep: ok\n\n##### Answers\n\n| round | rate | ceiling | share | bottleneck |\n|---|---:|---:|---:|---|\n" +
		"| ib_send_bw_mtu1500 | 412 Mbit/s (n = 3: no CI) | unknown | — | **none-found**: 412 Mbit/s against no known ceiling |\n\n" +
		"#### Findings\n\n| a | b |\n- **info** mtu_took_effect: MTU 1500 took effect\n"
	var b bytes.Buffer
	printFindings(&b, []byte(md))
	want := "trixie (kernel 6.12)\nmtu-sweep: ok\n  answer: ib_send_bw_mtu1500; 412 Mbit/s (n = 3: no CI); unknown; —; **none-found**: 412 Mbit/s against no known ceiling\n  - **info** mtu_took_effect: MTU 1500 took effect\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if strings.Contains(b.String(), "| a | b |") {
		t.Error("a table outside the answers was printed")
	}
}

func TestEfficiencyLine(t *testing.T) {
	rounds := []report.Round{{Name: "a", DurationSec: 10, ToolSec: 9}, {Name: "b", DurationSec: 30, ToolSec: 27}, {Name: "old", DurationSec: 5}}
	if got, want := efficiencyLine(rounds), "Efficiency: the tools ran 90 % of the rounds' wall time (36.0 s of 40.0 s, 3 rounds)."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	rounds[0].SelfCPUSec = map[string]float64{"near": 0.045, "far": 0.018}
	rounds[1].SelfCPUSec = map[string]float64{"near": 0.045}
	if got, want := efficiencyLine(rounds), "Efficiency: the tools ran 90 % of the rounds' wall time (36.0 s of 40.0 s, 3 rounds). rocekit's own CPU while they ran: far 0.05 %, near 0.25 % of one core."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if efficiencyLine(rounds[2:]) != "" {
		t.Error("a line without any tool time")
	}
	var b bytes.Buffer
	printFindings(&b, []byte("### x: ok\n\nEfficiency: the tools ran 90 %\n"))
	if !strings.Contains(b.String(), "  Efficiency: the tools ran 90 %") {
		t.Errorf("printed %q", b.String())
	}
}
