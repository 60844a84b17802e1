package main

import (
	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// The rules of the sweep's own findings.
const (
	// RuleMTUTookEffect is workflow.RuleMTUTookEffect.
	RuleMTUTookEffect = workflow.RuleMTUTookEffect
	// RuleRunFailed is report.RuleRunFailed: runs of an MTU that ended
	// in a completion error.
	RuleRunFailed = report.RuleRunFailed
)

// parseMTUs reads -mtus: comma-separated netdev MTUs (68 to 65535, each
// once), returned lowest first so that every round compares against the
// lowest.
func parseMTUs(s string) ([]int, error) {
	return cli.ParseList("mtus", s, 68, 65535)
}

// point is one MTU of the sweep: the netdev MTUs the ends had, the RoCE
// path MTU perftest ran at and the median of the compared metric.
type point struct {
	Name            string   // the round's: "ib_send_bw_mtu9000"
	MTU             int      // asked for (-mtus)
	NearMTU, FarMTU int      // read back from the netdevs
	Seen            int      // perftest's header MTU; 0 when it printed none
	Median          *float64 // nil when the metric has no value
	Unit            string
	// Runs is the number of runs; Failures says which of them failed
	// and how.
	Runs     int
	Failures []string
}

// Expected is workflow.ExpectedPathMTU of the ends' netdev MTUs.
func (p point) Expected() int { return workflow.ExpectedPathMTU(p.NearMTU, p.FarMTU) }

// TookEffect says whether perftest ran at the expected RoCE path MTU.
func (p point) TookEffect() bool { return p.Seen > 0 && p.Seen == p.Expected() }

// observe takes the header MTU and the metric's median from the round.
func (p *point) observe(r report.Round, metric string) {
	p.Name, p.Seen = r.Name, workflow.SeenPathMTU(&r)
	if m, ok := r.Metric(metric); ok && len(m.Values) > 0 {
		med := report.Summarize(m).Median
		p.Median, p.Unit = &med, m.Unit
	}
}

// check is the sweep's own rules for the round of p, stored with it: did
// the MTU take effect, and against the lowest MTU's round (nil for the
// lowest itself) report.Diagnose's MTU rules.
func check(p *point, low *report.Round, metric string) func(*report.Round) []report.Finding {
	return func(r *report.Round) []report.Finding {
		p.observe(*r, metric)
		fs := []report.Finding{workflow.CheckMTUTookEffect(p.MTU, p.NearMTU, p.FarMTU, p.Seen)}
		if low != nil {
			fs = append(fs, report.Diagnose(report.DiagnosisInput{MTULow: low, MTUHigh: r, MTUMetric: metric})...)
		}
		return fs
	}
}

// summary is summary.json.
type summary struct {
	Mode     string           `json:"mode"`
	Rounds   []summaryRound   `json:"rounds"`
	Findings []report.Finding `json:"findings"`
}

// summaryRound is one MTU in summary.json.
type summaryRound struct {
	Name            string   `json:"name"`
	NetdevMTU       int      `json:"netdev_mtu"`
	PathMTUExpected int      `json:"path_mtu_expected"`
	PathMTUSeen     int      `json:"path_mtu_seen"` // 0: perftest printed none
	TookEffect      bool     `json:"took_effect"`
	Metric          string   `json:"metric"`
	Median          *float64 `json:"median"`      // null: no finite value
	FailedRuns      int      `json:"failed_runs"` // runs that ended in a completion error
}

// buildSummary makes summary.json's content.
func buildSummary(mode runbook.Mode, metric string, points []point, findings []report.Finding) summary {
	s := summary{Mode: string(mode), Rounds: []summaryRound{}, Findings: append([]report.Finding{}, findings...)}
	for _, p := range points {
		s.Rounds = append(s.Rounds, summaryRound{Name: p.Name, NetdevMTU: p.NearMTU,
			PathMTUExpected: p.Expected(), PathMTUSeen: p.Seen, TookEffect: p.TookEffect(), Metric: metric, Median: p.Median, FailedRuns: len(p.Failures)})
	}
	return s
}
