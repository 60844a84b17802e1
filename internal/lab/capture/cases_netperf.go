package capture

import (
	"cmp"
	"strconv"
	"time"
)

// netperfRow is one netperf case: netserver -D -p PORT in nsB, and
// "netperf -H 198.18.2.2 -p PORT ARGS" in nsA, so that the traffic crosses the two NICs.
type netperfRow struct {
	name     string
	port     int
	args     string
	noServer bool
	expect   Expect
	// timeout bounds netperf; 0 means netperfTimeout.
	timeout time.Duration
	note    string
}

const (
	netperfTimeout    = 30 * time.Second
	netperfConfidence = 60 * time.Second
	// netserverStopGrace is how long netserver gets to exit after SIGTERM.
	netserverStopGrace = 3 * time.Second
)

// Selector lists for the omni output cases.
const (
	udpLossSelectors    = "THROUGHPUT,THROUGHPUT_UNITS,LOCAL_SEND_CALLS,REMOTE_RECV_CALLS,LOCAL_BYTES_SENT,REMOTE_BYTES_RECVD,LOCAL_SEND_THROUGHPUT,REMOTE_RECV_THROUGHPUT"
	rrLatencySelectors  = "MIN_LATENCY,P50_LATENCY,P90_LATENCY,P99_LATENCY,MAX_LATENCY,MEAN_LATENCY,STDDEV_LATENCY,TRANSACTION_RATE,RT_LATENCY,THROUGHPUT,THROUGHPUT_UNITS"
	streamSelectors     = "THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME,LSS_SIZE_END,RSR_SIZE_END,LOCAL_SEND_SIZE,PROTOCOL,DIRECTION"
	confidenceSelectors = "THROUGHPUT,THROUGHPUT_UNITS,CONFIDENCE_LEVEL,CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,THROUGHPUT_CONFID,LOCAL_CPU_CONFID,REMOTE_CPU_CONFID"
)

