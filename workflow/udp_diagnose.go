package workflow

import (
	"fmt"

	"github.com/rocekit/rocekit/report"
)

// Rules of the UDP rounds' own findings.
const (
	// RuleGovernorNotSet: a round that spreads IRQs could not set the
	// governor (no cpufreq): it differs from the round before only by
	// the IRQ spread.
	RuleGovernorNotSet = "governor_not_set"
	// RuleUDPAgainstTCP: the TCP_STREAM reference round against the best
	// UDP round before it ("UDP on par with TCP").
	RuleUDPAgainstTCP = "udp_against_tcp"
)

// diagnose runs the rules on the round and the receiver's counters.
func (t *udpTuner) diagnose(round *report.Round, res *UDPRoundResult) []report.Finding {
	gs, pids, _ := t.hostState(res)
	hot := res.Receiver.Load.Hot()
	metric := report.MetricRecvThroughput
	if res.Spec.TCP {
		metric = report.MetricThroughput
	}
	in := report.DiagnosisInput{Round: round, NICDelta: &res.Receiver.Stats, UDP: &res.Receiver.UDP,
		Distribution: &res.Receiver.Distribution, Hot: &hot, Governors: gs,
		IRQBalancePIDs: pids, AffinitySet: t.spread, ThroughputMetric: metric,
		Link: res.Far.Snapshot.Link}
	fs := report.Diagnose(in)
	fs = append(fs, report.CheckSocketDrops(*round)...)
	if res.Spec.Spread && !res.GovernorSet {
		reason := "not reported"
		if t.governor != nil {
			reason = t.governor.Reason
		}
		fs = append(fs, report.Finding{Rule: RuleGovernorNotSet, Severity: report.SeverityInfo,
			Summary: fmt.Sprintf("governor %s not set on the receiver: %s", t.o.Governor, reason),
			Action:  "nothing to do in a VM; on hardware, load the cpufreq driver (intel_pstate, acpi-cpufreq)"})
	}
	if res.Spec.TCP {
		fs = append(fs, UDPAgainstTCP(t.done, *round)...)
	}
	return fs
}

// UDPAgainstTCP holds a TCP_STREAM reference round against the best UDP
// round (median recv_throughput) of rounds: the runbook expects UDP on par
// with TCP once tuned. UDP below 90 % of TCP is a warning (the host can
// carry more; the UDP path is what loses it); within 10 % it is on par;
// above, TCP was held back by its own (info). No UDP round or no TCP
// throughput gives nothing.
//
// Similar to: netperf -t TCP_STREAM beside -t UDP_STREAM, by eye
func UDPAgainstTCP(rounds []report.Round, tcp report.Round) []report.Finding {
	tm, ok := tcp.Metric(report.MetricThroughput)
	if !ok || len(tm.Values) == 0 {
		return nil
	}
	tv := report.Summarize(tm).Median
	best, name := 0.0, ""
	for _, r := range rounds {
		if m, ok := r.Metric(report.MetricRecvThroughput); ok && len(m.Values) > 0 {
			if v := report.Summarize(m).Median; v > best {
				best, name = v, r.Name
			}
		}
	}
	if name == "" || !(tv > 0) {
		return nil
	}
	ratio := best / tv
	f := report.Finding{Rule: RuleUDPAgainstTCP, Severity: report.SeverityInfo,
		Summary: fmt.Sprintf("UDP at %.0f%% of TCP: best UDP round %s received %.1f Mbit/s, TCP_STREAM %.1f Mbit/s (medians)", 100*ratio, name, best, tv),
		Evidence: []report.Evidence{{Name: "udp_recv_throughput", Value: best, Unit: report.UnitMbps},
			{Name: "tcp_throughput", Value: tv, Unit: report.UnitMbps}, {Name: "udp_over_tcp", Value: ratio, Unit: report.UnitRatio}}}
	switch {
	case ratio < 0.9:
		f.Severity = report.SeverityWarning
		f.Action = "the host and the link carry more than UDP got: look at the UDP rounds' loss, socket buffers and the receiver's hot core"
	case ratio <= 1.1:
		f.Action = "UDP is on par with TCP, as the runbook expects once tuned"
	default:
		f.Action = "UDP got more than TCP: the TCP reference is held back by something of its own (window, congestion control, the sender's core), so it bounds nothing here"
	}
	return []report.Finding{f}
}
