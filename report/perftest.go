package report

import (
	"fmt"
	"slices"
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
// from the command line (argv, message_size, iterations, duration_sec,
// qps_asked, mtu_asked, qp_timeout, connection_asked, all_sizes,
// bidirectional); a repeat whose header differs, a
// repeat that failed, and every parser warning become round warnings
// ("repeat 2: ...", counted from 1 as the progress counts runs). Non-finite values are left out with a warning. The
// error wraps ErrNoData when no repeat has a row.
//
// Similar to: ib_send_bw ... | tail -2 | awk '{print $4}' >> results.txt
func FromPerftest(name string, start time.Time, runs ...*perftest.Result) (Round, error) {
	r := Round{Name: name, Start: start}
	var set metricSet
	var first []Param
	for i, res := range runs {
		if res == nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: no result", i+1))
			continue
		}
		for _, w := range res.Warnings {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: %s", i+1, w))
		}
		if res.Failure != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: failed: %s: %s", i+1, res.Failure.Kind, res.Failure.Message))
		}
		params := perftestParams(res)
		if first == nil && (len(res.BW) > 0 || len(res.Lat) > 0 || len(res.Values) > 0) {
			first = params
		} else if first != nil && fmt.Sprint(params) != fmt.Sprint(first) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: parameters %v differ from the first's %v", i+1, params, first))
		}
		dropped := addPerftest(&set, res)
		if dropped > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: %d non-finite values left out", i+1, dropped))
		}
	}
	if len(set.ms) == 0 {
		return r, fmt.Errorf("%w: %d perftest results without rows", ErrNoData, len(runs))
	}
	r.Params = first
	r.Metrics = set.ms
	return r, nil
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
	return append(ps, perftestArgvParams(res.Argv)...)
}

// perftestArgFlags are the options of a perftest command line that
// FromPerftest records, by the parameter they become.
var perftestArgFlags = []struct{ flag, long, param string }{
	{"-s", "--size", "message_size"},
	{"-n", "--iters", "iterations"},
	{"-D", "--duration", "duration_sec"},
	{"-q", "--qp", "qps_asked"},
	{"-m", "--mtu", "mtu_asked"},
	{"-u", "--qp-timeout", "qp_timeout"},
	{"-c", "--connection", "connection_asked"},
}

// perftestArgvParams are the test options of the command line RunPair ran
// (perftest.Result.Argv): the argv itself, -s, -n, -D, -q, -m, -u, -c,
// and -a, -b as "true".
func perftestArgvParams(argv []string) []Param {
	if len(argv) == 0 {
		return nil
	}
	ps := []Param{{"argv", strings.Join(argv, " ")}}
	for _, f := range perftestArgFlags {
		for i, a := range argv {
			if (a == f.flag || a == f.long) && i+1 < len(argv) {
				ps = append(ps, Param{f.param, argv[i+1]})
				break
			}
			if v, ok := strings.CutPrefix(a, f.long+"="); ok {
				ps = append(ps, Param{f.param, v})
				break
			}
		}
	}
	for _, f := range []struct{ flag, long, param string }{{"-a", "--all", "all_sizes"}, {"-b", "--bidirectional", "bidirectional"}} {
		if slices.Contains(argv, f.flag) || slices.Contains(argv, f.long) {
			ps = append(ps, Param{f.param, "true"})
		}
	}
	return ps
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
