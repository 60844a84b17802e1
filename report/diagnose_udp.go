package report

import (
	"strings"

	"github.com/rocekit/rocekit/nic"
)

// CheckUDPLoss reports a UDP_STREAM round whose loss_ratio (median) is
// above MaxLossRatio, with the counters that explain it: the NIC's drop,
// discard, missed and out-of-buffer counters that grew (nicDelta, may be
// nil) and the host's UDP errors (udp, a delta from UDPCounters.Sub, may
// be nil). The action follows the counters: socket receive buffer errors
// ask for a larger -S and net.core.rmem_max, NIC drops for larger rings
// and spread IRQs; loss no counter explains is said to be lost outside
// the measured hosts only when both kinds of counters were read, else
// unattributed.
//
// Similar to: netperf -t UDP_STREAM ...; ethtool -S eth0 | grep drop; netstat -su
func CheckUDPLoss(r Round, nicDelta *nic.StatsDelta, udp *nic.UDPCounters, th Thresholds) []Finding {
	th = th.WithDefaults()
	lm, ok := r.Metric(MetricLossRatio)
	if !ok {
		return nil
	}
	loss := median(lm)
	if !(loss > th.MaxLossRatio) {
		return nil
	}
	evs := []Evidence{ev(MetricLossRatio, loss, UnitRatio)}
	summary := sprintf("UDP loss %.2f%%", 100*loss)
	sm, ok1 := r.Metric(MetricSent)
	rm, ok2 := r.Metric(MetricReceived)
	if ok1 && ok2 {
		evs = append(evs, ev(MetricSent, median(sm), UnitMessages), ev(MetricReceived, median(rm), UnitMessages))
		summary += sprintf(": netserver received %.0f of %.0f messages (medians)", median(rm), median(sm))
	}
	var actions []string
	if nicDelta != nil {
		var nicDrops uint64
		for _, c := range nicDelta.Losses() {
			evs = append(evs, ev(c.Source+"."+c.Name, float64(c.Delta), "count"))
			nicDrops += c.Delta
		}
		if nicDrops > 0 {
			actions = append(actions, "the NIC dropped packets: raise the rings (ethtool -G DEV rx MAX), spread the queue IRQs over NUMA-local cores and check for a hot softirq core")
		}
	}
	if udp != nil {
		l := udp.Loss()
		for _, c := range []struct {
			name string
			v    uint64
		}{{"udp.rcvbuf_errors", l.ReceiveBuffer}, {"udp.sndbuf_errors", l.SendBuffer}, {"udp.mem_errors", l.Memory},
			{"udp.in_csum_errors", l.Checksum}, {"udp.no_ports", l.NoPort}, {"udp.other_in_errors", l.OtherIn}} {
			if c.v > 0 {
				evs = append(evs, ev(c.name, float64(c.v), "count"))
			}
		}
		if l.ReceiveBuffer > 0 {
			actions = append(actions, rcvbufAction(r))
		}
		if l.Memory > 0 {
			actions = append(actions, "UDP hit its memory limit: raise net.ipv4.udp_mem")
		}
		if lost := lostMessages(r); l.NoPort > 0 && lost > 0 {
			actions = append(actions, sprintf("%d datagrams reached the receiver after netserver had closed its socket (NoPorts) against %d lost: "+
				"that part of the loss is netperf's sender running past the end of the test, not a drop; longer runs (-l) make it negligible", l.NoPort, lost))
		}
	}
	action := strings.Join(actions, "; ")
	switch {
	case action != "":
	case nicDelta == nil && udp == nil:
		// Nothing was measured, so nothing can be ruled out.
		action = "the loss is unattributed: no drop counters were read (neither the receiver's NIC counters nor its UDP counters): " +
			"read ethtool -S and /proc/net/snmp on netserver's host before and after the run to find where it was dropped"
	case nicDelta == nil || udp == nil:
		unread := map[bool]string{true: "the NIC's drop counters were not read", false: "the UDP counters were not read"}[nicDelta == nil]
		action = "no counter that was read explains the loss, and " + unread + ": the loss is unattributed; read them on netserver's host before and after the run"
	default:
		action = "no drop counter explains the loss: check the sender's send errors, the switch and the peer's counters (netperf's messages were lost outside the measured hosts)"
	}
	return one(Finding{Rule: RuleUDPLoss, Severity: SeverityWarning,
		Summary:  summary,
		Evidence: evs, Action: action})
}

