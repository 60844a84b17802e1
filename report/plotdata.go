package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/perftest"
)

// AddInterim records one interim result of a repeat, a point of a time
// series within the round (netperf -D, perftest --run_infinitely): metric
// "interim_"+name labelled with the repeat and the end of the interval in
// seconds since the repeat began ("repeat"="0", "t"="1.250"), one value.
// The series can be drawn again from the store (report/plot.Interims).
// The error wraps ErrInvalidRound for a non-finite value or time.
//
// Similar to: netperf -D 1 ... | grep 'Interim result'
func (r *Round) AddInterim(name, unit string, repeat int, endSec, v float64) error {
	if math.IsNaN(endSec) || endSec < 0 || endSec > 1e9 {
		return fmt.Errorf("%w: interim %s at %v s", ErrInvalidRound, name, endSec)
	}
	labels := []Param{{"repeat", strconv.Itoa(repeat)}, {"t", strconv.FormatFloat(endSec, 'f', 3, 64)}}
	return r.AddValue("interim_"+name, labels, unit, HigherIsBetter, v)
}

// AddNetperfInterims records the demo-mode interim results of one repeat
// (netperf.Result.Interims) with AddInterim as "interim_throughput" in
// Mbit/s, timed from the start of the first interval. Results in a unit
// that is not a bit or byte rate are left out; the error wraps
// ErrInvalidRound for a non-finite value.
//
// Similar to: netperf -D 1 -H HOST -t UDP_STREAM
func (r *Round) AddNetperfInterims(repeat int, res *netperf.Result) error {
	if res == nil || len(res.Interims) == 0 {
		return nil
	}
	start := res.Interims[0].EndingUnixSec - res.Interims[0].IntervalSec
	for _, in := range res.Interims {
		mbps, ok := in.Unit.Mbps(in.Value)
		if !ok {
			continue
		}
		if err := r.AddInterim(MetricThroughput, UnitMbps, repeat, in.EndingUnixSec-start, mbps); err != nil {
			return err
		}
	}
	return nil
}

// AddPerftestInterims records the rows of one repeat of a perftest
// --run_infinitely run (perftest.SoakResult.ClientInterims, or
// perftest.Interims of saved output) with AddInterim as "interim_bw_avg"
// in Gbit/s, each at the end of its interval. Rows whose bandwidth is
// unknown (NaN: no unit) are left out; a row of 0.00 is kept, since it is
// the stall the series is for. The error wraps ErrInvalidRound for a
// non-finite value.
//
// Similar to: ib_write_bw --run_infinitely -D 1 ... | awk '{print $4}'
func (r *Round) AddPerftestInterims(repeat int, rows []perftest.Interim) error {
	for _, in := range rows {
		if math.IsNaN(in.Row.BWAvgGbps) {
			continue
		}
		if err := r.AddInterim(MetricBWAvg, UnitGbps, repeat, in.End.Seconds(), in.Row.BWAvgGbps); err != nil {
			return err
		}
	}
	return nil
}
