package report

import "testing"

func TestRunsFailed(t *testing.T) {
	if _, ok := RunsFailed("MTU 1500", 3, nil); ok {
		t.Error("a finding without failures")
	}
	f, ok := RunsFailed("8 QPs", 2, []string{"run 1: completion error", "run 2: completion error"})
	if !ok || f.Severity != SeverityCritical || f.Rule != RuleRunFailed ||
		f.Summary != "8 QPs: all 2 runs failed, the step has no result: run 1: completion error; run 2: completion error" {
		t.Errorf("all failed: %+v", f)
	}
	f, ok = RunsFailed("MTU 9000", 3, []string{"run 2: completion error"})
	if !ok || f.Severity != SeverityWarning || f.Evidence[0].Value != 1 ||
		f.Summary != "MTU 9000: 1 of 3 runs failed, the median is of the others: run 2: completion error" {
		t.Errorf("some failed: %+v", f)
	}
}
