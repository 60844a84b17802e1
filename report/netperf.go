package report

import (
	"fmt"
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
// "message_size" (LOCAL_SEND_SIZE, or the classic table's), "elapsed_sec",
// and per socket buffer asked for (-s, -S) "sockbuf_SIDE_asked" and
// "sockbuf_SIDE_got" in bytes ("sockbuf_remote_recv_got"), which
// CheckSocketBuffers reads. Failed repeats and netperf's warnings become
// round warnings ("repeat 1: line 10: ...", repeats counted from 1 as the
// progress counts runs, lines those of the repeat's output); the error wraps ErrNoData when no repeat has a number.
//
// Similar to: netperf -H HOST -t UDP_STREAM -l 30 -- -m 1400 | tail -2
func FromNetperf(name string, start time.Time, runs ...*netperf.Result) (Round, error) {
	r := Round{Name: name, Start: start}
	var set metricSet
	test := ""
	for i, res := range runs {
		if res == nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: no result", i+1))
			continue
		}
		for _, w := range res.Warnings {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: %s", i+1, w))
		}
		if res.Form == netperf.FormError {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: netperf failed", i+1))
			continue
		}
		if test == "" {
			test = res.Test
		} else if res.Test != "" && res.Test != test {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: test %s differs from %s", i+1, res.Test, test))
		}
		if n := addNetperf(&set, res); n > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: %d non-finite values left out", i+1, n))
		}
	}
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
	if v, ok := res.Omni.Value("ELAPSED_TIME"); ok && v != "" {
		ps = append(ps, Param{ParamElapsedSec, v})
	}
	for _, b := range res.SocketBuffers {
		side := strings.ReplaceAll(b.Side, " ", "_")
		ps = append(ps, Param{ParamSockbufPrefix + side + "_asked", strconv.Itoa(b.AskedBytes)},
			Param{ParamSockbufPrefix + side + "_got", strconv.Itoa(b.GotBytes)})
	}
	return ps
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
