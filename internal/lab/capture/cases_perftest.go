package capture

import (
	"cmp"
	"strconv"
	"time"
)

// perftestRow is one perftest pair of the table. Both sides get
// "TOOL -d DEV -x GID -F ARGS -p PORT", the client SERVER_ONLY/CLIENT_ONLY and the address
// of rxe0 last. Single-host perftest works because server and client use the same rxe0 and
// the client connects to rxe0's own address, which rxe loops back.
type perftestRow struct {
	name string
	tool string
	port int
	// args go to both sides.
	args string
	// serverOnly and clientOnly break the symmetry on purpose (mismatch cases) or add
	// per-side options (--out_json on the client).
	serverOnly, clientOnly string
	// device and gid replace "rxe0" and the GID placeholder (failure cases).
	device, gid string
	// noServer runs the client alone.
	noServer bool
	// stopAfter runs the client under "timeout --preserve-status -s INT N" (the server gets
	// stopAfter+serverStopLag): --run_infinitely ends only on a signal.
	stopAfter time.Duration
	ready     Readiness
	expect    Expect
	// timeout bounds the client and the server's readiness; 0 means perftestTimeout.
	timeout time.Duration
	note    string
}

const (
	perftestTimeout    = 60 * time.Second
	perftestAllSizes   = 180 * time.Second
	perftestMismatch   = 20 * time.Second
	perftestClientOnly = 15 * time.Second
	// serverStopLag is how much later than its client a --run_infinitely server is signalled.
	serverStopLag = 5 * time.Second
)

