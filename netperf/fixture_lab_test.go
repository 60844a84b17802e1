package netperf

import "testing"

// labExpectations are the values printed in ../testdata/{bookworm,trixie}/
// netperf (netperf 2.7.0-0.1 and 2.7.0+git20210121 in the lab's guests),
// read by hand from each case's client.stdout.
func labExpectations() map[string]expect {
	m := map[string]expect{}
	const enobufs = "enable_enobufs failed: getprotobyname"
	for _, s := range []struct {
		suite   string
		version string
		enobufs []string // bookworm's netperf prints "enable_enobufs failed" in UDP tests
	}{{"bookworm", "2.7.0", []string{enobufs}}, {"trixie", "2.7.1", nil}} {
		for name, e := range labSuite(s.suite, s.enobufs) {
			m[s.suite+"/"+name] = e
		}
		m[s.suite+"/version"] = expect{summary: summary{Form: FormVersion, Version: s.version}}
		m[s.suite+"/noserver"] = expect{summary: summary{Form: FormError, Kind: KindNoServer}}
		m[s.suite+"/bad-test"] = expect{summary: summary{Form: FormError, Kind: KindUnknownTest}}
	}
	return m
}

// labValues are the numbers that differ between the two suites' captures.
type labValues struct {
	stream, maerts, p0, v2, cpu, confidence float64
	v2Detail                                StreamDetail
	cpuCols                                 [4]float64 // local/remote util, local/remote SD
	confWidth                               float64
	udp, udpLoss, udpDefault, udpCPU        [4]float64 // sent, received, send and receive throughput
	udpCPUCols                              [4]float64 // send util, send SD, recv util, recv SD
	rr, udpRR, crr, rrCPU                   float64
	rrCPUCols                               [4]float64
	csv, kLat                               map[string]string
	csvRate, kRate                          float64
	udpK                                    [4]float64 // LOCAL_SEND_CALLS, REMOTE_RECV_CALLS, LOCAL_SEND_THROUGHPUT, REMOTE_RECV_THROUGHPUT
	confK, confKWidth                       float64
	human, omni                             map[string]string
	humanTput, omniTput                     float64
	kAll                                    map[string]string
	kAllTput                                float64
	loss                                    map[string]float64
}

