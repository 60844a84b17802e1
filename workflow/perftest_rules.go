package workflow

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
)

// RuleMTUTookEffect states, once per MTU of a sweep, whether perftest ran
// at the RoCE path MTU the two ends' netdev MTUs give.
const RuleMTUTookEffect = "mtu_took_effect"

// ExpectedPathMTU is the RoCE path MTU rdma_rxe derives from the two ends'
// netdev MTUs: perftest uses the smaller of the ends' active MTUs.
func ExpectedPathMTU(nearMTU, farMTU int) int {
	return min(nic.RXEPathMTU(nearMTU), nic.RXEPathMTU(farMTU))
}

// SeenPathMTU is the RoCE path MTU perftest printed in its header (the
// round's "mtu" parameter); 0 when it printed none.
func SeenPathMTU(r *report.Round) int {
	v, _ := r.Param(report.ParamMTU)
	n, _ := strconv.Atoi(v)
	return n
}

// CheckMTUTookEffect says plainly whether the netdev MTU asked (mtu) reached
// the RDMA path: info when perftest ran at ExpectedPathMTU of the MTUs the
// ends had (near, far), a warning when it printed none, critical otherwise.
func CheckMTUTookEffect(mtu, near, far, seen int) report.Finding {
	expected := ExpectedPathMTU(near, far)
	netdev := strconv.Itoa(near)
	if near != far {
		netdev = fmt.Sprintf("%d here and %d at the far end", near, far)
	}
	f := report.Finding{Rule: RuleMTUTookEffect,
		Evidence: []report.Evidence{{Name: report.ParamNetdevMTU, Value: float64(near), Unit: "B"},
			{Name: "roce_path_mtu_expected", Value: float64(expected), Unit: "B"},
			{Name: "roce_path_mtu_seen", Value: float64(seen), Unit: "B"}}}
	switch {
	case seen > 0 && seen == expected:
		f.Severity = report.SeverityInfo
		f.Summary = fmt.Sprintf("MTU %d took effect: perftest ran at RoCE path MTU %d B, as rdma_rxe derives from netdev MTU %s", mtu, seen, netdev)
	case seen == 0:
		f.Severity = report.SeverityWarning
		f.Summary = fmt.Sprintf("MTU %d: perftest printed no MTU, so whether RoCE path MTU %d B was used is unknown", mtu, expected)
		f.Action = "read the raw output in the round's archive"
	default:
		f.Severity = report.SeverityCritical
		f.Summary = fmt.Sprintf("MTU %d did not take effect: perftest ran at RoCE path MTU %d B, netdev MTU %s gives %d B", mtu, seen, netdev, expected)
		f.Action = "set the MTU on both ends' netdevs, then check the rxe port's active_mtu (ibv_devinfo -v); re-create the rxe link if it did not follow"
	}
	return f
}

// RuleQPEfficiency states the scaling efficiency of every QP count of a
// sweep and the knee, in words.
const RuleQPEfficiency = "qp_scaling_efficiency"

// QPPoint is one QP count of a sweep and the median of the metric compared
// (nil when it has no value).
type QPPoint struct {
	QPs    int
	Median *float64
	Unit   string
}

// QPScaling is what the QP counts of a sweep add up to.
type QPScaling struct {
	// Efficiency of point i is bw(N)/(N × bw(1)): the share of perfect
	// linear scaling from the first measured point (its bandwidth per QP
	// when it is not 1 QP). nil where there is no bandwidth.
	Efficiency []*float64
	// Gain of point i is its bandwidth over the previous measured
	// point's; nil for the first and where there is no bandwidth.
	Gain []*float64
	// Knee is the QP count past which adding QPs gains less than the
	// threshold (the first point whose Gain is below it, minus one);
	// nil when bandwidth scales over the whole range. The same rule as
	// report.CheckQPScaling.
	Knee *int
	// KneeIndex is the point the knee is at; -1 without a knee.
	KneeIndex int
	// MinGain is the ratio between successive points below which
	// scaling has stopped.
	MinGain float64
}

