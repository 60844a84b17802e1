package report

import (
	"fmt"
	"strings"
)

// RuleRunFailed reports repeats of a step that ended in a completion
// error (perftest ran and printed a failure).
const RuleRunFailed = "perftest_run_failed"

// RunsFailed is the finding on a step of runs repeats of which failures
// failed: critical when every run failed (the step has no result),
// a warning when some did (its median is of the others), none (false)
// when none did. label names the step ("8 QPs", "MTU 9000", "ib_send_lat").
//
// Similar to: grep -c 'Failed status' run-*.log
func RunsFailed(label string, runs int, failures []string) (Finding, bool) {
	ev := []Evidence{{Name: "failed_runs", Value: float64(len(failures)), Unit: "count"}}
	switch {
	case len(failures) == 0:
		return Finding{}, false
	case len(failures) >= runs:
		return Finding{Rule: RuleRunFailed, Severity: SeverityCritical, Evidence: ev,
			Summary: fmt.Sprintf("%s: all %d runs failed, the step has no result: %s", label, runs, strings.Join(failures, "; ")),
			Action:  "read the rdma_retransmissions findings beside this one (rdma_rxe fails sends it retransmitted on timeouts: raise -qp-timeout) and both sides' outputs in failed/"}, true
	}
	return Finding{Rule: RuleRunFailed, Severity: SeverityWarning, Evidence: ev,
		Summary: fmt.Sprintf("%s: %d of %d runs failed, the median is of the others: %s", label, len(failures), runs, strings.Join(failures, "; ")),
		Action:  "read the raw outputs in the round's archive; rerun with more -count"}, true
}
