package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/netperf"
)

// FromNetperf converts the parsed outputs of repeated runs of one netperf
// test (one *netperf.Result per repeat) into a round, one value per repeat:
//
//	throughput      Mbit/s, higher is better (UDP_STREAM: what netserver received)
//	trans_rate      trans/s, higher is better (TCP_RR, UDP_RR, TCP_CRR)
//	send_throughput, recv_throughput  Mbit/s (UDP_STREAM)
//	loss_ratio      ratio 0–1, lower is better (UDP_STREAM: 1 - received/sent)
//	sent, received  msgs (UDP_STREAM)
//	sockbuf_SIDE    bytes: the socket buffer the kernel gave, per -s/-S asked
//	                (sockbuf_remote_recv: netserver's receive buffer)
//	rt_latency, min_latency, mean_latency, p50_latency, p90_latency, p99_latency, max_latency
//	                us, lower is better (omni selectors, when printed)
//
// The round's parameters say what was run, from the first repeat with a
// result: "test" (netperf's test name), "argv" (the command Run ran),
// "message_size" (LOCAL_SEND_SIZE, or the classic table's), "duration_sec"
// (the test length asked: -l, netperf's 10 s without it; not for a
// negative -l, a count of bytes or transactions), "elapsed_sec" (what
// netperf reports it ran: ELAPSED_TIME or the classic table's Elapsed
// Time), and per socket buffer asked for (-s, -S) "sockbuf_SIDE_asked" and
// "sockbuf_SIDE_got" in bytes ("sockbuf_remote_recv_got"), which
// CheckSocketBuffers reads. Failed repeats and netperf's warnings become
// round warnings ("repeat 1: line 10: ...", repeats counted from 1 as the
// progress counts runs, lines those of the repeat's output); the error wraps ErrNoData when no repeat has a number.
// The round's DurationSec is the sum of the repeats' reported elapsed
// times (a step that times its repeats sets the wall time instead).
//
// Similar to: netperf -H HOST -t UDP_STREAM -l 30 -- -m 1400 | tail -2
func FromNetperf(name string, start time.Time, runs ...*netperf.Result) (Round, error) {
	r := Round{Name: name, Start: start}
	var set metricSet
	test := ""
	readRepeats(&r, runs, func(res *netperf.Result) []error { return res.Warnings }, func(res *netperf.Result, note noteFunc) int {
		if res.Form == netperf.FormError {
			note("netperf failed")
			return 0
		}
		if test == "" {
			test = res.Test
		} else if res.Test != "" && res.Test != test {
			note("test %s differs from %s", res.Test, test)
		}
		if e, ok := netperfElapsed(res); ok {
			r.DurationSec += e
		}
		return addNetperf(&set, res)
	})
	if len(set.ms) == 0 {
		return r, fmt.Errorf("%w: %d netperf results without numbers", ErrNoData, len(runs))
	}
	if test != "" {
		r.Params = []Param{{"test", test}}
	}
	for _, res := range runs {
		if res != nil && res.Form != netperf.FormError {
			r.Params = append(r.Params, netperfParams(res)...)
			break
		}
	}
	r.Metrics = set.ms
	return r, nil
}

// netperfParams are what one result says of how it was run.
func netperfParams(res *netperf.Result) []Param {
	var ps []Param
	if len(res.Argv) > 0 {
		ps = append(ps, Param{ParamArgv, strings.Join(res.Argv, " ")})
	}
	if v, ok := res.Omni.Value("LOCAL_SEND_SIZE"); ok && v != "" {
		ps = append(ps, Param{ParamMessageSize, v})
	} else if c := res.Classic; c != nil && c.UDPSend != nil {
		ps = append(ps, Param{ParamMessageSize, strconv.Itoa(c.UDPSend.MessageBytes)})
	}
	if d, ok := netperfLength(res.Argv); ok {
		ps = append(ps, Param{"duration_sec", d})
	}
	if v, ok := res.Omni.Value("ELAPSED_TIME"); ok && v != "" {
		ps = append(ps, Param{ParamElapsedSec, v})
	} else if e, ok := netperfElapsed(res); ok {
		ps = append(ps, Param{ParamElapsedSec, strconv.FormatFloat(e, 'f', -1, 64)})
	}
	for _, b := range res.SocketBuffers {
		side := strings.ReplaceAll(b.Side, " ", "_")
		ps = append(ps, Param{ParamSockbufPrefix + side + "_asked", strconv.Itoa(b.AskedBytes)},
			Param{ParamSockbufPrefix + side + "_got", strconv.Itoa(b.GotBytes)})
	}
	return ps
}

