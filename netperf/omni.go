package netperf

import (
	"strconv"
	"strings"
)

// Selector is one omni output value.
type Selector struct {
	// Name is the selector ("THROUGHPUT", "P99_LATENCY"). For -o and -O
	// output it is found from the header text; it is "" when the header
	// is not a netperf 2.7 selector, or when there was no header (-P 0)
	// and the caller named no selectors.
	Name string
	// Header is the -o or -O header text ("Throughput Units",
	// "99th Percentile Latency Microseconds"); "" for -k output.
	Header string
	// Value is the value as printed, trimmed. The quotes netperf puts
	// around COMMAND_LINE and RESULT_BRAND are removed; a selector
	// netperf had no value for is "" (-o, -O) or absent (-k).
	Value string
	// Line is the 1-based input line the value is on.
	Line int
}

// Omni is the output of netperf's omni selectors (-k, -o, -O after --).
// Every value is kept by name in Selectors, in printed order; the common
// selectors are also parsed into the typed fields below, which are nil
// when the selector was not printed.
//
// Similar to: netperf -t TCP_RR -- -k THROUGHPUT,THROUGHPUT_UNITS,P99_LATENCY
type Omni struct {
	// Selectors are all the values, in printed order.
	Selectors []Selector

	// THROUGHPUT (for RR tests transactions/s; for UDP_STREAM what
	// netserver received) and THROUGHPUT_UNITS ("10^6bits/s", "Trans/s").
	Throughput      *float64
	ThroughputUnits Unit
	// ELAPSED_TIME in seconds.
	ElapsedSec *float64
	// PROTOCOL ("TCP", "UDP"), DIRECTION ("Send", "Receive", "Send|Recv"),
	// SOCKET_TYPE ("Stream", "Datagram").
	Protocol, Direction, SocketType string

	// LOCAL_SEND_CALLS, LOCAL_RECV_CALLS, REMOTE_SEND_CALLS,
	// REMOTE_RECV_CALLS: successful calls only.
	LocalSendCalls, LocalRecvCalls, RemoteSendCalls, RemoteRecvCalls *uint64
	// LOCAL_BYTES_SENT, LOCAL_BYTES_RECVD, REMOTE_BYTES_SENT,
	// REMOTE_BYTES_RECVD.
	LocalBytesSent, LocalBytesReceived, RemoteBytesSent, RemoteBytesReceived *uint64
	// LOCAL_SEND_THROUGHPUT, LOCAL_RECV_THROUGHPUT, REMOTE_SEND_THROUGHPUT,
	// REMOTE_RECV_THROUGHPUT, in ThroughputUnits for stream tests.
	LocalSendThroughput, LocalRecvThroughput, RemoteSendThroughput, RemoteRecvThroughput *float64

	// TRANSACTION_RATE in transactions/s, and RT_LATENCY (round-trip
	// latency computed from it, µs; nil when netperf printed -1).
	TransactionRate *float64
	RTLatencyMicros *float64
	// MIN_LATENCY, MEAN_LATENCY, P50_LATENCY, P90_LATENCY, P99_LATENCY,
	// MAX_LATENCY, STDDEV_LATENCY in µs (the percentiles, min and max are
	// whole µs from histogram buckets). In stream tests they time send().
	MinLatencyMicros, MeanLatencyMicros, P50LatencyMicros, P90LatencyMicros *float64
	P99LatencyMicros, MaxLatencyMicros, StddevLatencyMicros                 *float64

	// LOCAL_CPU_UTIL and REMOTE_CPU_UTIL in percent; nil when netperf
	// printed -1.00 (not measured).
	LocalCPUUtilPercent, RemoteCPUUtilPercent *float64
	// LOCAL_SD and REMOTE_SD in ServiceDemandUnits (SD_UNITS: "usec/KB",
	// "usec/Tran"); nil when netperf printed -1.000.
	LocalServiceDemand, RemoteServiceDemand *float64
	ServiceDemandUnits                      string
}

// Value returns the value printed for the named selector.
func (o *Omni) Value(name string) (string, bool) {
	if o == nil {
		return "", false
	}
	for _, s := range o.Selectors {
		if s.Name == name {
			return s.Value, true
		}
	}
	return "", false
}

// Map returns the values keyed by selector name. A value without a name
// is keyed by its header text (an -o or -O column this package does not
// know), or, with no header either (-P 0 and no names given), by "#n",
// its 1-based position. When a key repeats, the first value is kept.
func (o *Omni) Map() map[string]string {
	if o == nil {
		return nil
	}
	m := make(map[string]string, len(o.Selectors))
	for i, s := range o.Selectors {
		k := s.Name
		if k == "" {
			k = s.Header
		}
		if k == "" {
			k = "#" + strconv.Itoa(i+1)
		}
		if _, dup := m[k]; !dup {
			m[k] = s.Value
		}
	}
	return m
}

