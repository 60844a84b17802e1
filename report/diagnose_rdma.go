package report

import (
	"math"
	"strings"

	"github.com/rocekit/rocekit/rxe"
)

// RuleRDMARetransmit names the finding of CheckRetransmissions.
const RuleRDMARetransmit = "rdma_retransmissions"

// RDMARun is one perftest pair with both ends' RDMA port counter deltas.
type RDMARun struct {
	Label string // "8 QPs run 2"
	// Failed is set when perftest ended in a completion error; Failure
	// is its message.
	Failed  bool
	Failure string
	// QPTimeout is perftest's -u (0: its default, 14).
	QPTimeout int
	// Requester and Responder are the counters of the side that sends
	// (the client of ib_send_bw) and of the side that receives.
	Requester, Responder rxe.PortCountersDelta
}

// retransmit sums the counters of one meaning over rxe's and mlx5's
// names.
func retransmit(d rxe.PortCountersDelta, names ...string) uint64 {
	var n uint64
	for _, name := range names {
		if c, ok := d.Get(name); ok {
			n += c.Delta
		}
	}
	return n
}

// CheckRetransmissions reads what the RDMA transport did during each run:
// retransmissions at the requester (rxe completer_retry_err, mlx5
// local_ack_timeout_err), of which NAK-driven ones (rcvd_seq_err,
// packet_seq_err), duplicate requests at the responder (the requester
// retransmitted what had arrived: it gave up waiting for the ACK) and
// out-of-sequence requests (packets lost or reordered on the way). When
// a run retransmitted on timeouts, the responder answered later than the
// QP timeout (-u; 4.096 µs × 2^u, 67 ms at perftest's default 14), which
// an emulated or loaded host easily does; on rdma_rxe such
// retransmissions of multi-packet sends end runs in completion errors
// (status 9, 11 at the client, 2 at the server, seen on kernels 6.1 and
// 6.12). One finding per run that retransmitted, critical when it
// failed.
//
// Similar to: rdma statistic show link rxe0/1 before and after ib_send_bw
func CheckRetransmissions(runs []RDMARun) []Finding {
	var fs []Finding
	for _, r := range runs {
		retries := retransmit(r.Requester, "completer_retry_err", "local_ack_timeout_err", "req_cqe_error")
		naks := retransmit(r.Requester, "rcvd_seq_err", "packet_seq_err", "implied_nak_seq_err")
		exceeded := retransmit(r.Requester, "retry_exceeded_err", "req_transport_retries_exceeded")
		dups := retransmit(r.Responder, "duplicate_request")
		ooo := retransmit(r.Responder, "out_of_seq_request", "out_of_sequence")
		if retries == 0 && dups == 0 && ooo == 0 && exceeded == 0 {
			continue
		}
		u := r.QPTimeout
		if u == 0 {
			u = 14
		}
		ms := 4.096e-3 * math.Pow(2, float64(u))
		timeouts := uint64(0)
		if retries > naks {
			timeouts = retries - naks
		}
		f := Finding{Rule: RuleRDMARetransmit, Severity: SeverityWarning,
			Evidence: []Evidence{ev("retransmissions", float64(retries), "count"), ev("nak_seq_errors", float64(naks), "count"),
				ev("duplicate_requests", float64(dups), "count"), ev("out_of_sequence_requests", float64(ooo), "count"),
				ev("retry_exceeded", float64(exceeded), "count")}}
		var b strings.Builder
		b.WriteString(sprintf("%s: retransmissions: %d (%d after NAKs, %d on timeouts), duplicate requests: %d, out-of-sequence requests: %d", r.Label, retries, naks, timeouts, dups, ooo))
		sent := retransmit(r.Requester, "sent_pkts")
		switch {
		case dups > 0:
			// The requester resent what had arrived: the ACK came later
			// than the QP timeout.
			b.WriteString(sprintf(" — the responder answered later than the QP timeout (-u %d: %.0f ms)", u, ms))
			f.Action = sprintf("raise perftest's -u (each step doubles the timeout; -u %d is %.1f s) or reduce the load on both hosts", u+6, ms*64/1000)
		default:
			b.WriteString(" — packets were lost or reordered between the hosts")
			if timeouts > 0 {
				b.WriteString(sprintf("; %d losses no NAK could report waited out the QP timeout (%.0f ms each)", timeouts, ms))
			}
			f.Action = "check the link's drop counters (ethtool -S) on both hosts; a loaded emulated link reorders"
			if sent > 0 && float64(retries) < 0.01*float64(sent) {
				f.Severity = SeverityInfo // under 1% of the packets: noise, not a finding to act on
			}
		}
		if r.Failed {
			f.Severity = SeverityCritical
			b.WriteString("; the run failed: " + r.Failure)
		}
		f.Summary = b.String()
		fs = append(fs, f)
	}
	return fs
}
