package report

import (
	"strings"
	"testing"

	"github.com/rocekit/rocekit/rxe"
)

// delta builds a port counter delta from the counters that grew.
func delta(t *testing.T, grew map[string]uint64) rxe.PortCountersDelta {
	t.Helper()
	before, after := rxe.PortCounters{Device: "rxe0", Port: 1, HW: map[string]uint64{}}, rxe.PortCounters{Device: "rxe0", Port: 1, HW: map[string]uint64{}}
	for name, d := range grew {
		before.HW[name], after.HW[name] = 1000, 1000+d
	}
	d, err := after.Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestCheckRetransmissions on the growth `lab rxe-errors` measured between
// two trixie guests (kernel 6.12, ib_send_bw -n 1000, 2026-11-30): -q 8
// -u 14 failed with timeout-driven retransmissions; -q 8 -u 18 passed with
// NAK-driven ones only after the first run; -q 1 -u 18 did not
// retransmit.
func TestCheckRetransmissions(t *testing.T) {
	runs := []RDMARun{
		{Label: "8 QPs run 1", Failed: true, Failure: "Failed status 9",
			Requester: delta(t, map[string]uint64{"completer_retry_err": 42, "rcvd_seq_err": 9, "ack_deferred": 1750, "sent_pkts": 4446}),
			Responder: delta(t, map[string]uint64{"duplicate_request": 1736, "out_of_seq_request": 9, "rcvd_pkts": 3586})},
		{Label: "8 QPs -u 18 run 2", QPTimeout: 18,
			Requester: delta(t, map[string]uint64{"completer_retry_err": 94, "rcvd_seq_err": 89, "sent_pkts": 517765}),
			Responder: delta(t, map[string]uint64{"out_of_seq_request": 93, "rcvd_pkts": 517646})},
		{Label: "1 QP -u 18", QPTimeout: 18,
			Requester: delta(t, map[string]uint64{"ack_deferred": 1000, "sent_pkts": 64000}),
			Responder: delta(t, map[string]uint64{"rcvd_pkts": 64000})},
	}
	fs := CheckRetransmissions(runs)
	if len(fs) != 2 {
		t.Fatalf("%d findings: %v", len(fs), fs)
	}
	want0 := "8 QPs run 1: retransmissions: 42 (9 after NAKs, 33 on timeouts), duplicate requests: 1736, out-of-sequence requests: 9 — the responder answered later than the QP timeout (-u 14: 67 ms); the run failed: Failed status 9"
	if fs[0].Summary != want0 || fs[0].Severity != SeverityCritical || !strings.Contains(fs[0].Action, "-u 20 is 4.3 s") {
		t.Errorf("finding 0:\n%s\n%s %s\nwant\n%s", fs[0].Summary, fs[0].Severity, fs[0].Action, want0)
	}
	// 94 of 517765 packets retransmitted, no duplicates: loss, and noise.
	if !strings.Contains(fs[1].Summary, "(89 after NAKs, 5 on timeouts)") || !strings.Contains(fs[1].Summary, "5 losses no NAK could report waited out the QP timeout (1074 ms each)") || fs[1].Severity != SeverityInfo {
		t.Errorf("finding 1: %s %s", fs[1].Severity, fs[1].Summary)
	}
	// Only NAK-driven: loss or reordering, not the timeout.
	nak := CheckRetransmissions([]RDMARun{{Label: "x", Requester: delta(t, map[string]uint64{"completer_retry_err": 7, "rcvd_seq_err": 7}),
		Responder: delta(t, map[string]uint64{"out_of_seq_request": 7})}})
	if len(nak) != 1 || !strings.Contains(nak[0].Summary, "lost or reordered between the hosts") || nak[0].Severity != SeverityWarning {
		t.Errorf("NAK-only: %v", nak)
	}
}
