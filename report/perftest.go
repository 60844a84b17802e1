package report

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/perftest"
)

// FromPerftest converts the parsed outputs of repeated runs of one perftest
// test (one *perftest.Result per repeat, normally the client's) into a
// round. Every table row becomes values of metrics labelled with its
// message size ("size"="65536"); the repeats (and the intervals of
// --run_infinitely) add values to the same metrics:
//
//	BW tests:  bw_avg, bw_peak (Gbit/s, only where perftest measured it), msg_rate (Mpps)
//	latency:   t_min, t_typical, t_avg, t_max, t_stdev, p99, p99.9 (us, lower is better)
//	-D latency: t_avg (us), tps (trans/s)
//	--output:  value, in the unit the option implies, which the output does not say
//
// The round's parameters come from the first header (test, device, qps,
// connection, mtu, link_type, gid_index) and, for results RunPair made,
// from the options it ran (perftest.Result.Options, recorded whole in
// Round.Perftest): argv, message_size, iterations, duration_sec,
// qps_asked, mtu_asked, qp_timeout, connection_asked, all_sizes,
// bidirectional. A result that has only its command line (Argv) is read
// back with perftest's flag table. A repeat whose header differs, a
// repeat that failed, and every parser warning become round warnings
// ("repeat 2: ...", counted from 1 as the progress counts runs).
// Non-finite values are left out with a warning. The error wraps
// ErrNoData when no repeat has a row.
//
// Similar to: ib_send_bw ... | tail -2 | awk '{print $4}' >> results.txt
func FromPerftest(name string, start time.Time, runs ...*perftest.Result) (Round, error) {
	r := Round{Name: name, Start: start}
	var set metricSet
	var first []Param
	readRepeats(&r, runs, func(res *perftest.Result) []error { return res.Warnings }, func(res *perftest.Result, note noteFunc) int {
		if res.Failure != nil {
			note("failed: %s: %s", res.Failure.Kind, res.Failure.Message)
		}
		params := perftestParams(res)
		if first == nil && (len(res.BW) > 0 || len(res.Lat) > 0 || len(res.Values) > 0) {
			first = params
		} else if first != nil && fmt.Sprint(params) != fmt.Sprint(first) {
			note("parameters %v differ from the first's %v", params, first)
		}
		return addPerftest(&set, res)
	})
	if len(set.ms) == 0 {
		return r, fmt.Errorf("%w: %d perftest results without rows", ErrNoData, len(runs))
	}
	r.Params = first
	r.Metrics = set.ms
	r.Perftest = firstOptions(runs)
	return r, nil
}

// firstOptions are the options of the first result that has rows, or
// nil.
func firstOptions(runs []*perftest.Result) *perftest.Options {
	for _, res := range runs {
		if res == nil || len(res.BW) == 0 && len(res.Lat) == 0 && len(res.Values) == 0 {
			continue
		}
		if o, ok := resultOptions(res); ok {
			return &o
		}
		return nil
	}
	return nil
}

// resultOptions are the options a result ran with: RunPair's, or its
// command line read back; false when it has neither.
func resultOptions(res *perftest.Result) (perftest.Options, bool) {
	if res.Options != nil {
		return *res.Options, true
	}
	if len(res.Argv) == 0 {
		return perftest.Options{}, false
	}
	c, _ := perftest.ParseCommand(res.Argv) // what reads is kept
	return c.Options, true
}

func perftestParams(res *perftest.Result) []Param {
	h := res.Header
	ps := []Param{{"test", res.Test}}
	add := func(k, v string) {
		if v != "" {
			ps = append(ps, Param{k, v})
		}
	}
	add("device", h.Device)
	if h.QPs > 0 {
		add("qps", strconv.Itoa(h.QPs))
	}
	add("connection", h.Connection)
	if h.MTU > 0 {
		add("mtu", strconv.Itoa(h.MTU))
	}
	add("link_type", h.LinkType)
	if h.GIDIndex >= 0 && (h.Device != "" || h.LinkType != "") {
		add("gid_index", strconv.Itoa(h.GIDIndex))
	}
	if len(res.Argv) > 0 {
		ps = append(ps, Param{"argv", strings.Join(res.Argv, " ")})
	}
	if o, ok := resultOptions(res); ok {
		ps = append(ps, perftestOptionParams(o)...)
	}
	return ps
}