func netperfRows() []netperfRow {
	return []netperfRow{
		{name: "tcp-stream", port: 12866, args: "-t TCP_STREAM -l 2", note: "classic TCP_STREAM table (MIGRATED banner, 10^6bits/sec)"},
		{name: "tcp-maerts", port: 12867, args: "-t TCP_MAERTS -l 2", note: "classic TCP_MAERTS table"},
		{name: "udp-stream", port: 12868, args: "-t UDP_STREAM -l 2 -- -m 1400 -s 2M -S 2M", note: "UDP_STREAM -m 1400 with 2M socket buffers: two data lines, send side then receive side"},
		{name: "udp-stream-loss", port: 12869, args: "-t UDP_STREAM -l 2 -- -m 8000 -S 4096", note: "UDP_STREAM with fragmented 8000-byte messages into a tiny receive buffer: the receive line shows loss"},
		{name: "udp-stream-default", port: 12870, args: "-t UDP_STREAM -l 2", note: "UDP_STREAM with the default 65507-byte messages (IP-fragmented)"},
		{name: "tcp-rr", port: 12871, args: "-t TCP_RR -l 2", note: "classic TCP_RR table with its second line (remote socket sizes)"},
		{name: "udp-rr", port: 12872, args: "-t UDP_RR -l 2", note: "classic UDP_RR table"},
		{name: "tcp-crr", port: 12873, args: "-t TCP_CRR -l 2", note: "classic TCP_CRR table (no brand)"},
		{name: "tcp-stream-p0", port: 12874, args: "-P 0 -t TCP_STREAM -l 2", note: "-P 0: no banner and no column titles, data line only"},
		{name: "tcp-stream-v2", port: 12875, args: "-t TCP_STREAM -l 2 -v 2", note: "-v 2: alignment/offset block and MSS"},
		{name: "tcp-stream-k-all", port: 12876, args: "-t TCP_STREAM -l 2 -- -k all", note: "omni -k all: every selector as KEY=value, banner kept"},
		{name: "udp-stream-k", port: 12877, args: "-P 0 -t UDP_STREAM -l 2 -- -m 1400 -k " + udpLossSelectors, note: "omni -k with the UDP loss selectors (sent vs received calls), -P 0"},
		{name: "tcp-rr-k-latency", port: 12878, args: "-P 0 -t TCP_RR -l 2 -- -k " + rrLatencySelectors, note: "omni -k with latency selectors (integer usec percentiles)"},
		{name: "tcp-rr-csv", port: 12879, args: "-t TCP_RR -l 2 -- -o " + rrLatencySelectors, note: "omni -o: CSV header line and one value line"},
		{name: "tcp-stream-human", port: 12880, args: "-t TCP_STREAM -l 2 -- -O " + streamSelectors, note: "omni -O: human columns"},
		{name: "omni", port: 12881, args: "-t OMNI -l 2", note: "-t OMNI with no selectors: OMNI Send TEST banner and -O style default output"},
		{name: "tcp-stream-confidence", port: 12882, args: "-t TCP_STREAM -l 1 -i 3,3 -I 99,5", timeout: netperfConfidence, note: "confidence -i 3,3 -I 99,5: banner with +/- conf., maybe the !!! WARNING block"},
		{name: "tcp-stream-confidence-k", port: 12883, args: "-P 0 -t TCP_STREAM -l 1 -i 3,3 -I 99,5 -- -k " + confidenceSelectors, timeout: netperfConfidence, note: "confidence selectors in omni -k output (no !!! block)"},
		{name: "tcp-stream-cpu", port: 12884, args: "-t TCP_STREAM -l 2 -c -C", note: "-c -C: local and remote CPU utilisation and service demand columns"},
		{name: "tcp-rr-cpu", port: 12885, args: "-t TCP_RR -l 2 -c -C", note: "TCP_RR with -c -C (us/Tr)"},
		{name: "udp-stream-cpu", port: 12886, args: "-t UDP_STREAM -l 2 -c -C -- -m 1400", note: "UDP_STREAM with -c -C"},
		{name: "bad-test", port: 12887, args: "-t TCP_FOO -l 2", expect: ExpectFail, note: "expected failure: unknown test name, checked after the control connection (exit 1)"},
		{name: "noserver", port: 12888, args: "-t TCP_STREAM -l 2", noServer: true, expect: ExpectFail, note: "expected failure: no netserver on the port, establish control: are you sure there is a netserver listening (exit 255)"},
	}
}

// netperfSpecs turns the rows into specs and adds the version case.
func netperfSpecs() []Spec {
	return specsOf(netperfRows(), Spec{
		Group: GroupNetperf, Name: "version", Tool: "netperf", Expect: ExpectOK,
		Note:  "netperf -V",
		Steps: []Step{{Run: &Command{Role: RoleCmd, Argv: []string{"netperf", "-V"}, Timeout: 10 * time.Second}}},
	})
}

func (r netperfRow) spec() Spec {
	timeout := cmp.Or(r.timeout, netperfTimeout)
	expect := cmp.Or(r.expect, ExpectOK)
	port := strconv.Itoa(r.port)
	client := append([]string{"netperf", "-H", NetperfBAddr, "-p", port}, fields(r.args)...)
	pair := &Pair{
		Client:     Command{Role: RoleClient, Argv: client, Netns: NetnsA, Stdbuf: true, Timeout: timeout},
		Port:       r.port,
		Ready:      ReadyTCPListen,
		StopServer: true,
	}
	if !r.noServer {
		pair.Server = &Command{
			Role: RoleServer, Argv: []string{"netserver", "-D", "-p", port},
			Netns: NetnsB, Stdbuf: true, Timeout: 2*timeout + netserverStopGrace,
		}
	}
	return Spec{
		Group: GroupNetperf, Name: r.name, Tool: "netperf", Note: r.note, Expect: expect,
		Needs: []Phase{PhaseNetns},
		Steps: []Step{{Pair: pair}},
	}
}
