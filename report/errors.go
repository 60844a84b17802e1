package report

import (
	"errors"
	"fmt"
)

// Sentinel errors. Functions wrap them with %w, so callers write
// errors.Is(err, report.ErrCorrupt); the typed errors below carry the details.
var (
	// ErrCorrupt is wrapped by every *LineError: a line of a store that is
	// not a round (and is not the torn last line of a crashed append).
	ErrCorrupt = errors.New("report: corrupt store line")

	// ErrInvalidRound means a round cannot be stored or compared: no name,
	// a metric without name or unit, or a non-finite value.
	ErrInvalidRound = errors.New("report: invalid round")

	// ErrNoData means a conversion or a plot had nothing to work with: a
	// perftest or netperf result without a table, a plot without points.
	ErrNoData = errors.New("report: no data")

	// ErrNotStore means an existing file is not a round store (its first
	// line is not a round): it is not appended to.
	ErrNotStore = errors.New("report: not a round store")

	// ErrNoStore is what a nil *Store's methods return.
	ErrNoStore = errors.New("report: nil Store (make one with report.OpenStore)")
)

// LineError is a store line that could not be decoded. It wraps ErrCorrupt.
type LineError struct {
	Line int    // 1-based line number in the store
	Text string // the line, cut to 120 bytes
	Err  error  // the JSON or validation error
}

// Error returns "report: store line N: ...".
func (e *LineError) Error() string {
	return fmt.Sprintf("report: store line %d: %v: %q", e.Line, e.Err, e.Text)
}

// Unwrap returns ErrCorrupt and the decoding error.
func (e *LineError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

func cut(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