var labNumbers = map[string]labValues{
	"bookworm": {
		stream: 100.59, maerts: 94.41, p0: 51.09, v2: 72.16, cpu: 71.38, confidence: 44.60,
		v2Detail:   StreamDetail{LocalSendAlign: 8, RemoteRecvAlign: 8, BytesXfered: 18890752, BytesPerSend: 16384, Sends: 1153, BytesPerRecv: 51333.57, Recvs: 368, MSS: 1448},
		cpuCols:    [4]float64{29.73, 29.26, 136.523, 134.349},
		confWidth:  472.021,
		udp:        [4]float64{16614, 15990, 92.12, 88.66},
		udpLoss:    [4]float64{2330, 556, 74.11, 17.68},
		udpDefault: [4]float64{579, 521, 151.38, 136.22},
		udpCPU:     [4]float64{18283, 15795, 101.8, 87.9},
		udpCPUCols: [4]float64{34.14, 109.912, 34.21, 110.148},
		rr:         308.46, udpRR: 347.89, crr: 79.35, rrCPU: 396.89,
		rrCPUCols: [4]float64{17.12, 17.24, 1725.815, 1737.018},
		csv:       map[string]string{"MIN_LATENCY": "437", "P50_LATENCY": "935", "P90_LATENCY": "5033", "P99_LATENCY": "23500", "MAX_LATENCY": "139760", "MEAN_LATENCY": "2601.48", "STDDEV_LATENCY": "7738.45", "TRANSACTION_RATE": "380.604", "RT_LATENCY": "2627.406", "THROUGHPUT": "380.60", "THROUGHPUT_UNITS": "Trans/s"},
		csvRate:   380.604,
		kLat:      map[string]string{"MIN_LATENCY": "546", "P50_LATENCY": "8400", "P90_LATENCY": "26500", "P99_LATENCY": "84000", "MAX_LATENCY": "100416", "MEAN_LATENCY": "13107.78", "STDDEV_LATENCY": "16819.50", "TRANSACTION_RATE": "75.497", "RT_LATENCY": "13245.613", "THROUGHPUT": "75.50", "THROUGHPUT_UNITS": "Trans/s"},
		kRate:     75.497,
		udpK:      [4]float64{14362, 11524, 75.51, 60.59},
		confK:     51.16, confKWidth: 205.923,
		human:     map[string]string{"THROUGHPUT": "98.29", "THROUGHPUT_UNITS": "10^6bits/s", "ELAPSED_TIME": "2.36", "LSS_SIZE_END": "3403264", "RSR_SIZE_END": "2566240", "LOCAL_SEND_SIZE": "16384", "PROTOCOL": "TCP", "DIRECTION": "Send"},
		humanTput: 98.29,
		omni:      map[string]string{"LSS_SIZE_END": "2437120", "RSR_SIZE_END": "3503216", "LOCAL_SEND_SIZE": "16384", "ELAPSED_TIME": "2.01", "THROUGHPUT": "83.90", "THROUGHPUT_UNITS": "10^6bits/s"},
		omniTput:  83.90,
		kAll:      map[string]string{"PROTOCOL": "TCP", "THROUGHPUT": "51.26", "LOCAL_CPU_UTIL": "-1.00", "REMOTE_CPU_PERCENT_SWINTR": "-nan", "TRANSACTION_RATE": "1.000", "RT_LATENCY": "-1.000", "LOCAL_SEND_CALLS": "787", "REMOTE_RECV_CALLS": "412", "P99_LATENCY": "55000", "LOCAL_CONG_CONTROL": "cubic", "COMMAND_LINE": "netperf -H 198.18.2.2 -p 12876 -t TCP_STREAM -l 2 -- -k all", "LOCAL_FILL_FILE": ""},
		kAllTput:  51.26,
		loss:      map[string]float64{"udp-stream": 0.037559, "udp-stream-loss": 0.761373, "udp-stream-default": 0.100173, "udp-stream-cpu": 0.136083, "udp-stream-k": 0.197605},
	},
	"trixie": {
		stream: 158.60, maerts: 123.38, p0: 294.11, v2: 245.97, cpu: 138.14, confidence: 142.59,
		v2Detail:   StreamDetail{LocalSendAlign: 8, RemoteRecvAlign: 8, BytesXfered: 63930368, BytesPerSend: 16384, Sends: 3902, BytesPerRecv: 77024.54, Recvs: 830, MSS: 1448},
		cpuCols:    [4]float64{39.26, 39.12, 93.159, 92.837},
		confWidth:  263.311,
		udp:        [4]float64{44656, 36120, 249.00, 201.40},
		udpLoss:    [4]float64{6270, 1838, 196.55, 57.62},
		udpDefault: [4]float64{1242, 183, 325.10, 47.90},
		udpCPU:     [4]float64{18149, 11056, 100.5, 61.2},
		udpCPUCols: [4]float64{27.84, 90.742, 27.90, 90.927},
		rr:         297.88, udpRR: 249.30, crr: 125.54, rrCPU: 473.29,
		rrCPUCols: [4]float64{21.64, 21.87, 1828.866, 1848.201},
		csv:       map[string]string{"MIN_LATENCY": "372", "P50_LATENCY": "741", "P90_LATENCY": "2714", "P99_LATENCY": "6400", "MAX_LATENCY": "22104", "MEAN_LATENCY": "1198.20", "STDDEV_LATENCY": "1414.83", "TRANSACTION_RATE": "830.725", "RT_LATENCY": "1203.767", "THROUGHPUT": "830.73", "THROUGHPUT_UNITS": "Trans/s"},
		csvRate:   830.725,
		kLat:      map[string]string{"MIN_LATENCY": "329", "P50_LATENCY": "908", "P90_LATENCY": "4750", "P99_LATENCY": "11666", "MAX_LATENCY": "71502", "MEAN_LATENCY": "2113.17", "STDDEV_LATENCY": "3920.06", "TRANSACTION_RATE": "470.148", "RT_LATENCY": "2126.988", "THROUGHPUT": "470.15", "THROUGHPUT_UNITS": "Trans/s"},
		kRate:     470.148,
		udpK:      [4]float64{40409, 31017, 224.68, 172.46},
		confK:     158.54, confKWidth: 91.783,
		human:     map[string]string{"THROUGHPUT": "173.38", "THROUGHPUT_UNITS": "10^6bits/s", "ELAPSED_TIME": "2.20", "LSS_SIZE_END": "4194304", "RSR_SIZE_END": "3745902", "LOCAL_SEND_SIZE": "16384", "PROTOCOL": "TCP", "DIRECTION": "Send"},
		humanTput: 173.38,
		omni:      map[string]string{"LSS_SIZE_END": "4194304", "RSR_SIZE_END": "6291456", "LOCAL_SEND_SIZE": "16384", "ELAPSED_TIME": "2.11", "THROUGHPUT": "230.76", "THROUGHPUT_UNITS": "10^6bits/s"},
		omniTput:  230.76,
		kAll:      map[string]string{"PROTOCOL": "TCP", "THROUGHPUT": "215.03", "LOCAL_CPU_UTIL": "-1.00", "REMOTE_CPU_PERCENT_SWINTR": "-nan", "TRANSACTION_RATE": "1.000", "RT_LATENCY": "-1.000", "LOCAL_SEND_CALLS": "3498", "REMOTE_RECV_CALLS": "791", "P99_LATENCY": "8700", "LOCAL_CONG_CONTROL": "cubic", "COMMAND_LINE": "netperf -H 198.18.2.2 -p 12876 -t TCP_STREAM -l 2 -- -k all", "LOCAL_FILL_FILE": ""},
		kAllTput:  215.03,
		loss:      map[string]float64{"udp-stream": 0.191150, "udp-stream-loss": 0.706858, "udp-stream-default": 0.852657, "udp-stream-cpu": 0.390820, "udp-stream-k": 0.232423},
	},
}