// rcvbufAction says what to do about receive buffer overflows: when the
// receive buffer was clamped, a larger -S cannot take effect and the
// sysctl is the fix; otherwise both.
func rcvbufAction(r Round) string {
	for _, c := range clamps(r) {
		if c.side == "remote recv" {
			return sprintf("the receiving socket's buffer overflowed, and it was clamped (%s asked %s, it read back %s where a granted one reads %s): raise %s to at least %d on %s; a larger -S cannot take effect before that",
				c.flag(), byteSize(c.asked), byteSize(c.got), byteSize(2*c.asked), c.sysctl, c.asked, c.host)
		}
	}
	return "the receiving socket's buffer overflowed: raise netperf's -S (and net.core.rmem_max on netserver's host if -S exceeds it)"
}

// lostMessages is the sum over the runs of sent - received.
func lostMessages(r Round) uint64 {
	sm, ok1 := r.Metric(MetricSent)
	rm, ok2 := r.Metric(MetricReceived)
	if !ok1 || !ok2 || len(sm.Values) != len(rm.Values) {
		return 0
	}
	var lost float64
	for i := range sm.Values {
		lost += max(0, sm.Values[i]-rm.Values[i])
	}
	return uint64(lost)
}

// MetricSocketDrops is the datagrams netserver's own UDP socket dropped
// in a run (/proc/PID/net/udp "drops", read in its namespace), stored per
// run beside udp_rcvbuf_errors.
const MetricSocketDrops = "netserver_socket_drops"

// MetricSocketSpanRcvbufErrors is the receiver's Udp RcvbufErrors from a
// run's start to the last reading of netserver's socket, read with it:
// the span MetricSocketDrops covers (netserver stops reading at the
// test's end, and what arrives until its socket closes is dropped after
// the last reading, counted in udp_rcvbuf_errors only).
const MetricSocketSpanRcvbufErrors = "netserver_socket_rcvbuf_errors"

// RuleSocketDropsDisagree is the finding of a UDP round whose netserver
// socket drops do not agree with the receiver's Udp RcvbufErrors.
const RuleSocketDropsDisagree = "socket_drops_disagree"

// SocketDropsAgree reports whether a socket's drops and the namespace's
// Udp RcvbufErrors over one run tell the same story: equal within a
// tenth (the socket is read every few hundred milliseconds, so its last
// drops before it closed can be missed; MemErrors also count on the
// socket), and both zero or both not.
func SocketDropsAgree(socketDrops, rcvbufErrors uint64) bool {
	if socketDrops == 0 || rcvbufErrors == 0 {
		return socketDrops == rcvbufErrors
	}
	hi, lo := max(socketDrops, rcvbufErrors), min(socketDrops, rcvbufErrors)
	return hi-lo <= hi/10
}

// CheckSocketDrops holds netserver's socket drops (MetricSocketDrops)
// against the receiver's RcvbufErrors over the same span
// (MetricSocketSpanRcvbufErrors, else the whole run's udp_rcvbuf_errors),
// run by run, and reports the
// runs where they disagree (SocketDropsAgree): drops on another socket of
// the namespace (RcvbufErrors above the socket's), or drops the UDP
// counters did not see (a socket filter, MemErrors), so that the loss is
// not blamed on the receive buffer alone. A round without both metrics,
// or with a run count that differs, gives nothing.
//
// Similar to: ss -u -a -m (skmem d) against netstat -su (receive buffer errors)
func CheckSocketDrops(r Round) []Finding {
	sm, ok1 := r.Metric(MetricSocketDrops)
	rm, ok2 := r.Metric(MetricSocketSpanRcvbufErrors)
	if !ok2 {
		rm, ok2 = r.Metric("udp_rcvbuf_errors")
	}
	if !ok1 || !ok2 || len(sm.Values) != len(rm.Values) {
		return nil
	}
	var bad []string
	var evs []Evidence
	for i := range sm.Values {
		s, u := uint64(max(0, sm.Values[i])), uint64(max(0, rm.Values[i]))
		if SocketDropsAgree(s, u) {
			continue
		}
		bad = append(bad, sprintf("run %d: socket %d, RcvbufErrors %d", i+1, s, u))
		evs = append(evs, ev(sprintf("run %d %s", i+1, MetricSocketDrops), float64(s), "count"), ev(sprintf("run %d %s", i+1, rm.Name), float64(u), "count"))
	}
	if len(bad) == 0 {
		return nil
	}
	return one(Finding{Rule: RuleSocketDropsDisagree, Severity: SeverityWarning,
		Summary:  "netserver's socket drops do not agree with the receiver's Udp RcvbufErrors: " + strings.Join(bad, "; "),
		Evidence: evs,
		Action: "more RcvbufErrors than socket drops: another UDP socket in netserver's namespace overflowed (stop what else receives there); " +
			"more socket drops: the socket dropped for another reason than its buffer (MemErrors: net.ipv4.udp_mem; a socket filter)"})
}