// AnalyseQPs computes the efficiency and gain of each point and the knee,
// with minGain the ratio between successive points below which scaling has
// stopped (report.DefaultThresholds.MinQPGain).
func AnalyseQPs(ps []QPPoint, minGain float64) QPScaling {
	sc := QPScaling{Efficiency: make([]*float64, len(ps)), Gain: make([]*float64, len(ps)), KneeIndex: -1, MinGain: minGain}
	base, prev := -1, -1
	for i, s := range ps {
		if s.Median == nil || math.IsNaN(*s.Median) {
			continue
		}
		if base < 0 && *s.Median > 0 {
			base = i
		}
		if base >= 0 {
			perQP := *ps[base].Median / float64(ps[base].QPs)
			e := *s.Median / (float64(s.QPs) * perQP)
			sc.Efficiency[i] = &e
		}
		if prev >= 0 && *ps[prev].Median > 0 {
			g := *s.Median / *ps[prev].Median
			sc.Gain[i] = &g
			if sc.Knee == nil && g < minGain {
				k := ps[prev].QPs
				sc.Knee, sc.KneeIndex = &k, prev
			}
		}
		prev = i
	}
	return sc
}

// KneeText says in words where scaling stops.
func (sc QPScaling) KneeText(ps []QPPoint) string {
	var measured []string
	for i, s := range ps {
		if sc.Efficiency[i] != nil {
			measured = append(measured, strconv.Itoa(s.QPs))
		}
	}
	switch {
	case len(measured) < 2:
		return "Too few QP counts with a bandwidth to say how it scales."
	case sc.Knee == nil:
		return fmt.Sprintf("Bandwidth scales over the whole range (%s QPs): every step gains at least %.0f%%.",
			strings.Join(measured, ", "), (sc.MinGain-1)*100)
	}
	k := sc.KneeIndex
	next := k + 1
	for next < len(ps) && sc.Gain[next] == nil {
		next++
	}
	text := fmt.Sprintf("The knee is at %d QPs: going on to %d QPs gives ×%.2f the bandwidth (less than ×%.2f); more QPs than %d buy little here.",
		*sc.Knee, ps[next].QPs, *sc.Gain[next], sc.MinGain, *sc.Knee)
	// A later point well above the knee means the curve is noise, not a
	// plateau.
	kneeBW := *ps[k].Median
	for _, s := range ps[next+1:] {
		if s.Median != nil && *s.Median >= kneeBW*sc.MinGain {
			text += fmt.Sprintf(" But %d QPs rise again to ×%.2f of the knee's bandwidth: the curve is noisy, rerun with a larger -count before trusting the knee.",
				s.QPs, *s.Median/kneeBW)
			break
		}
	}
	return text
}

// Finding states the efficiency of every point and the knee
// (RuleQPEfficiency, info), with the numbers as evidence.
func (sc QPScaling) Finding(ps []QPPoint) report.Finding {
	var effs []string
	for i, s := range ps {
		e := "—"
		if sc.Efficiency[i] != nil {
			e = fmt.Sprintf("%.0f%%", *sc.Efficiency[i]*100)
		}
		effs = append(effs, fmt.Sprintf("%d QPs %s", s.QPs, e))
	}
	f := report.Finding{Rule: RuleQPEfficiency, Severity: report.SeverityInfo,
		Summary: fmt.Sprintf("scaling efficiency %s. %s", strings.Join(effs, ", "), sc.KneeText(ps))}
	for i, s := range ps {
		if sc.Efficiency[i] != nil {
			f.Evidence = append(f.Evidence, report.Evidence{Name: fmt.Sprintf("efficiency_q%d", s.QPs), Value: *sc.Efficiency[i], Unit: report.UnitRatio})
		}
	}
	if sc.Knee != nil {
		f.Evidence = append(f.Evidence, report.Evidence{Name: "knee_qps", Value: float64(*sc.Knee), Unit: "QPs"})
	}
	return f
}
