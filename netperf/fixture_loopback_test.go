package netperf

import (
	"strings"
	"testing"
)

// lbLatency is the -o list of the udp-rr-csv cases.
const lbLatency = "MIN_LATENCY,P50_LATENCY,P90_LATENCY,P99_LATENCY,MAX_LATENCY,MEAN_LATENCY,STDDEV_LATENCY,TRANSACTION_RATE,RT_LATENCY,THROUGHPUT,THROUGHPUT_UNITS"

// fixtureExpectations covers every fixture: the lab's two suites and the
// loopback captures.
var fixtureExpectations = func() map[string]expect {
	m := labExpectations()
	for k, v := range loopbackExpectations() {
		m["loopback/"+k] = v
	}
	return m
}()

// loopbackExpectations are the values printed in testdata/loopback
// (netperf 2.7.0-0.1 on this host's 127.0.0.1, see capture_linux_test.go),
// read by hand from each case's client.stdout.
func loopbackExpectations() map[string]expect {
	m := map[string]expect{}
	stream := func(v float64, u Unit, mb float64) summary {
		return summary{Form: FormClassic, Test: "TCP_STREAM", Throughput: &Rate{Value: v, Unit: u}, ThroughputMbps: f64(mb)}
	}
	// -f units: the value as printed, and by hand in 10^6 bit/s.
	m["tcp-stream-f-k"] = expect{summary: stream(15475876.47, "10^3bits/sec", 15475.87647)}
	m["tcp-stream-f-g"] = expect{summary: stream(14.45, "10^9bits/sec", 14450)}
	m["tcp-stream-f-K"] = expect{summary: stream(1482050.03, "KBytes/sec", 1482050.03*8192/1e6)}
	m["tcp-stream-f-M"] = expect{summary: stream(1837.38, "MBytes/sec", 1837.38*8*1048576/1e6)}
	m["tcp-stream-f-G"] = expect{summary: stream(1.46, "GBytes/sec", 1.46*8*1073741824/1e6)}
	m["tcp-stream-f-B"] = expect{summary: stream(1533289502.96, "Bytes/sec", 1533289502.96*8/1e6)}
	// -f b: labelled 10^0bits but the number is bytes/s.
	m["tcp-stream-f-b"] = expect{summary: stream(1825026137.46, "10^0bits/sec", 1825026137.46*8/1e6)}

	// -v 0 and -P 0: no unit printed.
	m["tcp-stream-v0"] = expect{
		summary: summary{Form: FormClassic, Test: "TCP_STREAM", Throughput: &Rate{Value: 16952.07, Unit: unitM, Assumed: true}, ThroughputMbps: f64(16952.07)},
		warn:    []string{"no unit printed (-v 0): assumed 10^6bits/sec"},
		check:   func(t *testing.T, r *Result) { wantEqual(t, "terse", r.Classic.Terse, &Terse{Value: 16952.07}) },
	}
	m["tcp-stream-p0-v0"] = expect{summary: summary{Form: FormClassic},
		warn:  []string{"-v 0 without a banner"},
		check: func(t *testing.T, r *Result) { wantEqual(t, "terse", r.Classic.Terse, &Terse{Value: 16507.06}) }}
	// -P 0 -v 0 -D: no banner and no titles, but the interim lines name
	// the unit the last number is in (netperf prints both with the same
	// format_units()).
	m["tcp-stream-p0-v0-demo"] = expect{
		summary: summary{Form: FormClassic, Throughput: &Rate{Value: 4871.86, Unit: "10^6bits/s"}, ThroughputMbps: f64(4871.86)},
		warn:    []string{"unit 10^6bits/s taken from the interim results"},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "interims", len(r.Interims), 3)
			wantEqual(t, "terse", r.Classic.Terse, &Terse{Value: 4871.86})
		},
	}
	m["tcp-rr-p0-v0-demo"] = expect{
		summary: summary{Form: FormClassic, Throughput: &Rate{Value: 26985.12, Unit: "Trans/s"}, TransPerSec: f64(26985.12)},
		warn:    []string{"unit Trans/s taken from the interim results"},
		check:   func(t *testing.T, r *Result) { wantEqual(t, "interims", len(r.Interims), 4) },
	}
	m["tcp-rr-v0"] = expect{
		summary: summary{Form: FormClassic, Test: "TCP_RR", Throughput: &Rate{Value: 116629.52, Unit: UnitTransPerSec, Assumed: true}, TransPerSec: f64(116629.52)},
		warn:    []string{"no unit printed (-v 0): assumed Trans/sec"},
	}
	m["udp-stream-v0"] = expect{summary: summary{Form: FormClassic, Test: "UDP_STREAM"},
		warn:  []string{"UDP_STREAM -v 0 prints the send-side throughput"},
		check: func(t *testing.T, r *Result) { wantEqual(t, "terse", r.Classic.Terse, &Terse{Value: 4864.90}) }}
	m["tcp-stream-cpu-v0"] = expect{summary: summary{Form: FormClassic, Test: "TCP_STREAM"},
		warn: []string{"-v 0 with -c/-C prints the service demand"},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "terse", r.Classic.Terse, &Terse{Value: 1.164, Method: "S"})
		}}
	m["tcp-stream-p0-brand"] = expect{
		summary: summary{Form: FormClassic, Throughput: &Rate{Value: 16643.30, Unit: unitM, Assumed: true}, ThroughputMbps: f64(16643.30)},
		warn:    []string{"no unit printed (-P 0): assumed 10^6bits/sec"},
		check: func(t *testing.T, r *Result) {
			c := wantRows(t, r, TableStream, unitM, false)
			wantEqual(t, "brand", c.Brand, "run42")
		},
	}
	m["tcp-rr-p0-brand"] = expect{
		summary: summary{Form: FormClassic, Throughput: &Rate{Value: 143520.14, Unit: UnitTransPerSec, Assumed: true}, TransPerSec: f64(143520.14)},
		warn:    []string{"no unit printed (-P 0): assumed Trans/sec"},
		check: func(t *testing.T, r *Result) {
			c := wantRows(t, r, TableRR, UnitTransPerSec, false)
			wantEqual(t, "brand", c.Brand, "run42")
			wantEqual(t, "remote sockets", [2]int{c.RR.RemoteSendSocketBytes, c.RR.RemoteRecvSocketBytes}, [2]int{16384, 131072})
		},
	}
	m["tcp-crr-p0"] = expect{
		summary: summary{Form: FormClassic, Throughput: &Rate{Value: 28505.24, Unit: UnitTransPerSec, Assumed: true}, TransPerSec: f64(28505.24)},
		warn:    []string{"no unit printed (-P 0): assumed Trans/sec"},
	}
	m["udp-stream-p0"] = expect{
		summary: summary{Form: FormClassic, Throughput: &Rate{Value: 2150.37, Unit: unitM, Assumed: true}, ThroughputMbps: f64(2150.37),
			UDP: &UDPStream{Sent: 397821, Received: 192030, SendErrors: u64(0), SendMbps: f64(4454.85), RecvMbps: f64(2150.37), LossRatio: 0.517295}},
		warn: []string{"no unit printed (-P 0): assumed 10^6bits/sec"},
	}

	loopbackTables(m, stream)
	loopbackOmni(m)
	loopbackDemoAndFailures(m, stream)
	return m
}