func perftestRows() []perftestRow {
	const (
		bw   = "-n 300"
		lat  = "-n 500"
		allN = "-a -n 20"
	)
	return []perftestRow{
		// Plain runs, default units (MB/sec in 4.5, MiB/sec since 24.07) and Gb/sec.
		{name: "send-bw", tool: "ib_send_bw", port: 18515, args: bw, note: "ib_send_bw, default size 65536, default units (MB/sec or MiB/sec); the server prints its own RX row with BW peak 0.00"},
		{name: "send-bw-gbits", tool: "ib_send_bw", port: 18516, args: bw + " --report_gbits", note: "ib_send_bw --report_gbits: Gb/sec header"},
		{name: "write-bw", tool: "ib_write_bw", port: 18517, args: bw, note: "ib_write_bw, default units; the server prints the client's row"},
		{name: "write-bw-gbits", tool: "ib_write_bw", port: 18518, args: bw + " --report_gbits", note: "ib_write_bw --report_gbits"},
		{name: "read-bw", tool: "ib_read_bw", port: 18519, args: bw, note: "ib_read_bw, default units; header shows Outstand reads"},
		{name: "read-bw-gbits", tool: "ib_read_bw", port: 18520, args: bw + " --report_gbits", note: "ib_read_bw --report_gbits"},
		{name: "atomic-bw", tool: "ib_atomic_bw", port: 18521, args: bw, note: "ib_atomic_bw (CMP_AND_SWAP, size 8), default units"},
		{name: "atomic-bw-gbits", tool: "ib_atomic_bw", port: 18522, args: bw + " --report_gbits", note: "ib_atomic_bw --report_gbits: small values, may use 6-decimal rows"},
		{name: "send-lat", tool: "ib_send_lat", port: 18523, args: lat, note: "ib_send_lat, size 2: both sides print a row (RTT/2)"},
		{name: "write-lat", tool: "ib_write_lat", port: 18524, args: lat, note: "ib_write_lat, size 2: both sides print a row (RTT/2)"},
		{name: "read-lat", tool: "ib_read_lat", port: 18525, args: lat, note: "ib_read_lat: only the client prints a row, full RTT"},
		{name: "atomic-lat", tool: "ib_atomic_lat", port: 18526, args: lat, note: "ib_atomic_lat: only the client prints a row, full RTT"},

		// Modes.
		{name: "send-bw-a", tool: "ib_send_bw", port: 18527, args: allN, timeout: perftestAllSizes, note: "ib_send_bw -a: one row per size 2..8388608"},
		{name: "write-bw-a", tool: "ib_write_bw", port: 18528, args: allN, timeout: perftestAllSizes, note: "ib_write_bw -a: client rows per size; the server prints only the last size"},
		{name: "write-bw-a-gbits", tool: "ib_write_bw", port: 18529, args: allN + " --report_gbits", timeout: perftestAllSizes, note: "ib_write_bw -a --report_gbits: rows below 0.1 Gb/sec use the 6-decimal format"},
		{name: "send-bw-q4", tool: "ib_send_bw", port: 18530, args: "-q 4 -n 200", note: "ib_send_bw -q 4: four local and four remote address lines; #iterations = 4 x n"},
		{name: "write-bw-q4", tool: "ib_write_bw", port: 18531, args: "-q 4 -n 200", note: "ib_write_bw -q 4"},
		{name: "send-bw-bidir", tool: "ib_send_bw", port: 18532, args: "-b " + bw, note: "ib_send_bw -b: Bidirectional title, each side prints the sum"},
		{name: "write-bw-bidir", tool: "ib_write_bw", port: 18533, args: "-b " + bw, note: "ib_write_bw -b: both sides print the sum"},
		{name: "send-bw-duration", tool: "ib_send_bw", port: 18534, args: "-D 2", note: "ib_send_bw -D 2: duration mode, BW peak 0.00, #iterations counted in the sampling window"},
		{name: "write-bw-duration", tool: "ib_write_bw", port: 18535, args: "-D 2", note: "ib_write_bw -D 2: duration mode"},
		{name: "send-bw-rdma-cm", tool: "ib_send_bw", port: 18536, args: "-R " + bw, ready: ReadyRDMACMListen, note: "ib_send_bw -R: connection through rdma_cm (Data ex. method : rdma_cm); the server waits for an rdma_cm QP"},
		{name: "write-bw-rdma-cm", tool: "ib_write_bw", port: 18537, args: "-R " + bw, ready: ReadyRDMACMListen, note: "ib_write_bw -R: rdma_cm"},
		{name: "send-bw-ud", tool: "ib_send_bw", port: 18538, args: "-c UD -s 512 " + bw, note: "ib_send_bw -c UD -s 512: unreliable datagram, Connection type : UD"},
		{name: "send-bw-ud-a", tool: "ib_send_bw", port: 18539, args: "-c UD -a -n 100", timeout: perftestAllSizes, note: "ib_send_bw -c UD -a: sizes stop at the MTU"},
		{name: "send-lat-a", tool: "ib_send_lat", port: 18540, args: allN, timeout: perftestAllSizes, note: "ib_send_lat -a: one row per size 2..8388608"},
		{name: "send-lat-duration", tool: "ib_send_lat", port: 18541, args: "-D 2", note: "ib_send_lat -D 2: the duration header (t_avg, tps average) and one row"},
		{name: "send-bw-infinite", tool: "ib_send_bw", port: 18554, args: "--run_infinitely -D 1", stopAfter: 12 * time.Second, expect: ExpectTimeoutOK, note: "ib_send_bw --run_infinitely -D 1: one BW row per interval until SIGINT (timeout -s INT); both sides die of the signal (exit 130 through timeout --preserve-status)"},
		{name: "write-bw-infinite", tool: "ib_write_bw", port: 18555, args: "--run_infinitely -D 1", stopAfter: 12 * time.Second, expect: ExpectTimeoutOK, note: "ib_write_bw --run_infinitely -D 1: one BW row per interval until SIGINT; 25.01 prints User stopped traffic and exits 0, its server Client closed connection; 4.5 dies of the signal"},
		{name: "send-lat-dump", tool: "ib_send_lat", port: 18542, args: "-U -n 200", note: "ib_send_lat -U: every sample as '#, usec' lines, then the header again and the row"},

		// Output forms.
		{name: "send-bw-json", tool: "ib_send_bw", port: 18543, args: bw, clientOnly: "--out_json --out_json_file=client.json", note: "ib_send_bw with --out_json on the client: client.json (not valid JSON before perftest 24.01)"},
		{name: "send-lat-json", tool: "ib_send_lat", port: 18544, args: lat, clientOnly: "--out_json --out_json_file=client.json", note: "ib_send_lat with --out_json on the client: client.json"},
		{name: "send-bw-output-bw", tool: "ib_send_bw", port: 18545, args: bw + " --output=bandwidth", note: "ib_send_bw --output=bandwidth: bare bw_avg (plus possible warnings), no header"},
		{name: "send-lat-output-lat", tool: "ib_send_lat", port: 18546, args: lat + " --output=latency", note: "ib_send_lat --output=latency: bare t_avg"},

		// Failures.
		{name: "send-bw-noserver", tool: "ib_send_bw", port: 18547, args: bw, noServer: true, expect: ExpectFail, timeout: perftestClientOnly, note: "expected failure: client without a server, Couldn't connect to 198.18.0.1:18547"},
		{name: "send-bw-nosuchdev", tool: "ib_send_bw", port: 18548, args: bw, device: "nosuchdev", expect: ExpectFail, timeout: perftestClientOnly, note: "expected failure: -d nosuchdev, IB device nosuchdev not found, on both sides"},
		{name: "send-bw-bad-gid", tool: "ib_send_bw", port: 18549, args: bw, gid: "99", expect: ExpectFail, timeout: perftestMismatch, note: "expected failure: -x 99, beyond what perftest's parser accepts (4.5: Gid index should be between 0 and 64)"},
		{name: "send-bw-empty-gid", tool: "ib_send_bw", port: 18553, args: bw, gid: "10", expect: ExpectFail, timeout: perftestMismatch, note: "expected failure: -x 10, an empty slot of the GID table (all-zero GID)"},
		{name: "send-bw-size-mismatch", tool: "ib_send_bw", port: 18550, args: "-n 200", serverOnly: "-s 65536", clientOnly: "-s 4096", expect: ExpectTimeoutOK, timeout: perftestMismatch, note: "mismatch: server -s 65536, client -s 4096; older perftest does not check, may succeed, fail or hang (timeout)"},
		{name: "write-bw-size-mismatch", tool: "ib_write_bw", port: 18551, args: "-n 200", serverOnly: "-s 4096", clientOnly: "-s 65536", expect: ExpectTimeoutOK, timeout: perftestMismatch, note: "mismatch: server -s 4096, client -s 65536; RDMA writes beyond the server's buffer, expect a completion error or a hang (timeout)"},
		{name: "send-bw-iters-mismatch", tool: "ib_send_bw", port: 18552, args: "", serverOnly: "-n 300", clientOnly: "-n 100", expect: ExpectTimeoutOK, timeout: perftestMismatch, note: "mismatch: server -n 300, client -n 100; the server waits for sends that never come (timeout), 26.01+ refuses to negotiate"},
	}
}

