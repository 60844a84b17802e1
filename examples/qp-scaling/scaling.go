package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// The rules of the run's own findings.
const (
	// RuleQPEfficiency states the scaling efficiency of every step and
	// the knee, in words.
	RuleQPEfficiency = "qp_scaling_efficiency"
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
	// (runFailed) and how.
	Runs     int
	Failures []string
	// Retransmit are the RDMA counters' findings of the step's runs
	// (runbook.Pairs.Findings).
	Retransmit []report.Finding
}

// observe takes the metric's median from the round.
func (s *step) observe(r report.Round) {
	if m, ok := r.Metric(metric); ok && len(m.Values) > 0 {
		med := report.Summarize(m).Median
		s.Median, s.Unit = &med, m.Unit
	}
}

// scaling is what the steps add up to.
type scaling struct {
	// Efficiency of step i is bw(N)/(N × bw(1)): the share of perfect
	// linear scaling from the first measured step (its bandwidth per QP
	// when it is not 1 QP). nil where there is no bandwidth.
	Efficiency []*float64
	// Gain of step i is its bandwidth over the previous measured step's;
	// nil for the first and where there is no bandwidth.
	Gain []*float64
	// Knee is the QP count past which adding QPs gains less than the
	// threshold (the first step whose Gain is below it, minus one step);
	// nil when bandwidth scales over the whole range. The same rule as
	// report.CheckQPScaling.
	Knee *int
	// KneeIndex is the step the knee is at; -1 without a knee.
	KneeIndex int
}

// analyse computes the efficiency and gain of each step and the knee, with
// minGain the ratio between successive steps below which scaling has
// stopped (report.DefaultThresholds.MinQPGain).
func analyse(steps []step, minGain float64) scaling {
	sc := scaling{Efficiency: make([]*float64, len(steps)), Gain: make([]*float64, len(steps)), KneeIndex: -1}
	base, prev := -1, -1
	for i, s := range steps {
		if s.Median == nil || math.IsNaN(*s.Median) {
			continue
		}
		if base < 0 && *s.Median > 0 {
			base = i
		}
		if base >= 0 {
			perQP := *steps[base].Median / float64(steps[base].QPs)
			e := *s.Median / (float64(s.QPs) * perQP)
			sc.Efficiency[i] = &e
		}
		if prev >= 0 && *steps[prev].Median > 0 {
			g := *s.Median / *steps[prev].Median
			sc.Gain[i] = &g
			if sc.Knee == nil && g < minGain {
				k := steps[prev].QPs
				sc.Knee, sc.KneeIndex = &k, prev
			}
		}
		prev = i
	}
	return sc
}

// kneeText says in words where scaling stops.
func kneeText(steps []step, sc scaling) string {
	var measured []string
	for i, s := range steps {
		if sc.Efficiency[i] != nil {
			measured = append(measured, strconv.Itoa(s.QPs))
		}
	}
	switch {
	case len(measured) < 2:
		return "Too few QP counts with a bandwidth to say how it scales."
	case sc.Knee == nil:
		return fmt.Sprintf("Bandwidth scales over the whole range (%s QPs): every step gains at least %.0f%%.",
			strings.Join(measured, ", "), (report.DefaultThresholds.MinQPGain-1)*100)
	}
	k := sc.KneeIndex
	next := k + 1
	for next < len(steps) && sc.Gain[next] == nil {
		next++
	}
	text := fmt.Sprintf("The knee is at %d QPs: going on to %d QPs gives ×%.2f the bandwidth (less than ×%.2f); more QPs than %d buy little here.",
		*sc.Knee, steps[next].QPs, *sc.Gain[next], report.DefaultThresholds.MinQPGain, *sc.Knee)
	// A later step well above the knee means the curve is noise, not a
	// plateau.
	kneeBW := *steps[k].Median
	for _, s := range steps[next+1:] {
		if s.Median != nil && *s.Median >= kneeBW*report.DefaultThresholds.MinQPGain {
			text += fmt.Sprintf(" But %d QPs rise again to ×%.2f of the knee's bandwidth: the curve is noisy, rerun with a larger -count before trusting the knee.",
				s.QPs, *s.Median/kneeBW)
			break
		}
	}
	return text
}

// qpFindings are report.Diagnose's QP rule over the rounds, the hot
// softirq core rule for each step and end, and the run's own statement of
// efficiency and knee; the most severe first.
func qpFindings(rounds []report.Round, steps []step, sc scaling, mode runbook.Mode) []report.Finding {
	fs := report.Diagnose(report.DiagnosisInput{QPRounds: rounds, QPMetric: metric})
	for _, s := range steps {
		for _, end := range []struct {
			name string
			hot  *irq.HotCore
		}{{"client", s.NearHot}, {"server", s.FarHot}} {
			if end.hot == nil || (mode == runbook.Loopback && end.name == "server") {
				continue
			}
			for _, f := range report.Diagnose(report.DiagnosisInput{Hot: end.hot}) {
				if mode == runbook.Loopback {
					end.name = "this host"
				}
				f.Summary = fmt.Sprintf("%d QPs, %s: %s", s.QPs, end.name, f.Summary)
				fs = append(fs, f)
			}
		}
	}
	for _, s := range steps {
		fs = append(fs, s.Retransmit...)
		if f, ok := report.RunsFailed(fmt.Sprintf("%d QPs", s.QPs), s.Runs, s.Failures); ok {
			fs = append(fs, f)
		}
	}
	var effs []string
	for i, s := range steps {
		effs = append(effs, fmt.Sprintf("%d QPs %s", s.QPs, ratioText(sc.Efficiency[i], "%.0f%%", 100)))
	}
	own := report.Finding{Rule: RuleQPEfficiency, Severity: report.SeverityInfo,
		Summary: fmt.Sprintf("scaling efficiency %s. %s", strings.Join(effs, ", "), kneeText(steps, sc))}
	for i, s := range steps {
		if sc.Efficiency[i] != nil {
			own.Evidence = append(own.Evidence, report.Evidence{Name: fmt.Sprintf("efficiency_q%d", s.QPs), Value: *sc.Efficiency[i], Unit: report.UnitRatio})
		}
	}
	if sc.Knee != nil {
		own.Evidence = append(own.Evidence, report.Evidence{Name: "knee_qps", Value: float64(*sc.Knee), Unit: "QPs"})
	}
	fs = append(fs, own)
	report.SortFindings(fs)
	return fs
}

// summary is summary.json.
type summary struct {
	Mode     string         `json:"mode"`
	Rounds   []summaryRound `json:"rounds"`
	Knee     *int           `json:"knee"` // null: no knee in the range
	Findings []summaryFind  `json:"findings"`
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

// summaryFind is one finding in summary.json.
type summaryFind struct {
	Severity report.Severity `json:"severity"`
	Rule     string          `json:"rule"`
	Summary  string          `json:"summary"`
}

// buildSummary makes summary.json's content.
func buildSummary(mode runbook.Mode, steps []step, sc scaling, findings []report.Finding) summary {
	s := summary{Mode: string(mode), Rounds: []summaryRound{}, Knee: sc.Knee, Findings: []summaryFind{}}
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
	for _, f := range findings {
		s.Findings = append(s.Findings, summaryFind{f.Severity, f.Rule, f.Summary})
	}
	return s
}