// loopbackTables adds the -c/-C, -v 2 and -f cases of the classic tables.
func loopbackTables(m map[string]expect, stream func(float64, Unit, float64) summary) {
	// -c/-C and -v 2 variants, -f on RR.
	m["tcp-rr-f-m"] = expect{summary: summary{Form: FormClassic, Test: "TCP_RR", Throughput: &Rate{Value: 1.76, Unit: unitM}, ThroughputMbps: f64(1.76)},
		check: func(t *testing.T, r *Result) { wantRows(t, r, TableRR, unitM, true) }}
	m["tcp-rr-v2"] = expect{summary: summary{Form: FormClassic, Test: "TCP_RR", Throughput: &Rate{Value: 117256.42, Unit: UnitTransPerSec}, TransPerSec: f64(117256.42)},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "-v 2 RR detail", r.Classic.RRDetail, &RRDetail{Rates: true, LocalSendAlign: 8, RoundTripLatencyMicros: 8.528, TransPerSec: 117256.416, Outbound: 0.938, Inbound: 0.938, Unit: "10^6bits/s"})
		}}
	m["tcp-stream-cpu-v2"] = expect{summary: stream(16343.66, "10^6bits/s", 16343.66), check: func(t *testing.T, r *Result) {
		c := wantRows(t, r, TableStream, "10^6bits/s", true)
		wantEqual(t, "local CPU", c.Stream.LocalCPU, &CPU{UtilPercent: 99.50, ServiceDemand: 0.997, Method: "S"})
		wantEqual(t, "-v 2 detail", c.StreamDetail, &StreamDetail{LocalSendAlign: 8, RemoteRecvAlign: 8, BytesXfered: 2046050304, BytesPerSend: 16384, Sends: 124881, BytesPerRecv: 130712.98, Recvs: 15653, MSS: 65483})
	}}
	m["udp-rr-cpu"] = expect{summary: summary{Form: FormClassic, Test: "UDP_RR", Throughput: &Rate{Value: 131333.33, Unit: UnitTransPerSec}, TransPerSec: f64(131333.33)},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "remote CPU", r.Classic.RR.RemoteCPU, &CPU{UtilPercent: 98.95, ServiceDemand: 15.068, Method: "S"})
		}}
	m["tcp-crr-cpu"] = expect{summary: summary{Form: FormClassic, Test: "TCP_CRR", Throughput: &Rate{Value: 13152.17, Unit: UnitTransPerSec}, TransPerSec: f64(13152.17)},
		check: func(t *testing.T, r *Result) {
			// TCP_CRR's CPU titles have no method letters.
			wantEqual(t, "local CPU", r.Classic.RR.LocalCPU, &CPU{UtilPercent: 88.46, ServiceDemand: 134.517})
			wantEqual(t, "remote CPU", r.Classic.RR.RemoteCPU, &CPU{UtilPercent: 483.19, ServiceDemand: 734.762})
		}}
	m["tcp-maerts-cpu"] = expect{summary: summary{Form: FormClassic, Test: "TCP_MAERTS", Throughput: &Rate{Value: 13311.47, Unit: "10^6bits/s"}, ThroughputMbps: f64(13311.47)},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "remote CPU", r.Classic.Stream.RemoteCPU, &CPU{UtilPercent: 100, ServiceDemand: 1.231, Method: "S"})
		}}

}