const unitM = Unit("10^6bits/sec")

// labSuite builds one suite's expectations from its numbers.
func labSuite(suite string, enobufs []string) map[string]expect {
	v := labNumbers[suite]
	m := map[string]expect{}
	stream := func(test string, tput float64, u Unit) summary {
		r, mb := mbps(tput, u)
		return summary{Form: FormClassic, Test: test, Throughput: r, ThroughputMbps: mb}
	}
	m["tcp-stream"] = expect{summary: stream("TCP_STREAM", v.stream, unitM), check: func(t *testing.T, r *Result) {
		c := wantRows(t, r, TableStream, unitM, true)
		wantEqual(t, "row", *c.Stream, StreamRow{RecvSocketBytes: 131072, SendSocketBytes: 16384, SendMessageBytes: 16384, ElapsedSec: map[string]float64{"bookworm": 2.10, "trixie": 2.04}[suite], Throughput: v.stream})
	}}
	m["tcp-maerts"] = expect{summary: stream("TCP_MAERTS", v.maerts, unitM)}
	p0 := stream("", v.p0, unitM)
	p0.Throughput.Assumed = true
	m["tcp-stream-p0"] = expect{summary: p0, warn: []string{"no unit printed (-P 0): assumed 10^6bits/sec"}, check: func(t *testing.T, r *Result) {
		wantRows(t, r, TableStream, unitM, false)
	}}
	m["tcp-stream-v2"] = expect{summary: stream("TCP_STREAM", v.v2, unitM), check: func(t *testing.T, r *Result) {
		c := wantRows(t, r, TableStream, unitM, true)
		wantEqual(t, "-v 2 detail", c.StreamDetail, &v.v2Detail)
	}}
	m["tcp-stream-cpu"] = expect{summary: stream("TCP_STREAM", v.cpu, "10^6bits/s"), check: func(t *testing.T, r *Result) {
		c := wantRows(t, r, TableStream, "10^6bits/s", true)
		wantEqual(t, "local CPU", c.Stream.LocalCPU, &CPU{UtilPercent: v.cpuCols[0], ServiceDemand: v.cpuCols[2], Method: "S"})
		wantEqual(t, "remote CPU", c.Stream.RemoteCPU, &CPU{UtilPercent: v.cpuCols[1], ServiceDemand: v.cpuCols[3], Method: "S"})
		wantEqual(t, "SD unit", c.ServiceDemandUnit, "us/KB")
	}}
	m["tcp-stream-confidence"] = expect{summary: stream("TCP_STREAM", v.confidence, unitM),
		warn: []string{"desired confidence was not achieved"},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "confidence", r.Confidence, &Confidence{LevelPercent: 99, TargetWidthPercent: 5,
				ThroughputWidthPercent: f64(v.confWidth), LocalCPUWidthPercent: f64(0), RemoteCPUWidthPercent: f64(0)})
		}}

	udp := func(name string, n [4]float64, extra []string) expect {
		r, mb := mbps(n[3], unitM)
		return expect{
			summary: summary{Form: FormClassic, Test: "UDP_STREAM", Throughput: r, ThroughputMbps: mb,
				UDP: &UDPStream{Sent: uint64(n[0]), Received: uint64(n[1]), SendErrors: u64(0), SendMbps: f64(n[2]), RecvMbps: f64(n[3]), LossRatio: v.loss[name]}},
			warn: extra,
		}
	}
	m["udp-stream"] = udp("udp-stream", v.udp, enobufs)
	m["udp-stream-loss"] = udp("udp-stream-loss", v.udpLoss, enobufs)
	m["udp-stream-default"] = udp("udp-stream-default", v.udpDefault, enobufs)
	cpu := udp("udp-stream-cpu", v.udpCPU, enobufs)
	cpu.check = func(t *testing.T, r *Result) {
		c := wantRows(t, r, TableUDPStream, unitM, true)
		wantEqual(t, "send CPU", c.UDPSend.CPU, &CPU{UtilPercent: v.udpCPUCols[0], ServiceDemand: v.udpCPUCols[1], Method: "S"})
		wantEqual(t, "recv CPU", c.UDPRecv.CPU, &CPU{UtilPercent: v.udpCPUCols[2], ServiceDemand: v.udpCPUCols[3], Method: "S"})
		wantEqual(t, "message size", c.UDPSend.MessageBytes, 1400)
	}
	m["udp-stream-cpu"] = cpu

	rr := func(test string, rate float64) summary {
		return summary{Form: FormClassic, Test: test, Throughput: &Rate{Value: rate, Unit: UnitTransPerSec}, TransPerSec: f64(rate)}
	}
	m["tcp-rr"] = expect{summary: rr("TCP_RR", v.rr), check: func(t *testing.T, r *Result) {
		c := wantRows(t, r, TableRR, UnitTransPerSec, true)
		wantEqual(t, "row", *c.RR, RRRow{LocalSendSocketBytes: 16384, LocalRecvSocketBytes: 131072, RequestBytes: 1, ResponseBytes: 1,
			ElapsedSec: map[string]float64{"bookworm": 2.01, "trixie": 2.00}[suite], Rate: v.rr, RemoteSendSocketBytes: 16384, RemoteRecvSocketBytes: 131072})
	}}
	m["udp-rr"] = expect{summary: rr("UDP_RR", v.udpRR), check: func(t *testing.T, r *Result) {
		c := wantRows(t, r, TableRR, UnitTransPerSec, true)
		wantEqual(t, "remote sockets", [2]int{c.RR.RemoteSendSocketBytes, c.RR.RemoteRecvSocketBytes}, [2]int{212992, 212992})
	}}
	m["tcp-crr"] = expect{summary: rr("TCP_CRR", v.crr)}
	m["tcp-rr-cpu"] = expect{summary: rr("TCP_RR", v.rrCPU), check: func(t *testing.T, r *Result) {
		c := wantRows(t, r, TableRR, UnitTransPerSec, true)
		wantEqual(t, "local CPU", c.RR.LocalCPU, &CPU{UtilPercent: v.rrCPUCols[0], ServiceDemand: v.rrCPUCols[2], Method: "S"})
		wantEqual(t, "remote CPU", c.RR.RemoteCPU, &CPU{UtilPercent: v.rrCPUCols[1], ServiceDemand: v.rrCPUCols[3], Method: "S"})
		wantEqual(t, "SD unit", c.ServiceDemandUnit, "us/Tr")
	}}

	labOmni(m, v, enobufs)
	return m
}

