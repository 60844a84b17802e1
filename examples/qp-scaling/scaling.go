package main

import (
	"fmt"
	"slices"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// The rules of the run's own findings.
const (
	// RuleQPEfficiency is workflow.RuleQPEfficiency.
	RuleQPEfficiency = workflow.RuleQPEfficiency
	// RuleRunFailed is report.RuleRunFailed: runs of a step that ended
	// in a completion error.
	RuleRunFailed = report.RuleRunFailed
)

// maxQPs bounds -qps: far more than rdma_rxe gains from, and what a
// careless "-qps 1,2,40000" should not try.
const maxQPs = 1024

// parseQPs reads -qps: comma-separated QP counts (1 to 1024, each once),
// returned smallest first.
func parseQPs(s string) ([]int, error) {
	return cli.ParseList("qps", s, 1, maxQPs)
}

// step is one QP count: the median of the compared metric and each end's
// hot softirq core while it ran.
type step struct {
	QPs             int
	Median          *float64 // nil when the metric has no value
	Unit            string
	NearHot, FarHot *irq.HotCore // nil when the counters could not be read
	// Runs is the number of runs; Failures says which of them failed
	// and how.
	Runs     int
	Failures []string
	// Findings are the step's, as workflow.RunPerftest stored them with
	// its round (or gave them without one, when every run failed).
	Findings []report.Finding
}

// observe takes the metric's median from the round.
func (s *step) observe(r report.Round) {
	if m, ok := r.Metric(metric); ok && len(m.Values) > 0 {
		med := report.Summarize(m).Median
		s.Median, s.Unit = &med, m.Unit
	}
}

// scaling is workflow.QPScaling.
type scaling = workflow.QPScaling

// points are the steps as workflow.AnalyseQPs takes them.
func points(steps []step) []workflow.QPPoint {
	ps := make([]workflow.QPPoint, len(steps))
	for i, s := range steps {
		ps[i] = workflow.QPPoint{QPs: s.QPs, Median: s.Median, Unit: s.Unit}
	}
	return ps
}

// analyse is workflow.AnalyseQPs of the steps.
func analyse(steps []step, minGain float64) scaling {
	return workflow.AnalyseQPs(points(steps), minGain)
}

// kneeText says in words where scaling stops.
func kneeText(steps []step, sc scaling) string { return sc.KneeText(points(steps)) }

// crossFindings are the rules over all the rounds so far: report.Diagnose's
// QP rule and the efficiency and knee in words; the last round stores them.
func crossFindings(rounds []report.Round, steps []step) []report.Finding {
	fs := report.Diagnose(report.DiagnosisInput{QPRounds: rounds, QPMetric: metric})
	return append(fs, analyse(steps, report.DefaultThresholds.MinQPGain).Finding(points(steps)))
}

// qpFindings are every step's findings and the rules over all of them
// (which the last step stored too), each once, the most severe first.
func qpFindings(rounds []report.Round, steps []step) []report.Finding {
	var fs []report.Finding
	seen := map[string]bool{}
	for _, s := range steps {
		fs = append(fs, s.Findings...)
	}
	fs = append(fs, crossFindings(rounds, steps)...)
	fs = slices.DeleteFunc(fs, func(f report.Finding) bool {
		k := f.Rule + "\x00" + f.Summary
		defer func() { seen[k] = true }()
		return seen[k]
	})
	report.SortFindings(fs)
	return fs
}

// summary is summary.json.
type summary struct {
	Mode     string           `json:"mode"`
	Rounds   []summaryRound   `json:"rounds"`
	Knee     *int             `json:"knee"` // null: no knee in the range
	Findings []report.Finding `json:"findings"`
}

// summaryRound is one QP count in summary.json. A hot core is the CPU id,
// -1 when no CPU did softirq work, null when it was not measured.
type summaryRound struct {
	QPs         int      `json:"qps"`
	Median      *float64 `json:"median"`     // null: no finite value
	Efficiency  *float64 `json:"efficiency"` // 0–1 and above; null without a bandwidth
	HotCoreNear *int     `json:"hot_core_near"`
	HotCoreFar  *int     `json:"hot_core_far"`
	FailedRuns  int      `json:"failed_runs"` // runs that ended in a completion error
}

// buildSummary makes summary.json's content.
func buildSummary(mode runbook.Mode, steps []step, sc scaling, findings []report.Finding) summary {
	s := summary{Mode: string(mode), Rounds: []summaryRound{}, Knee: sc.Knee, Findings: append([]report.Finding{}, findings...)}
	cpu := func(h *irq.HotCore) *int {
		if h == nil {
			return nil
		}
		c := h.CPU
		return &c
	}
	for i, st := range steps {
		s.Rounds = append(s.Rounds, summaryRound{QPs: st.QPs, Median: st.Median, Efficiency: sc.Efficiency[i],
			HotCoreNear: cpu(st.NearHot), HotCoreFar: cpu(st.FarHot), FailedRuns: len(st.Failures)})
	}
	return s
}

// ratioText prints an optional ratio, "—" for none.
func ratioText(v *float64, format string, scale float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf(format, *v*scale)
}