// floatField and countField map selector names to the typed fields.
func (o *Omni) floatField(name string) **float64 {
	switch name {
	case "THROUGHPUT":
		return &o.Throughput
	case "ELAPSED_TIME":
		return &o.ElapsedSec
	case "LOCAL_SEND_THROUGHPUT":
		return &o.LocalSendThroughput
	case "LOCAL_RECV_THROUGHPUT":
		return &o.LocalRecvThroughput
	case "REMOTE_SEND_THROUGHPUT":
		return &o.RemoteSendThroughput
	case "REMOTE_RECV_THROUGHPUT":
		return &o.RemoteRecvThroughput
	case "TRANSACTION_RATE":
		return &o.TransactionRate
	case "RT_LATENCY":
		return &o.RTLatencyMicros
	case "MIN_LATENCY":
		return &o.MinLatencyMicros
	case "MEAN_LATENCY":
		return &o.MeanLatencyMicros
	case "P50_LATENCY":
		return &o.P50LatencyMicros
	case "P90_LATENCY":
		return &o.P90LatencyMicros
	case "P99_LATENCY":
		return &o.P99LatencyMicros
	case "MAX_LATENCY":
		return &o.MaxLatencyMicros
	case "STDDEV_LATENCY":
		return &o.StddevLatencyMicros
	case "LOCAL_CPU_UTIL":
		return &o.LocalCPUUtilPercent
	case "REMOTE_CPU_UTIL":
		return &o.RemoteCPUUtilPercent
	case "LOCAL_SD":
		return &o.LocalServiceDemand
	case "REMOTE_SD":
		return &o.RemoteServiceDemand
	}
	return nil
}

func (o *Omni) countField(name string) **uint64 {
	switch name {
	case "LOCAL_SEND_CALLS":
		return &o.LocalSendCalls
	case "LOCAL_RECV_CALLS":
		return &o.LocalRecvCalls
	case "REMOTE_SEND_CALLS":
		return &o.RemoteSendCalls
	case "REMOTE_RECV_CALLS":
		return &o.RemoteRecvCalls
	case "LOCAL_BYTES_SENT":
		return &o.LocalBytesSent
	case "LOCAL_BYTES_RECVD":
		return &o.LocalBytesReceived
	case "REMOTE_BYTES_SENT":
		return &o.RemoteBytesSent
	case "REMOTE_BYTES_RECVD":
		return &o.RemoteBytesReceived
	}
	return nil
}

// notMeasured lists the selectors whose -1 means "not measured".
func notMeasured(name string, v float64) bool {
	switch name {
	case "RT_LATENCY", "LOCAL_CPU_UTIL", "REMOTE_CPU_UTIL", "LOCAL_SD", "REMOTE_SD":
		return v == -1
	}
	return false
}

// fill parses the typed fields from the selectors, flags inf/nan values
// and records values that do not parse.
func (o *Omni) fill(f *frame) {
	for _, s := range o.Selectors {
		v := s.Value
		if _, special, ok := parseNumber(v); ok && special {
			f.warnf(s.Line, "%s is %s", s.display(), v)
		}
		if s.Name == "" || v == "" {
			continue
		}
		switch s.Name {
		case "THROUGHPUT_UNITS":
			o.ThroughputUnits = Unit(v)
			continue
		case "PROTOCOL":
			o.Protocol = v
			continue
		case "DIRECTION":
			o.Direction = v
			continue
		case "SOCKET_TYPE":
			o.SocketType = v
			continue
		case "SD_UNITS":
			o.ServiceDemandUnits = v
			continue
		}
		if p := o.floatField(s.Name); p != nil {
			x, _, ok := parseNumber(v)
			if !ok {
				f.setErr(line{n: s.Line, text: s.Name + "=" + v}, notNumber(s.Name, v))
				continue
			}
			if !notMeasured(s.Name, x) {
				*p = float64p(x)
			}
			continue
		}
		if p := o.countField(s.Name); p != nil {
			n, ok := parseCount(v)
			if !ok {
				f.setErr(line{n: s.Line, text: s.Name + "=" + v}, s.Name+" is not a count")
				continue
			}
			*p = uint64p(n)
		}
	}
}

// display names a selector in messages.
func (s Selector) display() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Header != "":
		return strings.TrimSpace(s.Header)
	}
	return "a value"
}
