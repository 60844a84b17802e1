package main

import (
	"testing"

	"github.com/rocekit/rocekit/internal/lab"
)

func TestRunPatternKeepsSubtestLevels(t *testing.T) {
	for _, c := range []struct{ run, want string }{
		{"", "^(TestLabA|TestLabB)$"},
		{"TestLab", "^(TestLabA|TestLabB)$"},
		{"TestLabA/bookworm", "^(TestLabA|TestLabB)$/bookworm"},
	} {
		if got := runPattern([]string{"TestLabA", "TestLabB"}, c.run); got != c.want {
			t.Errorf("runPattern(%q) = %q, want %q", c.run, got, c.want)
		}
	}
}

func TestTestVerdict(t *testing.T) {
	for _, c := range []struct {
		st   lab.StepResult
		want string
	}{
		{lab.StepResult{Finished: true, Stdout: []byte("=== RUN   TestGuestsX\n--- PASS: TestGuestsX (1.00s)\nPASS\n")}, "PASS"},
		{lab.StepResult{Finished: true, Exit: lab.ExitStatus{Code: 1}, Stdout: []byte("--- FAIL: TestLabX (1.00s)\n")}, "FAIL"},
		{lab.StepResult{Finished: true, Stdout: []byte("--- SKIP: TestLabX (0.00s)\n")}, "SKIP"},
		{lab.StepResult{Finished: true, Stdout: []byte("PASS\n")}, "NONE"},
		{lab.StepResult{Finished: false, Stdout: []byte("--- PASS: TestLabX (1.00s)\n")}, "UNFINISHED"},
	} {
		if got, _ := testVerdict(c.st); got != c.want {
			t.Errorf("verdict of %q = %s, want %s", c.st.Stdout, got, c.want)
		}
	}
}

func TestSplitList(t *testing.T) {
	got := splitList(" ./fleet, ,./rxe,")
	if len(got) != 2 || got[0] != "./fleet" || got[1] != "./rxe" {
		t.Errorf("splitList = %q", got)
	}
}