// labOmni adds the omni cases (-k, -o, -O, -t OMNI) of a suite.
func labOmni(m map[string]expect, v labValues, enobufs []string) {
	m["tcp-rr-csv"] = expect{summary: summary{Form: FormCSV, Test: "TCP_RR",
		Throughput: &Rate{Value: parseF(v.csv["THROUGHPUT"]), Unit: "Trans/s"}, TransPerSec: f64(v.csvRate), Omni: v.csv},
		check: func(t *testing.T, r *Result) {
			wantSelectorCount(t, r, 11)
			o := r.Omni
			wantEqual(t, "latencies", []*float64{o.MinLatencyMicros, o.P50LatencyMicros, o.P90LatencyMicros, o.P99LatencyMicros, o.MaxLatencyMicros, o.MeanLatencyMicros, o.StddevLatencyMicros, o.RTLatencyMicros},
				[]*float64{f64(parseF(v.csv["MIN_LATENCY"])), f64(parseF(v.csv["P50_LATENCY"])), f64(parseF(v.csv["P90_LATENCY"])), f64(parseF(v.csv["P99_LATENCY"])),
					f64(parseF(v.csv["MAX_LATENCY"])), f64(parseF(v.csv["MEAN_LATENCY"])), f64(parseF(v.csv["STDDEV_LATENCY"])), f64(parseF(v.csv["RT_LATENCY"]))})
			wantEqual(t, "header of P99_LATENCY", o.Selectors[3].Header, "99th Percentile Latency Microseconds")
		}}
	m["tcp-rr-k-latency"] = expect{summary: summary{Form: FormKeyVal,
		Throughput: &Rate{Value: parseF(v.kLat["THROUGHPUT"]), Unit: "Trans/s"}, TransPerSec: f64(v.kRate), Omni: v.kLat},
		check: func(t *testing.T, r *Result) {
			wantSelectorCount(t, r, 11)
			wantEqual(t, "P99", r.Omni.P99LatencyMicros, f64(parseF(v.kLat["P99_LATENCY"])))
		}}
	udpK := expect{summary: summary{Form: FormKeyVal,
		Throughput: &Rate{Value: v.udpK[3], Unit: "10^6bits/s"}, ThroughputMbps: f64(v.udpK[3]),
		UDP: &UDPStream{Sent: uint64(v.udpK[0]), Received: uint64(v.udpK[1]), SendMbps: f64(v.udpK[2]), RecvMbps: f64(v.udpK[3]), LossRatio: v.loss["udp-stream-k"]}},
		warn: enobufs,
		check: func(t *testing.T, r *Result) {
			wantSelectorCount(t, r, 8)
			wantEqual(t, "calls", []*uint64{r.Omni.LocalSendCalls, r.Omni.RemoteRecvCalls}, []*uint64{u64(uint64(v.udpK[0])), u64(uint64(v.udpK[1]))})
			if r.Omni.LocalBytesSent == nil || r.Omni.RemoteBytesReceived == nil || *r.Omni.LocalBytesSent != 1400*uint64(v.udpK[0]) || *r.Omni.RemoteBytesReceived != 1400*uint64(v.udpK[1]) {
				t.Errorf("bytes sent/received %v %v, want 1400 × the calls", r.Omni.LocalBytesSent, r.Omni.RemoteBytesReceived)
			}
		}}
	m["udp-stream-k"] = udpK
	m["tcp-stream-confidence-k"] = expect{summary: summary{Form: FormKeyVal,
		Throughput: &Rate{Value: v.confK, Unit: "10^6bits/s"}, ThroughputMbps: f64(v.confK)},
		warn: []string{"desired confidence was not achieved: THROUGHPUT_CONFID"},
		check: func(t *testing.T, r *Result) {
			wantEqual(t, "confidence", r.Confidence, &Confidence{LevelPercent: 99, TargetWidthPercent: 5, Iterations: 3,
				ThroughputWidthPercent: f64(v.confKWidth), LocalCPUWidthPercent: f64(0), RemoteCPUWidthPercent: f64(0)})
		}}
	m["tcp-stream-human"] = expect{summary: summary{Form: FormHuman, Test: "TCP_STREAM",
		Throughput: &Rate{Value: v.humanTput, Unit: "10^6bits/s"}, ThroughputMbps: f64(v.humanTput), Omni: v.human},
		check: func(t *testing.T, r *Result) { wantSelectorCount(t, r, 8) }}
	m["omni"] = expect{summary: summary{Form: FormHuman, Test: "OMNI",
		Throughput: &Rate{Value: v.omniTput, Unit: "10^6bits/s"}, ThroughputMbps: f64(v.omniTput), Omni: v.omni},
		check: func(t *testing.T, r *Result) {
			wantSelectorCount(t, r, 6)
			wantEqual(t, "banner direction", r.Banner.Direction, "Send")
		}}
	m["tcp-stream-k-all"] = expect{summary: summary{Form: FormKeyVal, Test: "TCP_STREAM",
		Throughput: &Rate{Value: v.kAllTput, Unit: "10^6bits/s"}, ThroughputMbps: f64(v.kAllTput), Omni: v.kAll},
		warn: []string{"REMOTE_CPU_PERCENT_SWINTR is -nan"},
		check: func(t *testing.T, r *Result) {
			wantSelectorCount(t, r, 172)
			o := r.Omni
			if o.LocalCPUUtilPercent != nil || o.RTLatencyMicros != nil {
				t.Errorf("-1 (not measured) must leave LOCAL_CPU_UTIL and RT_LATENCY nil: %v %v", o.LocalCPUUtilPercent, o.RTLatencyMicros)
			}
			if o.Protocol != "TCP" || o.SocketType != "Stream" || o.Direction != "Send" {
				t.Errorf("protocol %q socket %q direction %q", o.Protocol, o.SocketType, o.Direction)
			}
		}}
}

func parseF(s string) float64 {
	v, _, _ := parseNumber(s)
	return v
}
