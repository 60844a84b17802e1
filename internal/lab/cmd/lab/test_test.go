package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		if got, counts := testVerdict(c.st); got != c.want {
			t.Errorf("verdict of %q = %s (%s), want %s", c.st.Stdout, got, counts, c.want)
		}
	}
}

// Real -test.v outputs: fleet's TestGuestsMatrixThreeOnSegment without
// images (go test marks the parent PASS when all its subtests skipped),
// and a test binary with a half-skipped test and a nested failure.
func TestTestVerdictCountsSubtests(t *testing.T) {
	allSkipped := readTestdata(t, "guests-all-skipped.txt")
	mixed := readTestdata(t, "mixed-nested.txt")
	mixedPass, _, _ := strings.Cut(string(mixed), "=== RUN   TestLabNested\n")
	for _, c := range []struct {
		name          string
		st            lab.StepResult
		verdict, want string
	}{
		{"all skipped", lab.StepResult{Finished: true, Stdout: allSkipped}, "SKIP", "0 pass, 0 fail, 2 skip"},
		{"one of two skipped", lab.StepResult{Finished: true, Stdout: []byte(mixedPass)}, "PASS", "1 pass, 0 fail, 1 skip"},
		{"nested failure", lab.StepResult{Finished: true, Exit: lab.ExitStatus{Code: 1}, Stdout: mixed}, "FAIL", "2 pass, 1 fail, 1 skip"},
	} {
		if verdict, counts := testVerdict(c.st); verdict != c.verdict || counts != c.want {
			t.Errorf("%s: %s (%s), want %s (%s)", c.name, verdict, counts, c.verdict, c.want)
		}
	}
	want := map[string]string{"TestGuestsMixed/bookworm": "SKIP", "TestGuestsMixed/trixie": "PASS", "TestLabNested/x/y/z": "FAIL", "TestLabNested/x/w": "PASS"}
	if got := testLeaves(mixed); !maps.Equal(got, want) {
		t.Errorf("testLeaves = %v, want %v", got, want)
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBinaryTimeoutBeforeDeadline(t *testing.T) {
	for _, c := range []struct{ deadline, want time.Duration }{
		{30 * time.Minute, 29 * time.Minute},
		{2 * time.Minute, 90 * time.Second},
		{40 * time.Second, 30 * time.Second},
	} {
		if got := binaryTimeout(c.deadline); got != c.want {
			t.Errorf("binaryTimeout(%v) = %v, want %v", c.deadline, got, c.want)
		}
	}
}

func TestSplitList(t *testing.T) {
	got := splitList(" ./fleet, ,./rxe,")
	if len(got) != 2 || got[0] != "./fleet" || got[1] != "./rxe" {
		t.Errorf("splitList = %q", got)
	}
}
