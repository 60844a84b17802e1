package perftest

import (
	"errors"
	"math"
)

// ClockVoid reports whether the result's numbers are void because
// perftest's CPU clock sampling failed: it printed its clock warning
// ("Correlation coefficient r^2: 0.82 < 0.9") and every row is 0 or not
// finite. get_cpu_mhz then returned 0, so bandwidth and message rate
// print as 0.000000 and latencies as inf or nan: not a measurement. Seen
// under emulation on a loaded host, with perftest 4.5 and 25.01; running
// again usually samples the clock fine.
//
// Similar to: grep -q 'Correlation coefficient' err.log && awk '$4 == 0' out.log
func (r *Result) ClockVoid() bool {
	if r == nil || len(r.BW)+len(r.Lat) == 0 || len(r.ClockWarnings()) == 0 {
		return false
	}
	void := func(v float64) bool { return v == 0 || math.IsNaN(v) || math.IsInf(v, 0) }
	for _, row := range r.BW {
		if !void(row.BWAvgGbps) || !void(row.MsgRateMpps) {
			return false
		}
	}
	for _, row := range r.Lat {
		if !void(row.TTypicalMicros) || !void(row.TAvgMicros) {
			return false
		}
	}
	return true
}

// ClockWarnings are the texts of the result's WarnClock warnings: perftest
// doubting its CPU clock ("Correlation coefficient r^2: 0.82 < 0.9").
func (r *Result) ClockWarnings() []string {
	var texts []string
	for _, e := range r.Warnings {
		var w Warning
		if errors.As(e, &w) && w.Kind == WarnClock {
			texts = append(texts, w.Text)
		}
	}
	return texts
}
