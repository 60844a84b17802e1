//go:build lab

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report"
)

// TestLabQPScaling runs 1, 2, 4 and 8 QPs on a veth in a real guest, in
// loopback at MTU 4200: every QP count gives a round with its hot core,
// there are findings, and the rxe link and the MTU are as they were
// afterwards. Bandwidth numbers are emulated and never checked.
func TestLabQPScaling(t *testing.T) {
	c := config{StepFlags: clitest.LabStepFlags(t, "qsveth0", "qsveth1", "198.18.93.1/24", "qsrxe0", 2), MTU: 4200, QPs: "1,2,4,8"}
	printed := clitest.RunRestored(t, c.StepFlags, 15*time.Minute, func(ctx context.Context, out io.Writer) error {
		return run(ctx, c, out, io.Discard)
	})
	qps := []int{1, 2, 4, 8}
	files := []string{"qps.svg"}
	for _, q := range qps {
		files = append(files, fmt.Sprintf("ib_send_bw_q%d.tar.gz", q))
	}
	labtest.CheckOutFiles(t, c.Out, printed, files...)
	b, err := os.ReadFile(filepath.Join(c.Out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Decoded into maps so that a missing key shows (knee may be null).
	var s map[string]json.RawMessage
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v\n%s", err, b)
	}
	for _, k := range []string{"mode", "rounds", "knee", "findings"} {
		if _, ok := s[k]; !ok {
			t.Errorf("summary.json has no %q:\n%s", k, b)
		}
	}
	if string(s["mode"]) != `"loopback"` {
		t.Errorf("mode %s, want loopback", s["mode"])
	}
	checkSummaryRounds(t, s["rounds"], qps)
	var knee *int
	if err := json.Unmarshal(s["knee"], &knee); err != nil {
		t.Errorf("knee %s: %v", s["knee"], err)
	} else if knee != nil && !containsInt(qps, *knee) {
		t.Errorf("knee %d is not one of %v", *knee, qps)
	}
	checkSummaryFindings(t, s["findings"])
	checkStore(t, c.Store, qps)
}

// checkSummaryRounds checks summary.json's rounds: one per QP count, each
// with a hot core, and an efficiency where there is a bandwidth.
func checkSummaryRounds(t *testing.T, js json.RawMessage, qps []int) {
	t.Helper()
	var rounds []struct {
		QPs         int      `json:"qps"`
		Median      *float64 `json:"median"`
		Efficiency  *float64 `json:"efficiency"`
		HotCoreNear *int     `json:"hot_core_near"`
		HotCoreFar  *int     `json:"hot_core_far"`
	}
	if err := json.Unmarshal(js, &rounds); err != nil || len(rounds) != len(qps) {
		t.Fatalf("rounds: %v, %d of them, want %d:\n%s", err, len(rounds), len(qps), js)
	}
	for i, r := range rounds {
		if r.QPs != qps[i] {
			t.Errorf("round %d: qps %d, want %d", i, r.QPs, qps[i])
		}
		// The counters are readable in the guest: each step has a hot
		// core (a CPU id, or -1 for no softirq work), the same on both
		// ends in loopback.
		if r.HotCoreNear == nil || r.HotCoreFar == nil || *r.HotCoreNear != *r.HotCoreFar || *r.HotCoreNear < -1 || *r.HotCoreNear > 3 {
			t.Errorf("round %d: hot cores %v %v, want one CPU of 4 (or -1) for both ends", i, r.HotCoreNear, r.HotCoreFar)
		}
		// Efficiency is relative to the first step with a bandwidth.
		if first := rounds[0].Median; first != nil && *first > 0 && r.Median != nil && r.Efficiency == nil {
			t.Errorf("round %d: median %v but no efficiency", i, *r.Median)
		}
	}
}

// checkSummaryFindings checks every finding says something, and there is
// one QP efficiency finding.
func checkSummaryFindings(t *testing.T, js json.RawMessage) {
	t.Helper()
	var findings []struct{ Severity, Rule, Summary string }
	if err := json.Unmarshal(js, &findings); err != nil {
		t.Fatal(err)
	}
	own := 0
	for _, f := range findings {
		if f.Rule == RuleQPEfficiency {
			own++
		}
		if f.Severity == "" || f.Summary == "" {
			t.Errorf("finding without severity or summary: %+v", f)
		}
	}
	if own != 1 {
		t.Errorf("%d %s findings, want 1:\n%s", own, RuleQPEfficiency, js)
	}
}

// checkStore checks the store holds a round per QP count with perftest's
// QP count, the RoCE path MTU and the CPU load.
func checkStore(t *testing.T, store string, qps []int) {
	t.Helper()
	stored, _, err := report.OpenStore(store).Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(qps) {
		t.Fatalf("store holds %d rounds, want %d", len(stored), len(qps))
	}
	for i, r := range stored {
		if q, _ := r.Param("qps"); q != fmt.Sprint(qps[i]) {
			t.Errorf("%s: qps %q, want %d (perftest's header)", r.Name, q, qps[i])
		}
		if mtu, _ := r.Param("mtu"); mtu != "4096" {
			t.Errorf("%s: RoCE path MTU %q, want 4096 at netdev MTU 4200", r.Name, mtu)
		}
		if _, ok := r.Metric("cpu_soft_max"); !ok {
			t.Errorf("%s: no cpu_soft_max: the step's CPU load is missing", r.Name)
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