// netperfDefaultLength is netperf's test length without -l, seconds.
const netperfDefaultLength = "10"

// netperfLength is the test length of a netperf command line: its -l
// among the global options (before "--"), or netperf's default; false
// without a command line or for a negative -l (bytes or transactions).
func netperfLength(argv []string) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	for i, a := range argv {
		if a == "--" {
			break
		}
		v, ok := strings.CutPrefix(a, "-l")
		if !ok {
			continue
		}
		if v == "" && i+1 < len(argv) {
			v = argv[i+1]
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
			return v, true
		}
		return "", false
	}
	return netperfDefaultLength, true
}

// netperfElapsed is the elapsed time a result reports, seconds; false
// when it reports none, or one that is not a finite time.
func netperfElapsed(res *netperf.Result) (float64, bool) {
	e, ok := 0.0, false
	if o := res.Omni; o != nil && o.ElapsedSec != nil {
		e, ok = *o.ElapsedSec, true
	} else if c := res.Classic; c != nil {
		switch {
		case c.Stream != nil:
			e, ok = c.Stream.ElapsedSec, true
		case c.RR != nil:
			e, ok = c.RR.ElapsedSec, true
		case c.UDPSend != nil:
			e, ok = c.UDPSend.ElapsedSec, true
		}
	}
	return e, ok && e >= 0 && !math.IsInf(e, 0) && !math.IsNaN(e)
}

func addNetperf(set *metricSet, res *netperf.Result) (dropped int) {
	add := func(name, unit string, better Better, v *float64) {
		if v != nil && !set.add(name, nil, unit, better, *v) {
			dropped++
		}
	}
	add(MetricThroughput, UnitMbps, HigherIsBetter, res.ThroughputMbps)
	add(MetricTransRate, UnitPerSec, HigherIsBetter, res.TransPerSec)
	if u := res.UDP; u != nil {
		add(MetricSendThroughput, UnitMbps, HigherIsBetter, u.SendMbps)
		add(MetricRecvThroughput, UnitMbps, HigherIsBetter, u.RecvMbps)
		loss := u.LossRatio
		add(MetricLossRatio, UnitRatio, LowerIsBetter, &loss)
		sent, recv := float64(u.Sent), float64(u.Received)
		add(MetricSent, UnitMessages, BetterUnknown, &sent)
		add(MetricReceived, UnitMessages, BetterUnknown, &recv)
	}
	// The socket buffers each run really had (what -s/-S became).
	for _, b := range res.SocketBuffers {
		got := float64(b.GotBytes)
		add(MetricSockbufPrefix+strings.ReplaceAll(b.Side, " ", "_"), UnitBytes, BetterUnknown, &got)
	}
	if o := res.Omni; o != nil {
		add(MetricRTLatency, UnitMicros, LowerIsBetter, o.RTLatencyMicros)
		add(MetricMinLatency, UnitMicros, LowerIsBetter, o.MinLatencyMicros)
		add(MetricMeanLatency, UnitMicros, LowerIsBetter, o.MeanLatencyMicros)
		add(MetricP50Latency, UnitMicros, LowerIsBetter, o.P50LatencyMicros)
		add(MetricP90Latency, UnitMicros, LowerIsBetter, o.P90LatencyMicros)
		add(MetricP99Latency, UnitMicros, LowerIsBetter, o.P99LatencyMicros)
		add(MetricMaxLatency, UnitMicros, LowerIsBetter, o.MaxLatencyMicros)
	}
	return dropped
}