// loopbackOmni adds the -k, -o and -O cases.
func loopbackOmni(m map[string]expect) {
	// Omni.
	lat := map[string]string{"MIN_LATENCY": "5", "P50_LATENCY": "6", "P90_LATENCY": "8", "P99_LATENCY": "12", "MAX_LATENCY": "8280", "MEAN_LATENCY": "7.46", "STDDEV_LATENCY": "57.16", "TRANSACTION_RATE": "133171.412", "RT_LATENCY": "7.509", "THROUGHPUT": "133171.41", "THROUGHPUT_UNITS": "Trans/s"}
	m["udp-rr-csv"] = expect{summary: summary{Form: FormCSV, Test: "UDP_RR", Throughput: &Rate{Value: 133171.41, Unit: "Trans/s"}, TransPerSec: f64(133171.412), Omni: lat},
		check: func(t *testing.T, r *Result) { wantSelectorCount(t, r, 11) }}
	m["udp-rr-csv-p0"] = expect{summary: summary{Form: FormCSV},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "values", selectorValues(r), []string{"5", "8", "9", "37", "5191", "9.95", "83.89", "99983.100", "10.002", "99983.10", "Trans/s"})
			// With the -o list, the values get their names.
			named, err := ParseCSV(strings.NewReader(readCase(t, "udp-rr-csv-p0")), strings.Split(lbLatency, ",")...)
			if err != nil {
				t.Fatal(err)
			}
			wantEqual(t, "named", named.Omni.P99LatencyMicros, f64(37))
			wantEqual(t, "trans/s", named.TransPerSec, f64(99983.100))
			wantEqual(t, "throughput", named.Throughput, &Rate{Value: 99983.10, Unit: "Trans/s"})
		}}
	m["tcp-stream-csv-brand"] = expect{summary: summary{Form: FormCSV, Test: "TCP_STREAM", Throughput: &Rate{Value: 12418.41, Unit: "10^6bits/s"}, ThroughputMbps: f64(12418.41),
		Omni: map[string]string{"RESULT_BRAND": "a,b", "COMMAND_LINE": "netperf -H 127.0.0.1 -p 13924 -t TCP_STREAM -l 1 -B a,b -- -o THROUGHPUT,RESULT_BRAND,COMMAND_LINE,LOCAL_FILL_FILE,THROUGHPUT_UNITS", "LOCAL_FILL_FILE": "", "THROUGHPUT_UNITS": "10^6bits/s"}},
		check: func(t *testing.T, r *Result) { wantSelectorCount(t, r, 5) }}
	m["tcp-stream-csv-all"] = expect{summary: summary{Form: FormCSV, Test: "TCP_STREAM", Throughput: &Rate{Value: 13002.72, Unit: "10^6bits/s"}, ThroughputMbps: f64(13002.72),
		Omni: map[string]string{"SOCKET_TYPE": "Stream", "LSS_SIZE_END": "4194304", "REMOTE_CPU_PERCENT_SWINTR": "-nan", "SD_UNITS": "usec/KB", "LOCAL_SEND_CALLS": "99343", "REMOTE_RECV_CALLS": "12433", "P99_LATENCY": "432", "RESULT_BRAND": "", "LOCAL_CONG_CONTROL": "bbr"}},
		warn:  []string{"REMOTE_CPU_PERCENT_SWINTR is -nan"},
		check: func(t *testing.T, r *Result) { wantSelectorCount(t, r, 173) }}
	m["tcp-stream-human-all"] = expect{summary: summary{Form: FormHuman, Test: "TCP_STREAM", Throughput: &Rate{Value: 12696.53, Unit: "10^6bits/s"}, ThroughputMbps: f64(12696.53),
		Omni: map[string]string{"SOCKET_TYPE": "Stream", "LSS_SIZE_END": "4194304", "REMOTE_CPU_PERCENT_SWINTR": "-nan", "LOCAL_SEND_CALLS": "96900", "REMOTE_RECV_CALLS": "12229", "P99_LATENCY": "425", "LOCAL_CONG_CONTROL": "bbr",
			"COMMAND_LINE": "netperf -H 127.0.0.1 -p 13926 -t TCP_STREAM -l 1 -- -O all", "LOCAL_SECURITY_TYPE_ID": "0", "LOCAL_SECURITY_TYPE": "Deprecated"}},
		warn:  []string{"REMOTE_CPU_PERCENT_SWINTR is -nan"},
		check: func(t *testing.T, r *Result) { wantSelectorCount(t, r, 173) }}
	m["tcp-stream-human-blocks"] = expect{summary: summary{Form: FormHuman, Test: "TCP_STREAM", Throughput: &Rate{Value: 12303.01, Unit: "10^6bits/s"}, ThroughputMbps: f64(12303.01),
		Omni: map[string]string{"ELAPSED_TIME": "1.00", "PROTOCOL": "TCP", "COMMAND_LINE": "netperf -H 127.0.0.1 -p 13927 -t TCP_STREAM -l 1 -- -O THROUGHPUT,THROUGHPUT_UNITS;ELAPSED_TIME,PROTOCOL,COMMAND_LINE"}},
		check: func(t *testing.T, r *Result) {
			wantSelectorCount(t, r, 5)
			wantEqual(t, "lines", []int{r.Omni.Selectors[0].Line, r.Omni.Selectors[4].Line}, []int{6, 12})
		}}
	m["tcp-stream-human-p0"] = expect{summary: summary{Form: FormHuman},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "values", selectorValues(r), []string{"12068.49", "10^6bits/s", "TCP"})
			named, err := ParseHuman(strings.NewReader(readCase(t, "tcp-stream-human-p0")), "THROUGHPUT", "THROUGHPUT_UNITS", "PROTOCOL")
			if err != nil {
				t.Fatal(err)
			}
			wantEqual(t, "throughput", named.ThroughputMbps, f64(12068.49))
			wantEqual(t, "protocol", named.Omni.Protocol, "TCP")
		}}
	m["tcp-rr-human-default"] = expect{summary: summary{Form: FormHuman, Test: "TCP_RR", Throughput: &Rate{Value: 120163.26, Unit: "Trans/s"}, TransPerSec: f64(120163.26),
		Omni: map[string]string{"LSS_SIZE_END": "3939840", "LSR_SIZE_END": "262484", "RSR_SIZE_END": "261944", "RSS_SIZE_END": "3939840", "REQUEST_SIZE": "1", "RESPONSE_SIZE": "1", "ELAPSED_TIME": "1.00"}},
		check: func(t *testing.T, r *Result) { wantSelectorCount(t, r, 9) }}
	m["udp-stream-k-all"] = expect{summary: summary{Form: FormKeyVal, Test: "UDP_STREAM", Throughput: &Rate{Value: 1535.67, Unit: "10^6bits/s"}, ThroughputMbps: f64(1535.67),
		UDP:  &UDPStream{Sent: 349527, Received: 137135, SendMbps: f64(3914.08), RecvMbps: f64(1535.67), LossRatio: 0.607655},
		Omni: map[string]string{"PROTOCOL": "UDP", "SOCKET_TYPE": "Datagram", "LOCAL_TRANSPORT_RETRANS": "-1", "LOCAL_BYTES_SENT": "489337800", "REMOTE_BYTES_RECVD": "191989000"}},
		warn:  []string{"REMOTE_CPU_PERCENT_SWINTR is -nan"},
		check: func(t *testing.T, r *Result) { wantSelectorCount(t, r, 172) }}
	// Asked 64M with net.core.rmem_max and wmem_max at 4194304 on the
	// capturing host: each socket got twice the cap.
	clamped := func(side string) SocketBuffer {
		return SocketBuffer{Side: side, AskedBytes: 67108864, GotBytes: 8388608, Clamped: true, CapBytes: 4194304}
	}
	m["udp-stream-sockbuf-clamp"] = expect{summary: summary{Form: FormKeyVal, Test: "UDP_STREAM", Throughput: &Rate{Value: 492.09, Unit: "10^6bits/s"}, ThroughputMbps: f64(492.09),
		UDP: &UDPStream{Sent: 83959, Received: 83959, RecvMbps: f64(492.09), LossRatio: 0}},
		warn: []string{"line 10: local send socket buffer clamped: asked 67108864 bytes, got 8388608 where a granted buffer reads back 134217728 (twice the request): net.core.wmem_max is 4194304 on netperf's host",
			"line 11: local recv socket buffer clamped", "line 12: remote send socket buffer clamped",
			"line 13: remote recv socket buffer clamped: asked 67108864 bytes, got 8388608 where a granted buffer reads back 134217728 (twice the request): net.core.rmem_max is 4194304 on netserver's host"},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "socket buffers", r.SocketBuffers, []SocketBuffer{clamped("local send"), clamped("local recv"), clamped("remote send"), clamped("remote recv")})
		}}
	// Asked 1M under the caps: Linux doubled each to 2M.
	m["udp-stream-sockbuf-ok"] = expect{summary: summary{Form: FormKeyVal, Test: "UDP_STREAM", Throughput: &Rate{Value: 464.36, Unit: "10^6bits/s"}, ThroughputMbps: f64(464.36),
		UDP: &UDPStream{Sent: 49087, Received: 41626, RecvMbps: f64(464.36), LossRatio: 1 - 41626.0/49087}},
		check: func(t *testing.T, r *Result) {
			for _, b := range r.SocketBuffers {
				if b.Clamped || b.AskedBytes != 1048576 || b.GotBytes != 2097152 {
					t.Errorf("%+v", b)
				}
			}
			if len(r.SocketBuffers) != 4 {
				t.Errorf("%d socket buffers", len(r.SocketBuffers))
			}
		}}
	m["tcp-stream-k-cpu"] = expect{summary: summary{Form: FormKeyVal, Test: "TCP_STREAM", Throughput: &Rate{Value: 14385.43, Unit: "10^6bits/s"}, ThroughputMbps: f64(14385.43),
		Omni: map[string]string{"LOCAL_CPU_METHOD": "S", "SD_UNITS": "usec/KB"}},
		check: func(t *testing.T, r *Result) {
			o := r.Omni
			wantEqual(t, "CPU", []*float64{o.LocalCPUUtilPercent, o.RemoteCPUUtilPercent, o.LocalServiceDemand, o.RemoteServiceDemand}, []*float64{f64(100), f64(100), f64(1.139), f64(1.139)})
			wantEqual(t, "SD units", o.ServiceDemandUnits, "usec/KB")
		}}

}

