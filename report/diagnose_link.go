package report

import (
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
)

// CheckLinkUtilisation reports throughput far below the link speed: the
// median of metric (Mbit/s or Gbit/s) under MinLinkShare of
// link.SpeedMbps. An unknown speed (virtio; veth reports 10000 on recent kernels) skips the rule.
//
// Similar to: "UDP reaches only 3–6 of 25 Gbit/s"
func CheckLinkUtilisation(r Round, metric string, link nic.LinkSettings, th Thresholds) []Finding {
	th = th.WithDefaults()
	m, ok := r.Metric(metric)
	if !ok || link.SpeedMbps <= 0 {
		return nil
	}
	var mbps float64
	switch m.Unit {
	case UnitMbps:
		mbps = median(m)
	case UnitGbps:
		mbps = 1000 * median(m)
	default:
		return nil
	}
	share := mbps / float64(link.SpeedMbps)
	if !(share < th.MinLinkShare) {
		return nil
	}
	return one(Finding{Rule: RuleBelowLinkSpeed, Severity: SeverityWarning,
		Summary: sprintf("%s is %.4g Mbit/s, %.0f%% of the %d Mbit/s link", metric, mbps, 100*share, link.SpeedMbps),
		Evidence: []Evidence{ev(MetricThroughput, mbps, UnitMbps), ev("link_speed", float64(link.SpeedMbps), UnitMbps),
			ev("share", share, UnitRatio)},
		Action: "tune in rounds: MTU 9000 on both ends, then IRQs spread over NUMA-local cores and governor performance, then more streams/QPs; check the diagnosis for a hot softirq core and drops"})
}

// CheckGID reports a GID that is not RoCE v2 with an IPv4-mapped address,
// the entry soft-RoCE runs over routed IPv4 need (perftest -x IDX).
//
// Similar to: show_gids rxe0, reading the VER and IPv4 columns
func CheckGID(e rxe.GIDEntry) []Finding {
	_, v4 := e.IPv4()
	if e.Type == rxe.GIDTypeRoCEv2 && v4 {
		return nil
	}
	isV4 := 0.0
	if v4 {
		isV4 = 1
	}
	return one(Finding{Rule: RuleGIDNotRoCEv2IPv4, Severity: SeverityCritical,
		Summary: sprintf("%s port %d GID index %d is %s %s, not RoCE v2 IPv4", e.Device, e.Port, e.Index, e.Type, e.GID),
		Evidence: []Evidence{ev("gid_index", float64(e.Index), "index"), ev("roce_v2", boolNum(e.Type == rxe.GIDTypeRoCEv2), "bool"),
			ev("ipv4_mapped", isV4, "bool")},
		Action: "pick the RoCE v2 IPv4 index (rxe.SelectGID) on both ends and pass it with -x; give the netdev an IPv4 address if there is none"})
}

// CheckLinkSpeed reports a link running below the fastest speed the card
// supports (a 25G card at 10G: cable, autonegotiation or switch port).
// nic.LinkSettings does not hold the supported modes, so the caller gives
// supportedMbps (from ethtool's "Supported link modes"); 0 skips the rule.
//
// Similar to: ethtool eth0 | grep -E 'Speed|Supported link modes'
func CheckLinkSpeed(link nic.LinkSettings, supportedMbps int) []Finding {
	if supportedMbps <= 0 || link.SpeedMbps <= 0 || link.SpeedMbps >= supportedMbps {
		return nil
	}
	return one(Finding{Rule: RuleLinkSpeedDegraded, Severity: SeverityWarning,
		Summary:  sprintf("link at %d Mbit/s, the card supports %d Mbit/s", link.SpeedMbps, supportedMbps),
		Evidence: []Evidence{ev("speed", float64(link.SpeedMbps), UnitMbps), ev("supported", float64(supportedMbps), UnitMbps)},
		Action:   "check the cable/transceiver and the switch port, and autonegotiation (ethtool -s DEV autoneg on); rerun once the link is at full speed"})
}

func boolNum(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
