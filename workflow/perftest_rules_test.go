package workflow_test

import (
	"testing"

	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/workflow"
)

func TestCheckMTUTookEffect(t *testing.T) {
	for _, c := range []struct {
		mtu, near, far, seen int
		sev                  report.Severity
		summary              string
	}{
		{1500, 1500, 1500, 1024, report.SeverityInfo, "MTU 1500 took effect: perftest ran at RoCE path MTU 1024 B, as rdma_rxe derives from netdev MTU 1500"},
		{9000, 9000, 9000, 1024, report.SeverityCritical, "MTU 9000 did not take effect: perftest ran at RoCE path MTU 1024 B, netdev MTU 9000 gives 4096 B"},
		// The far end stayed at 1500: the smaller end wins.
		{9000, 9000, 1500, 1024, report.SeverityInfo, "MTU 9000 took effect: perftest ran at RoCE path MTU 1024 B, as rdma_rxe derives from netdev MTU 9000 here and 1500 at the far end"},
		{9000, 9000, 9000, 0, report.SeverityWarning, "MTU 9000: perftest printed no MTU, so whether RoCE path MTU 4096 B was used is unknown"},
	} {
		f := workflow.CheckMTUTookEffect(c.mtu, c.near, c.far, c.seen)
		if f.Rule != workflow.RuleMTUTookEffect || f.Severity != c.sev || f.Summary != c.summary {
			t.Errorf("%+v: %s %s", c, f.Severity, f.Summary)
		}
	}
}
