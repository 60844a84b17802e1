package report

import (
	"math"
	"slices"
	"strconv"

	"github.com/rocekit/rocekit/nic"
)

// CheckMTU checks that bandwidth follows MTU between two rounds of the same
// test at a low and a high netdev MTU (1500 → 9000). It judges the RoCE
// path MTUs the two netdev MTUs map to (nic.RXEPathMTU for rdma_rxe,
// nic.RoCEPathMTU for hardware RoCE), not the netdev MTUs: 4200 and 9000
// both give 4096, 1500 and 2000 both 1024, and no gain is expected then.
// When the mapped path MTUs differ but the one perftest used (its "Mtu"
// header, the "mtu" parameter of a FromPerftest round, else the
// fingerprint's roce_path_mtu) is the same in both rounds, the MTU change
// never reached the RDMA path: the rxe link must be re-created or the
// netdev MTU set on both ends (critical). Otherwise a gain below
// MinMTUGain is a warning.
func CheckMTU(low, high Round, metric string, th Thresholds) []Finding {
	th = th.WithDefaults()
	var out []Finding
	lowNet, highNet := netdevMTU(low), netdevMTU(high)
	lowPath, highPath := pathMTU(low), pathMTU(high)
	if lowNet > 0 && highNet > 0 && expectedPathMTU(low, lowNet) == expectedPathMTU(high, highNet) {
		return []Finding{{Rule: RuleMTUSamePath, Severity: SeverityInfo,
			Summary: sprintf("netdev MTU %d and %d give the same RoCE path MTU (%d B): no bandwidth gain is expected between them", lowNet, highNet, expectedPathMTU(high, highNet)),
			Evidence: []Evidence{ev("netdev_mtu_low", float64(lowNet), "B"), ev("netdev_mtu_high", float64(highNet), "B"),
				ev("expected_path_mtu", float64(expectedPathMTU(high, highNet)), "B")}}}
	}
	if lowPath > 0 && lowPath == highPath && lowNet != highNet {
		out = append(out, Finding{Rule: RulePathMTUUnchanged, Severity: SeverityCritical,
			Summary: sprintf("RoCE path MTU stayed %d B although the netdev MTU went %d → %d", lowPath, lowNet, highNet),
			Evidence: []Evidence{ev("netdev_mtu_low", float64(lowNet), "B"), ev("netdev_mtu_high", float64(highNet), "B"),
				ev("roce_path_mtu_low", float64(lowPath), "B"), ev("roce_path_mtu_high", float64(highPath), "B")},
			Action: "set the MTU on both ends' netdevs, then delete and re-add the rxe link (rdma link delete rxe0; rdma link add rxe0 type rxe netdev DEV) and check perftest's Mtu header reads 4096"})
	}
	lm, ok1 := low.Metric(metric)
	hm, ok2 := high.Metric(metric)
	if !ok1 || !ok2 {
		return out
	}
	l, h := median(lm), median(hm)
	if l <= 0 || math.IsNaN(h) {
		return out
	}
	if gain := h / l; gain < th.MinMTUGain {
		out = append(out, Finding{Rule: RuleMTUNotFollowed, Severity: SeverityWarning,
			Summary: sprintf("%s went %.4g → %.4g %s (×%.2f) from %s to %s: bandwidth does not follow MTU", metric, l, h, lm.Unit, gain, mtuText(lowNet, lowPath), mtuText(highNet, highPath)),
			Evidence: []Evidence{ev("median_low_mtu", l, lm.Unit), ev("median_high_mtu", h, hm.Unit), ev("gain", gain, "ratio"),
				ev("roce_path_mtu_low", float64(lowPath), "B"), ev("roce_path_mtu_high", float64(highPath), "B")},
			Action: "the bottleneck is not per-packet: look for a hot softirq core (CPU-bound rxe), a slower link or a peer still at the low MTU"})
	}
	return out
}

// expectedPathMTU is the RoCE path MTU a netdev MTU gives on the round's
// RDMA device: rdma_rxe's (MTU−80) when the fingerprint has an rxe link
// or names no hardware device, hardware RoCE's (MTU−96) otherwise.
func expectedPathMTU(r Round, netdevMTU int) int {
	if r.Fingerprint != nil && len(r.Fingerprint.RXE) == 0 {
		for _, n := range r.Fingerprint.NICs {
			if n.RDMADevice != "" {
				return nic.RoCEPathMTU(netdevMTU)
			}
		}
	}
	return nic.RXEPathMTU(netdevMTU)
}

func netdevMTU(r Round) int {
	if r.Fingerprint != nil && len(r.Fingerprint.NICs) > 0 {
		return r.Fingerprint.NICs[0].MTU
	}
	if v, ok := r.Param(ParamNetdevMTU); ok {
		n, _ := strconv.Atoi(v)
		return n
	}
	return 0
}

func pathMTU(r Round) int {
	if v, ok := r.Param(ParamMTU); ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	if r.Fingerprint != nil && len(r.Fingerprint.NICs) > 0 {
		return r.Fingerprint.NICs[0].RoCEPathMTU
	}
	return 0
}

// CheckQPScaling finds the knee of bandwidth against QP count: rounds of
// the same test whose "qps" parameter differs, compared on metric. The
// knee is the first QP count whose bandwidth gains less than MinQPGain over
// the previous one; it is reported as info (more QPs past it buy nothing).
// No finding when bandwidth scales over the whole range.
func CheckQPScaling(rounds []Round, metric string, th Thresholds) []Finding {
	th = th.WithDefaults()
	type pt struct {
		qps int
		bw  float64
		u   string
	}
	var pts []pt
	for _, r := range rounds {
		v, ok := r.Param(ParamQPs)
		m, ok2 := r.Metric(metric)
		n, err := strconv.Atoi(v)
		if !ok || !ok2 || err != nil {
			continue
		}
		pts = append(pts, pt{n, median(m), m.Unit})
	}
	slices.SortFunc(pts, func(a, b pt) int { return a.qps - b.qps })
	for i := 1; i < len(pts); i++ {
		prev, cur := pts[i-1], pts[i]
		if prev.bw <= 0 || cur.qps == prev.qps {
			continue
		}
		if gain := cur.bw / prev.bw; gain < th.MinQPGain {
			return one(Finding{Rule: RuleQPKnee, Severity: SeverityInfo,
				Summary: sprintf("%s stops scaling at %d QPs: %.4g → %.4g %s from %d to %d QPs (×%.2f)", metric, prev.qps, prev.bw, cur.bw, cur.u, prev.qps, cur.qps, gain),
				Evidence: []Evidence{ev("knee_qps", float64(prev.qps), "QPs"), ev("bw_at_knee", prev.bw, cur.u),
					ev("next_qps", float64(cur.qps), "QPs"), ev("bw_next", cur.bw, cur.u), ev("gain", gain, "ratio")},
				Action: sprintf("run with -q %d; past it look for the saturated resource (a hot softirq core, the link, the peer's CPU)", prev.qps)})
		}
	}
	return nil
}

// mtuText names an MTU for a summary: the netdev's when known, else the
// RoCE path MTU.
func mtuText(netdev, path int) string {
	if netdev > 0 {
		return sprintf("MTU %d", netdev)
	}
	return sprintf("path MTU %d", path)
}
