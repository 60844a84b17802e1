package main

import (
	"fmt"
	"strconv"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// The rules of the sweep's own findings.
const (
	// RuleMTUTookEffect states, once per MTU, whether perftest ran at the
	// RoCE path MTU the netdev MTUs give.
	RuleMTUTookEffect = "mtu_took_effect"
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
	// (runFailed) and how.
	Runs     int
	Failures []string
	// Retransmit are the RDMA counters' findings of the MTU's runs
	// (runbook.Pairs.Findings).
	Retransmit []report.Finding
}

// Expected is the RoCE path MTU rdma_rxe derives from the two ends'
// netdev MTUs: perftest uses the smaller of the ends' active MTUs.
func (p point) Expected() int {
	return min(nic.RXEPathMTU(p.NearMTU), nic.RXEPathMTU(p.FarMTU))
}

// TookEffect says whether perftest ran at the expected RoCE path MTU.
func (p point) TookEffect() bool { return p.Seen > 0 && p.Seen == p.Expected() }

// observe takes the header MTU and the metric's median from the round.
func (p *point) observe(r report.Round, metric string) {
	p.Name = r.Name
	if v, ok := r.Param("mtu"); ok {
		p.Seen, _ = strconv.Atoi(v)
	}
	if m, ok := r.Metric(metric); ok && len(m.Values) > 0 {
		med := report.Summarize(m).Median
		p.Median, p.Unit = &med, m.Unit
	}
}

// tookEffectFinding states plainly whether the MTU reached the RDMA path.
func tookEffectFinding(p point) report.Finding {
	f := report.Finding{Rule: RuleMTUTookEffect,
		Evidence: []report.Evidence{{Name: "netdev_mtu", Value: float64(p.NearMTU), Unit: "B"},
			{Name: "roce_path_mtu_expected", Value: float64(p.Expected()), Unit: "B"},
			{Name: "roce_path_mtu_seen", Value: float64(p.Seen), Unit: "B"}}}
	switch {
	case p.TookEffect():
		f.Severity = report.SeverityInfo
		f.Summary = fmt.Sprintf("MTU %d took effect: perftest ran at RoCE path MTU %d B, as rdma_rxe derives from netdev MTU %s", p.MTU, p.Seen, netdevText(p))
	case p.Seen == 0:
		f.Severity = report.SeverityWarning
		f.Summary = fmt.Sprintf("MTU %d: perftest printed no MTU, so whether RoCE path MTU %d B was used is unknown", p.MTU, p.Expected())
		f.Action = "read the raw output in the round's archive"
	default:
		f.Severity = report.SeverityCritical
		f.Summary = fmt.Sprintf("MTU %d did not take effect: perftest ran at RoCE path MTU %d B, netdev MTU %s gives %d B", p.MTU, p.Seen, netdevText(p), p.Expected())
		f.Action = "set the MTU on both ends' netdevs, then check the rxe port's active_mtu (ibv_devinfo -v); re-create the rxe link if it did not follow"
	}
	return f
}

func netdevText(p point) string {
	if p.NearMTU == p.FarMTU {
		return fmt.Sprint(p.NearMTU)
	}
	return fmt.Sprintf("%d here and %d at the far end", p.NearMTU, p.FarMTU)
}

// sweepFindings are, for every MTU, whether it took effect, and for every
// MTU above the lowest, report.Diagnose's MTU rules against the lowest; the
// most severe first.
func sweepFindings(rounds []report.Round, points []point, metric string) []report.Finding {
	var fs []report.Finding
	for i, p := range points {
		fs = append(fs, tookEffectFinding(p))
		fs = append(fs, p.Retransmit...)
		if f, ok := report.RunsFailed(fmt.Sprintf("MTU %d", p.MTU), p.Runs, p.Failures); ok {
			fs = append(fs, f)
		}
		if i == 0 {
			continue
		}
		fs = append(fs, report.Diagnose(report.DiagnosisInput{MTULow: &rounds[0], MTUHigh: &rounds[i], MTUMetric: metric})...)
	}
	report.SortFindings(fs)
	return fs
}

// summary is summary.json.
type summary struct {
	Mode     string         `json:"mode"`
	Rounds   []summaryRound `json:"rounds"`
	Findings []summaryFind  `json:"findings"`
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

// summaryFind is one finding in summary.json.
type summaryFind struct {
	Severity report.Severity `json:"severity"`
	Rule     string          `json:"rule"`
	Summary  string          `json:"summary"`
}

// buildSummary makes summary.json's content.
func buildSummary(mode runbook.Mode, metric string, points []point, findings []report.Finding) summary {
	s := summary{Mode: string(mode), Rounds: []summaryRound{}, Findings: []summaryFind{}}
	for _, p := range points {
		s.Rounds = append(s.Rounds, summaryRound{Name: p.Name, NetdevMTU: p.NearMTU,
			PathMTUExpected: p.Expected(), PathMTUSeen: p.Seen, TookEffect: p.TookEffect(), Metric: metric, Median: p.Median, FailedRuns: len(p.Failures)})
	}
	for _, f := range findings {
		s.Findings = append(s.Findings, summaryFind{f.Severity, f.Rule, f.Summary})
	}
	return s
}