// perftestOptionParams are the test options of a round as parameters:
// message_size (-s), iterations (-n), duration_sec (-D), qps_asked (-q),
// mtu_asked (-m), qp_timeout (-u), connection_asked (-c), and all_sizes
// (-a), bidirectional (-b) as "true"; those that are set, in that order
// (the keys rounds were stored with before the options were recorded).
func perftestOptionParams(o perftest.Options) []Param {
	var ps []Param
	num := func(k string, v int) {
		if v > 0 {
			ps = append(ps, Param{k, strconv.Itoa(v)})
		}
	}
	num("message_size", o.Size)
	num("iterations", o.Iterations)
	num("duration_sec", int(o.Duration/time.Second))
	num("qps_asked", o.QPs)
	num("mtu_asked", o.MTU)
	num("qp_timeout", o.QPTimeout)
	if o.Connection != "" {
		ps = append(ps, Param{"connection_asked", o.Connection})
	}
	for _, b := range []struct {
		k  string
		on bool
	}{{"all_sizes", o.AllSizes}, {"bidirectional", o.Bidirectional}} {
		if b.on {
			ps = append(ps, Param{b.k, "true"})
		}
	}
	return ps
}

// ErrNoPerftestOptions means a round has no perftest options to read:
// neither recorded ones nor a command line.
var ErrNoPerftestOptions = errors.New("report: the round has no perftest options")

// PerftestOptions returns the options a perftest round ran with:
// Round.Perftest when it was recorded; for a round stored before, its
// command lines read back with perftest's flag table (the fingerprint's
// server and client, both ends; else the argv parameter, the client's
// end only). The error wraps ErrNoPerftestOptions when there is neither,
// or perftest.ErrCommand for a command line that does not read (what
// read is returned).
//
// Similar to: jq .params rounds.jsonl, with the command line taken apart.
func (r *Round) PerftestOptions() (perftest.Options, error) {
	if r.Perftest != nil {
		return *r.Perftest, nil
	}
	if fp := r.Fingerprint; fp != nil {
		var srv, cli []string
		for _, a := range fp.Argv {
			switch a.Role {
			case string(perftest.Server):
				srv = a.Argv
			case string(perftest.Client):
				cli = a.Argv
			}
		}
		if srv != nil && cli != nil {
			o, _, err := perftest.ParsePair(srv, cli)
			return o, err
		}
	}
	if argv, ok := r.Param("argv"); ok {
		c, err := perftest.ParseCommand(strings.Fields(argv))
		return c.Options, err
	}
	return perftest.Options{}, fmt.Errorf("%w: %s", ErrNoPerftestOptions, r.Name)
}

// addPerftest adds the rows of one result and returns how many values were
// not finite.
func addPerftest(set *metricSet, res *perftest.Result) (dropped int) {
	add := func(name string, size uint64, unit string, better Better, v float64) {
		if !set.add(name, []Param{{LabelSize, strconv.FormatUint(size, 10)}}, unit, better, v) {
			dropped++
		}
	}
	for _, row := range res.BW {
		add(MetricBWAvg, row.Bytes, UnitGbps, HigherIsBetter, row.BWAvgGbps)
		if row.PeakMeasured {
			add(MetricBWPeak, row.Bytes, UnitGbps, HigherIsBetter, row.BWPeakGbps)
		}
		add(MetricMsgRate, row.Bytes, UnitMpps, HigherIsBetter, row.MsgRateMpps)
	}
	for _, row := range res.Lat {
		if row.Duration {
			add(MetricTAvg, row.Bytes, UnitMicros, LowerIsBetter, row.TAvgMicros)
			add(MetricTPS, row.Bytes, UnitPerSec, HigherIsBetter, row.TPS)
			continue
		}
		add(MetricTMin, row.Bytes, UnitMicros, LowerIsBetter, row.TMinMicros)
		add(MetricTTypical, row.Bytes, UnitMicros, LowerIsBetter, row.TTypicalMicros)
		add(MetricTAvg, row.Bytes, UnitMicros, LowerIsBetter, row.TAvgMicros)
		add(MetricTMax, row.Bytes, UnitMicros, LowerIsBetter, row.TMaxMicros)
		add(MetricTStdev, row.Bytes, UnitMicros, LowerIsBetter, row.TStdevMicros)
		add(MetricP99, row.Bytes, UnitMicros, LowerIsBetter, row.P99Micros)
		add(MetricP999, row.Bytes, UnitMicros, LowerIsBetter, row.P999Micros)
	}
	if res.Kind == perftest.ResultBare {
		for _, v := range res.Values {
			if !set.add(MetricValue, nil, UnitUnknownBW, BetterUnknown, v) {
				dropped++
			}
		}
	}
	return dropped
}
