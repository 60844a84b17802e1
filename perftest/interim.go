package perftest

import "time"

// Interim is one row of a --run_infinitely run: the bandwidth of one -D
// interval, and when that interval ended.
type Interim struct {
	// Row is the row as parsed. Its BW peak is never measured
	// (PeakMeasured is false); #iterations counts the interval only.
	Row BWRow
	// End is when the interval ended, counted from the start of the
	// first interval: as the row arrived (RunSoak), or (i+1) × the -D
	// interval for the i-th row of saved output (Interims).
	End time.Duration
}

// Interims returns the BW rows of a --run_infinitely output with the end of
// each interval: perftest prints one row every -D seconds (every) from a
// thread that does not wait for traffic, so the i-th row ends at
// (i+1) × every, and a stall shows as rows of 0.00 rather than as a gap.
// It returns nil for a result without BW rows or a non-positive every.
//
// Similar to: ib_write_bw --run_infinitely -D 1 ... | awk '$1 ~ /^[0-9]+$/ {print NR, $4}'
func Interims(res *Result, every time.Duration) []Interim {
	if res == nil || every <= 0 || len(res.BW) == 0 {
		return nil
	}
	out := make([]Interim, len(res.BW))
	for i, r := range res.BW {
		out[i] = Interim{Row: r, End: time.Duration(i+1) * every}
	}
	return out
}

// interimClock times the rows of one side as they arrive: the first
// interval is taken to have begun one interval before the first row.
type interimClock struct {
	every time.Duration
	first time.Time // arrival of the first row
}

// end returns the End of a row that arrived at t.
func (c *interimClock) end(t time.Time) time.Duration {
	if c.first.IsZero() {
		c.first = t
	}
	return t.Sub(c.first) + c.every
}