// loopbackDemoAndFailures adds the demo-mode (-D) and confidence cases,
// and netperf's failures.
func loopbackDemoAndFailures(m map[string]expect, stream func(float64, Unit, float64) summary) {
	// Demo mode.
	m["tcp-stream-demo"] = expect{summary: stream(14474.66, unitM, 14474.66), check: func(t *testing.T, r *Result) {
		wantEqual(t, "interims", r.Interims, []Interim{
			{Value: 13441.39, Unit: "10^6bits/s", IntervalSec: 0.331, EndingUnixSec: 1795974172.531},
			{Value: 13303.31, Unit: "10^6bits/s", IntervalSec: 0.399, EndingUnixSec: 1795974172.930},
			{Value: 17546.19, Unit: "10^6bits/s", IntervalSec: 0.270, EndingUnixSec: 1795974173.200},
		})
	}}
	m["tcp-stream-demo-k"] = expect{summary: summary{Form: FormKeyVal, Test: "TCP_STREAM", Throughput: &Rate{Value: 14810.53, Unit: "10^6bits/s"}, ThroughputMbps: f64(14810.53)},
		check: func(t *testing.T, r *Result) {
			wantSelectorCount(t, r, 2)
			wantEqual(t, "interims", r.Interims, []Interim{
				{Value: 16218.95, Unit: "10^6bits/s", IntervalSec: 0.778, EndingUnixSec: 1795974174.087},
				{Value: 10026.82, Unit: "10^6bits/s", IntervalSec: 0.225, EndingUnixSec: 1795974174.312},
			})
		}}
	m["tcp-stream-demo-csv"] = expect{summary: summary{Form: FormCSV, Test: "TCP_STREAM", Throughput: &Rate{Value: 10329.64, Unit: "10^6bits/s"}, ThroughputMbps: f64(10329.64)},
		check: func(t *testing.T, r *Result) {
			wantSelectorCount(t, r, 2)
			wantEqual(t, "interims", r.Interims, []Interim{{Value: 10333.55, Unit: "10^6bits/s", IntervalSec: 1.002, EndingUnixSec: 1795974175.412}})
		}}
	m["tcp-stream-demo-human"] = expect{summary: summary{Form: FormHuman, Test: "TCP_STREAM", Throughput: &Rate{Value: 7965.96, Unit: "10^6bits/s"}, ThroughputMbps: f64(7965.96)},
		check: func(t *testing.T, r *Result) {
			wantSelectorCount(t, r, 2)
			wantEqual(t, "interims", r.Interims, []Interim{
				{Value: 8133.56, Unit: "10^6bits/s", IntervalSec: 0.954, EndingUnixSec: 1795974176.470},
				{Value: 4563.84, Unit: "10^6bits/s", IntervalSec: 0.046, EndingUnixSec: 1795974176.517},
			})
		}}
	m["confidence-p0-v0"] = expect{summary: summary{Form: FormClassic},
		warn: []string{"desired confidence was not achieved", "-v 0 without a banner"},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "confidence", r.Confidence, &Confidence{ThroughputWidthPercent: f64(187.528), LocalCPUWidthPercent: f64(0), RemoteCPUWidthPercent: f64(0)})
			wantEqual(t, "terse", r.Classic.Terse, &Terse{Value: 10877.32})
		}}

	// Failures, and the bad test-specific option that does not fail.
	m["bad-test-option"] = expect{summary: stream(5643.33, unitM, 5643.33), warn: []string{"invalid option -- 'X'"}}
	m["bad-option"] = expect{summary: summary{Form: FormError, Kind: KindBadOption}}
	m["missing-argument"] = expect{summary: summary{Form: FormError, Kind: KindBadOption}}
	m["resolve"] = expect{summary: summary{Form: FormError, Kind: KindResolve}}
	m["selector-file"] = expect{summary: summary{Form: FormError, Kind: KindBadOption}}
	m["confidence-level"] = expect{summary: summary{Form: FormError, Kind: KindBadOption}}
	m["message-too-long"] = expect{summary: summary{Form: FormError, Test: "UDP_STREAM", Kind: KindDataSend}}
	m["server-killed"] = expect{summary: summary{Form: FormError, Test: "TCP_STREAM", Kind: KindControlLost}}
	m["version"] = expect{summary: summary{Form: FormVersion, Version: "2.7.0"}}
}

func selectorValues(r *Result) []string {
	var vs []string
	for _, s := range r.Omni.Selectors {
		vs = append(vs, s.Value)
	}
	return vs
}

func readCase(t *testing.T, name string) string {
	t.Helper()
	for _, fx := range loadFixtures(t) {
		if fx.key == "loopback/"+name {
			return string(fx.input)
		}
	}
	t.Fatalf("no loopback case %s", name)
	return ""
}
