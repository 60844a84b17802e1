package capture

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Outcome is what happened to a case as a whole.
type Outcome string

const (
	// OutcomeOK means every required side succeeded.
	OutcomeOK Outcome = "ok"
	// OutcomeFailed means a required side exited non-zero, was killed or did not start.
	OutcomeFailed Outcome = "failed"
	// OutcomeTimeout means a required side was killed at its deadline.
	OutcomeTimeout Outcome = "timeout"
	// OutcomeSkipped means the case did not run because a setup phase it needs failed.
	OutcomeSkipped Outcome = "skipped"
)

// Row is one line of the summary: a case or a setup phase.
type Row struct {
	ID      string
	Expect  Expect
	Outcome Outcome
	// Sides is a short status of every side, e.g. "server=0 client=0" or "file=52 (3 err)".
	Sides   string
	Seconds float64
	// Problem says why the row makes the run fail; "" when it does not.
	Problem string
	// Remark notes a surprise that does not fail the run, such as an expected failure that
	// succeeded.
	Remark string
}

// Summary is the result of a run.
type Summary struct {
	Rows []Row
}

// Failed reports whether a setup phase failed or a case that is expected to succeed did not.
func (s *Summary) Failed() bool {
	for _, r := range s.Rows {
		if r.Problem != "" {
			return true
		}
	}
	return false
}

// WriteTable prints the summary as an aligned table with one line per row.
func (s *Summary) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tEXPECT\tOUTCOME\tSIDES\tSECONDS\tNOTE")
	for _, r := range s.Rows {
		note := r.Remark
		if r.Problem != "" {
			note = "FAIL: " + r.Problem
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%s\n", r.ID, r.Expect, r.Outcome, r.Sides, r.Seconds, note)
	}
	failed := 0
	for _, r := range s.Rows {
		if r.Problem != "" {
			failed++
		}
	}
	fmt.Fprintf(tw, "%d rows, %d failing the run\n", len(s.Rows), failed)
	return tw.Flush()
}

// sideResult is a recorded side and whether the case needs it to succeed. Files found by a
// walk or a glob may fail (empty GID slots); everything else must succeed.
type sideResult struct {
	Side
	required bool
}

// outcomeOf classifies a case by its required sides.
func outcomeOf(results []sideResult) Outcome {
	outcome := OutcomeOK
	for _, r := range results {
		switch {
		case !r.required:
		case r.TimedOut:
			return OutcomeTimeout
		case !r.OK():
			outcome = OutcomeFailed
		}
	}
	return outcome
}

// judge compares an outcome with the expectation: problem fails the run, remark does not.
func judge(expect Expect, outcome Outcome) (problem, remark string) {
	switch expect {
	case ExpectOK:
		if outcome != OutcomeOK {
			return "expected ok, got " + string(outcome), ""
		}
	case ExpectFail:
		if outcome == OutcomeOK {
			return "", "expected a failure, got ok"
		}
	}
	return "", ""
}

// describeSides summarises sides for the SIDES column: "role=status" per process, and one
// "file=N" entry for all copied files.
func describeSides(sides []Side) string {
	var parts []string
	files, fileErrors := 0, 0
	for _, s := range sides {
		if s.Role == RoleFile {
			files++
			if !s.OK() {
				fileErrors++
			}
			continue
		}
		parts = append(parts, s.Role+"="+sideStatus(s))
	}
	if files > 0 {
		f := "file=" + strconv.Itoa(files)
		if fileErrors > 0 {
			f += fmt.Sprintf("(%d err)", fileErrors)
		}
		parts = append(parts, f)
	}
	return strings.Join(parts, " ")
}

// sideStatus is "0", "17", "timeout", "stopped", "SIGPIPE"-like signal names or "error".
func sideStatus(s Side) string {
	switch {
	case s.TimedOut:
		return "timeout"
	case s.Stopped:
		return "stopped"
	case s.Signal != "":
		return s.Signal
	case s.Exit < 0:
		return "error"
	}
	return strconv.Itoa(s.Exit)
}
