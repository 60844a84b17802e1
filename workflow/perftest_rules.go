package workflow

import (
	"fmt"
	"strconv"

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
	v, _ := r.Param("mtu")
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
		Evidence: []report.Evidence{{Name: "netdev_mtu", Value: float64(near), Unit: "B"},
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
