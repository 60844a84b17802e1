package capture

import (
	"strings"
	"testing"
)

func TestOutcomeOf(t *testing.T) {
	ok := Side{Role: RoleClient}
	tests := []struct {
		name    string
		results []sideResult
		want    Outcome
	}{
		{"all ok", []sideResult{{ok, true}, {Side{Role: RoleServer, Exit: -1, Signal: "SIGTERM", Stopped: true}, true}}, OutcomeOK},
		{"client exit 1", []sideResult{{ok, true}, {Side{Exit: 1}, true}}, OutcomeFailed},
		{"timeout wins over failure", []sideResult{{Side{Exit: 1}, true}, {Side{Exit: -1, TimedOut: true}, true}}, OutcomeTimeout},
		{"walked file with EINVAL is data", []sideResult{{ok, true}, {Side{Role: RoleFile, Exit: 1, Errno: "EINVAL"}, false}}, OutcomeOK},
		{"named file missing", []sideResult{{Side{Role: RoleFile, Exit: 1, Errno: "ENOENT"}, true}}, OutcomeFailed},
		{"no sides", nil, OutcomeOK},
	}
	for _, tt := range tests {
		if got := outcomeOf(tt.results); got != tt.want {
			t.Errorf("%s: outcomeOf = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestJudge(t *testing.T) {
	tests := []struct {
		expect               Expect
		outcome              Outcome
		wantProblem, wantRem bool
	}{
		{ExpectOK, OutcomeOK, false, false},
		{ExpectOK, OutcomeFailed, true, false},
		{ExpectOK, OutcomeTimeout, true, false},
		{ExpectFail, OutcomeFailed, false, false},
		{ExpectFail, OutcomeTimeout, false, false},
		{ExpectFail, OutcomeOK, false, true},
		{ExpectTimeoutOK, OutcomeTimeout, false, false},
		{ExpectTimeoutOK, OutcomeOK, false, false},
		{ExpectTimeoutOK, OutcomeFailed, false, false},
	}
	for _, tt := range tests {
		problem, remark := judge(tt.expect, tt.outcome)
		if (problem != "") != tt.wantProblem || (remark != "") != tt.wantRem {
			t.Errorf("judge(%s, %s) = %q, %q", tt.expect, tt.outcome, problem, remark)
		}
	}
}

func TestSummaryTable(t *testing.T) {
	s := Summary{Rows: []Row{
		{ID: "setup/rxe", Expect: ExpectOK, Outcome: OutcomeOK, Sides: describeSides([]Side{{Role: "modprobe-rxe"}}), Seconds: 0.5},
		{ID: "perftest/send-bw-noserver", Expect: ExpectFail, Outcome: OutcomeFailed, Sides: describeSides([]Side{{Role: RoleClient, Exit: 1}}), Seconds: 0.1},
		{ID: "perftest/send-bw", Expect: ExpectOK, Outcome: OutcomeTimeout, Problem: "expected ok, got timeout",
			Sides: describeSides([]Side{{Role: RoleServer, Exit: 0}, {Role: RoleClient, Exit: -1, TimedOut: true}})},
		{ID: "sysfs/rxe0-port1", Expect: ExpectOK, Outcome: OutcomeOK,
			Sides: describeSides([]Side{{Role: RoleFile}, {Role: RoleFile, Exit: 1, Error: "invalid argument"}, {Role: RoleFile}})},
	}}
	if !s.Failed() {
		t.Error("Failed() = false with a failing expected-ok case")
	}
	var b strings.Builder
	if err := s.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"CASE", "modprobe-rxe=0", "client=1", "server=0 client=timeout", "FAIL: expected ok, got timeout",
		"file=3(1 err)", "4 rows, 1 failing the run",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	s.Rows = s.Rows[:2]
	if s.Failed() {
		t.Error("Failed() = true with only an expected failure")
	}
}

func TestFormatToolVersion(t *testing.T) {
	tests := []struct{ pkg, text, want string }{
		{"4.5+0.17-1", "Version: 6.06\n", "4.5+0.17-1 (Version: 6.06)"},
		{"", "Netperf version 2.7.0\n", "unknown (Netperf version 2.7.0)"},
		{"1:6.1-1", "ethtool version 6.1\n\n", "1:6.1-1 (ethtool version 6.1)"},
		{"2.7.0-0.1", "line one\n  line  two \n", "2.7.0-0.1 (line one; line two)"},
		{"44.0-2", "", "44.0-2"},
	}
	for _, tt := range tests {
		if got := formatToolVersion(tt.pkg, tt.text); got != tt.want {
			t.Errorf("formatToolVersion(%q, %q) = %q, want %q", tt.pkg, tt.text, got, tt.want)
		}
	}
}
