package perftest

import (
	"errors"
	"fmt"
	"strconv"
)

// WarningKind says what a Warning is about, so that callers can act on
// warnings without comparing their text.
type WarningKind int

// The warning kinds.
const (
	// WarnToolMessage: a note or warning the tool printed ("WARNING: ...",
	// "Disabling dynamic polling", "Max msg size in UD is MTU 1024",
	// "Device not recognized to implement inline feature").
	WarnToolMessage WarningKind = iota + 1
	// WarnPeakNotMeasured: BW peak was printed as 0.00 because perftest did
	// not measure it (-D, --run_infinitely, -N, -n > 20000, the server of a
	// send test), or the tool said so ("WARNING: BW peak won't be measured
	// in this run", 24.01+). BWRow.PeakMeasured is false in those rows.
	WarnPeakNotMeasured
	// WarnNonFinite: a row holds inf or nan; the values are kept as such
	// (and become null in JSON).
	WarnNonFinite
	// WarnClock: perftest doubts its CPU clock measurement ("Correlation
	// coefficient r^2: 0.83 < 0.9", "Conflicting CPU frequency values"),
	// so its times and rates may be off. Run with -F to skip the check.
	WarnClock
	// WarnCoarsePercentile: a latency percentile equals t_max because the
	// run had too few samples (at 1000 iterations the 99.9% percentile is
	// always the 3rd-largest sample, which perftest prints as t_max).
	WarnCoarsePercentile
	// WarnSamplesSkipped: a -U or -H dump of every latency sample was
	// skipped; the row that follows it is kept.
	WarnSamplesSkipped
	// WarnReportBoth: --report-both printed local and remote rows; they
	// are in Result.ReportBoth, not in Result.BW.
	WarnReportBoth
	// WarnNoTable: the output has a header but no result table, as the
	// server of ib_read_lat and ib_atomic_lat prints; parse the client.
	WarnNoTable
	// WarnUnitUnknown: the BW unit is unknown (--out_json writes none), so
	// the Gbps fields are NaN; see Result.AssumeBWUnit.
	WarnUnitUnknown
	// WarnUnknownLine: a line the parser does not know, kept so that a new
	// perftest version cannot hide a message.
	WarnUnknownLine
	// WarnBadRow: a line that reads as a result row (a number, then more
	// numbers) but does not fit the table: too few or too many fields, a
	// garbled number, no table header above it. Its line number is kept;
	// the parse error (or ErrTruncated for a row cut short at the end)
	// says the same.
	WarnBadRow
)

var warningKindNames = [...]string{
	WarnToolMessage:      "tool_message",
	WarnPeakNotMeasured:  "peak_not_measured",
	WarnNonFinite:        "non_finite",
	WarnClock:            "clock",
	WarnCoarsePercentile: "coarse_percentile",
	WarnSamplesSkipped:   "samples_skipped",
	WarnReportBoth:       "report_both",
	WarnNoTable:          "no_table",
	WarnUnitUnknown:      "unit_unknown",
	WarnUnknownLine:      "unknown_line",
	WarnBadRow:           "bad_row",
}

// String returns a short snake_case name ("peak_not_measured").
func (k WarningKind) String() string {
	if k <= 0 || int(k) >= len(warningKindNames) {
		return "WarningKind(" + strconv.Itoa(int(k)) + ")"
	}
	return warningKindNames[k]
}

// Warning is a caveat about a parsed result: a line that is not a result,
// a value to be careful with. Results carry them instead of printing them.
type Warning struct {
	// Kind says what the warning is about.
	Kind WarningKind
	// Line is the 1-based line of the input the warning is about, or 0.
	Line int
	// Stderr is set when Line counts lines of stderr (ParseOutput).
	Stderr bool
	// Text says what is wrong; for tool messages it is the tool's line,
	// trimmed.
	Text string
}

// String returns the text with its line: "line 31: ...", "stderr line 2: ...".
func (w Warning) String() string {
	switch {
	case w.Line > 0 && w.Stderr:
		return fmt.Sprintf("stderr line %d: %s", w.Line, w.Text)
	case w.Line > 0:
		return fmt.Sprintf("line %d: %s", w.Line, w.Text)
	case w.Stderr:
		return "stderr: " + w.Text
	}
	return w.Text
}

// Error returns String: Result.Warnings holds Warnings as errors
// (benchmath style).
func (w Warning) Error() string { return w.String() }

// warningKind returns the kind of a Warning, or 0 for any other error.
func warningKind(err error) WarningKind {
	var w Warning
	if errors.As(err, &w) {
		return w.Kind
	}
	return 0
}

// MarshalText returns String, so that warnings encode as JSON strings.
func (w Warning) MarshalText() ([]byte, error) { return []byte(w.String()), nil }