// perftestSpecs turns the rows into specs and adds the version case.
func perftestSpecs() []Spec {
	return specsOf(perftestRows(), Spec{
		Group: GroupPerftest, Name: "version", Tool: "perftest", Expect: ExpectFail,
		Note:  "ib_send_bw --version prints the internal version (Version: 6.06 for 4.5-0.17) and exits 1",
		Steps: []Step{{Run: &Command{Role: RoleCmd, Argv: []string{"ib_send_bw", "--version"}, Timeout: perftestClientOnly}}},
	})
}

func (r perftestRow) spec() Spec {
	device, gid := RXEDevice, PlaceholderGID
	if r.device != "" {
		device = r.device
	}
	if r.gid != "" {
		gid = r.gid
	}
	timeout := cmp.Or(r.timeout, perftestTimeout)
	expect := cmp.Or(r.expect, ExpectOK)
	common := append([]string{r.tool, "-d", device, "-x", gid, "-F"}, fields(r.args)...)
	port := []string{"-p", strconv.Itoa(r.port)}

	server := joinArgs(common, fields(r.serverOnly), port)
	client := joinArgs(common, fields(r.clientOnly), port, []string{RXEAddr})
	if r.stopAfter > 0 {
		stop := func(d time.Duration) []string {
			return []string{"timeout", "--preserve-status", "-s", "INT", strconv.Itoa(int(d / time.Second))}
		}
		server = joinArgs(stop(r.stopAfter+serverStopLag), server)
		client = joinArgs(stop(r.stopAfter), client)
	}
	pair := &Pair{
		Client:      Command{Role: RoleClient, Argv: client, Stdbuf: true, Timeout: timeout},
		Port:        r.port,
		Ready:       r.ready,
		ServerGrace: DefaultServerGrace,
	}
	if !r.noServer {
		pair.Server = &Command{Role: RoleServer, Argv: server, Stdbuf: true, Timeout: 2*timeout + DefaultServerGrace}
	}
	return Spec{
		Group: GroupPerftest, Name: r.name, Tool: "perftest", Note: r.note, Expect: expect,
		Needs: []Phase{PhaseRXE},
		Steps: []Step{{Pair: pair}},
	}
}

// specsOf turns the rows of a case table into specs, followed by extra.
func specsOf[R interface{ spec() Spec }](rows []R, extra ...Spec) []Spec {
	specs := make([]Spec, 0, len(rows)+len(extra))
	for _, r := range rows {
		specs = append(specs, r.spec())
	}
	return append(specs, extra...)
}

func joinArgs(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
