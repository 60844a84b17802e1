package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// udpFakeResults are two rounds as RunUDPRounds builds them, without netperf.
func udpFakeResults() []UDPRoundResult {
	metric := func(name, unit string, vs ...float64) report.Metric {
		return report.Metric{Name: name, Unit: unit, Values: vs}
	}
	a := UDPRoundResult{Spec: UDPRound{Letter: "A"},
		Round: report.Round{Name: "udp_stream_A_default", Params: []report.Param{{Key: "test", Value: "UDP_STREAM"}, {Key: "msg_size", Value: "1400"}},
			Metrics: []report.Metric{
				metric("send_throughput", report.UnitMbps, 900, 1000, 1100),
				metric("recv_throughput", report.UnitMbps, 400, 300, 500),
				metric("loss_ratio", report.UnitRatio, 0.5, 0.7, 0.6),
				{Name: "cpu_soft", Labels: []report.Param{{Key: "cpu", Value: "0"}}, Unit: report.UnitPercent, Values: []float64{10, 12, 11}},
				metric("cpu_soft_max", report.UnitPercent, 60, 61, 59),
				metric("recv_frame_mean", report.UnitBytes, 1442)},
			Outputs:  []report.Output{{Repeat: 0}, {Repeat: 1}, {Repeat: 2}},
			Findings: []report.Finding{{Rule: report.RuleUDPLoss, Severity: report.SeverityWarning, Summary: "UDP loss 60.00%"}}},
		Near: runbook.Netdev{Snapshot: nic.Snapshot{Netdev: "eth0", MTU: 1500, Device: nic.Device{NUMANode: -1}}, Addr: "198.18.94.1"},
		Far: runbook.Netdev{Snapshot: nic.Snapshot{Netdev: "eth1", MTU: 1500, Device: nic.Device{NUMANode: -1}}, Addr: "198.18.94.2",
			IRQs:     []irq.QueueIRQ{{IRQ: 30, Name: "virtio2-input.0"}},
			Affinity: []irq.Affinity{{IRQ: 30, CPUs: irq.NewCPUList(0, 1, 2, 3), Effective: irq.NewCPUList(2)}}},
		Receiver: runbook.Growth{
			Stats: nic.StatsDelta{Netdev: "eth1", Counters: []nic.CounterDelta{
				{Source: nic.SourceEthtool, Name: "rx_queue_0_drops", Class: nic.ClassDrop, Delta: 5},
				{Source: nic.SourceEthtool, Name: "rx_queue_0_packets", Delta: 1000},
				{Source: nic.SourceLink, Name: "rx_dropped", Class: nic.ClassDrop, Delta: 3},
				{Source: nic.SourceLink, Name: "rx_missed_errors", Class: nic.ClassMissed, Delta: 1}}},
			UDP:          nic.UDPCounters{RcvbufErrors: 7, InErrors: 7},
			Load:         irq.Load{CPUs: []irq.CPULoad{{CPU: 0, SoftPct: 10}, {CPU: 2, SoftPct: 60}}},
			Distribution: irq.Distribution{Netdev: "eth1", Concentrated: true, Reasons: []string{"2 queue IRQs fired, all on CPU2"}},
		},
		Sockets: []SocketReading{{Sockets: 1, Drops: 4}, {Sockets: 1, Drops: 3}},
	}
	c := UDPRoundResult{Spec: UDPRound{Letter: "C", MTU: 9000, Spread: true},
		Round: report.Round{Name: "udp_stream_C_mtu_irqspread", Metrics: []report.Metric{
			metric("recv_throughput", report.UnitMbps, 800, 1000)},
			Findings: []report.Finding{{Rule: RuleGovernorNotSet, Severity: report.SeverityInfo, Summary: "not set"}}},
		Far:         runbook.Netdev{Snapshot: nic.Snapshot{Netdev: "eth1", MTU: 9000}},
		Receiver:    runbook.Growth{Distribution: irq.Distribution{OK: true}},
		GovernorSet: true,
		Changes:     []string{"MTU 9000 on eth0 (local) and eth1 (netns udppeer)"},
		Notes:       []string{"governor performance not set on local: no cpufreq"},
		Drifts:      []string{"netns udppeer: #1 mtu eth1: set 9000, now 1500"},
	}
	return []UDPRoundResult{a, c}
}

func TestSummarizeUDP(t *testing.T) {
	got := SummarizeUDP(runbook.TwoNetns, udpFakeResults())
	f := func(v float64) *float64 { return &v }
	u := func(v uint64) *uint64 { return &v }
	want := UDPSummary{Mode: "netns",
		Rounds: []UDPRoundSummary{
			{Name: "udp_stream_A_default", Letter: "A", Test: "UDP_STREAM", NetdevMTU: 1500, MsgSize: 1400, SendMbps: f(1000), RecvMbps: f(400), LossPct: f(60),
				FrameMeanBytes: f(1442),
				// ethtool 5 against link 3+1: the larger source.
				NICDrops: 5, UDPRcvbufErrors: 7, SocketDrops: u(7), IRQOK: false, IRQReasons: []string{"2 queue IRQs fired, all on CPU2"}, HotCore: 2},
			{Name: "udp_stream_C_mtu_irqspread", Letter: "C", NetdevMTU: 9000, RecvMbps: f(900),
				IRQOK: true, IRQReasons: []string{}, HotCore: -1, GovernorSet: true, Drifts: []string{"netns udppeer: #1 mtu eth1: set 9000, now 1500"}},
		},
		Findings: []UDPFindingSummary{
			{Round: "udp_stream_A_default", Severity: "warning", Rule: "udp_loss", Summary: "UDP loss 60.00%"},
			{Round: "udp_stream_C_mtu_irqspread", Severity: "info", Rule: RuleGovernorNotSet, Summary: "not set"},
		}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"mode":"netns"`, `"send_mbps":null`, `"loss_pct":null`, `"irq_reasons":[]`, `"hot_core":-1`,
		`"udp_rcvbuf_errors":7`, `"socket_drops":7`, `"socket_drops":null`, `"nic_drops":5`, `"governor_set":true`, `"letter":"C"`, `"netdev_mtu":9000`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("summary.json lacks %s:\n%s", k, b)
		}
	}
	if b, _ := json.Marshal(SummarizeUDP(runbook.TwoHosts, nil)); string(b) != `{"mode":"two-host","rounds":[],"findings":[]}` {
		t.Errorf("empty summary: %s", b)
	}
}

func TestWriteUDPMarkdown(t *testing.T) {
	sides := &runbook.Sides{Mode: runbook.TwoNetns, Near: &runbook.Local{}, Far: &runbook.Local{Netns: "udppeer"},
		NearNetdev: "eth0", FarNetdev: "eth1"}
	results := udpFakeResults()
	tcp := UDPRoundResult{Spec: UDPRound{Letter: "T", TCP: true}, Round: report.Round{Name: "tcp_stream_T",
		Metrics: []report.Metric{{Name: "throughput", Unit: report.UnitMbps, Values: []float64{1000}}}}}
	tcp.Round.Findings = UDPAgainstTCP([]report.Round{results[0].Round, results[1].Round}, tcp.Round)
	prev := results[0].Round
	cmpAB := report.Compare(prev, results[0].Round, report.CompareOptions{})
	results[0].Previous, results[0].Comparison = &prev, &cmpAB
	var b strings.Builder
	if err := WriteUDPMarkdown(&b, sides, append(results, tcp)); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"# netperf UDP_STREAM tuning (netns)",
		"| sender (netperf, local) | receiver (netserver, netns udppeer) |",
		"| queue IRQs → affinity | none | 30 virtio2-input.0 → 0-3 (effective 2) |",
		"| metric | unit | udp_stream_A_default | udp_stream_C_mtu_irqspread |",
		"## Round A: udp_stream_A_default",
		"message size 1400 bytes; receiver's mean frame 1442 bytes",
		"send 1000.00 Mbit/s, receive 400.00 Mbit/s, loss 60.00%",
		"ethtool.rx_queue_0_drops +5, link.rx_dropped +3, link.rx_missed_errors +1",
		"RcvbufErrors 7",
		"netserver's own socket (/proc/PID/net/udp): drops 7 against RcvbufErrors 7 over the runs: agree",
		"**not OK** (2 queue IRQs fired, all on CPU2)",
		"CPU2 60% soft",
		"**warning** udp_loss: UDP loss 60.00%",
		"## Round C: udp_stream_C_mtu_irqspread",
		"  - MTU 9000 on eth0 (local) and eth1 (netns udppeer)",
		"- note: governor performance not set on local: no cpufreq",
		"![receiver CPU load and queue interrupts, round C](cpu-C.svg)",
		"## UDP against TCP (round T)",
		"UDP at 90% of TCP: best UDP round udp_stream_C_mtu_irqspread received 900.0 Mbit/s, TCP_STREAM 1000.0 Mbit/s",
		"TCP_STREAM throughput (median of 0 runs): 1000.00 Mbit/s",
		"## Against the previous run",
		"First of their name in the store (the baseline for the next run): udp_stream_C_mtu_irqspread, tcp_stream_T.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	// Per-CPU rows stay out of the side-by-side table; the maximum stays.
	if strings.Contains(md, "cpu_soft/cpu=0") || !strings.Contains(md, "| cpu_soft_max | % |") {
		t.Errorf("side-by-side table: want cpu_soft_max and no per-CPU rows:\n%s", md)
	}
}

func TestUDPAgainstTCP(t *testing.T) {
	udp := func(name string, v ...float64) report.Round {
		return report.Round{Name: name, Metrics: []report.Metric{{Name: "recv_throughput", Unit: report.UnitMbps, Values: v}}}
	}
	tcp := report.Round{Name: "tcp_stream_T", Metrics: []report.Metric{{Name: "throughput", Unit: report.UnitMbps, Values: []float64{9000, 9400, 9200}}}}
	fs := UDPAgainstTCP([]report.Round{udp("a", 2000, 2100, 2200), udp("c", 8800, 8900, 9000)}, tcp)
	if len(fs) != 1 || fs[0].Severity != report.SeverityInfo || !strings.Contains(fs[0].Summary, "UDP at 97% of TCP: best UDP round c received 8900.0") ||
		!strings.Contains(fs[0].Action, "on par") {
		t.Errorf("on par: %+v", fs)
	}
	fs = UDPAgainstTCP([]report.Round{udp("a", 2000)}, tcp)
	if len(fs) != 1 || fs[0].Severity != report.SeverityWarning || !strings.Contains(fs[0].Summary, "UDP at 22% of TCP") {
		t.Errorf("below: %+v", fs)
	}
	fs = UDPAgainstTCP([]report.Round{udp("a", 12000)}, tcp)
	if len(fs) != 1 || fs[0].Severity != report.SeverityInfo || !strings.Contains(fs[0].Action, "held back by something of its own") {
		t.Errorf("above: %+v", fs)
	}
	if fs := UDPAgainstTCP(nil, tcp); fs != nil {
		t.Errorf("no UDP round: %+v", fs)
	}
	if fs := UDPAgainstTCP([]report.Round{udp("a", 1)}, report.Round{}); fs != nil {
		t.Errorf("no TCP throughput: %+v", fs)
	}
}

// TestReceiveBufferText: the kernel reads a granted SO_RCVBUF back
// doubled, so "asked 8 MiB, got 8 MiB" is a clamp to half and must say
// so; twice the request is granted.
func TestReceiveBufferText(t *testing.T) {
	for _, tc := range []struct {
		asked string
		got   float64
		want  string
	}{
		{"8388608", 8388608, "asked 8388608 bytes (-S): **clamped**, it reads back 8388608 where a granted buffer reads back 16777216 (the kernel doubles SO_RCVBUF): net.core.rmem_max on the receiver is 4194304"},
		{"2097152", 425984, "asked 2097152 bytes (-S): **clamped**, it reads back 425984 where a granted buffer reads back 4194304 (the kernel doubles SO_RCVBUF): net.core.rmem_max on the receiver is 212992"},
		{"1048576", 2097152, "asked 1048576 bytes (-S): granted, it reads back 2097152 (the kernel doubles SO_RCVBUF)"},
		{"", 2097152, "reads back 2097152 bytes (-S not recorded)"},
	} {
		if got := ReceiveBufferText(tc.asked, tc.got); got != tc.want {
			t.Errorf("ReceiveBufferText(%q, %v) = %q\nwant %q", tc.asked, tc.got, got, tc.want)
		}
	}
}

// TestUDPSideArgv: the archive's command lines carry what each side ran
// with, for rerun.sh to set again: the netdev MTU of each end, the
// socket buffer limits where the round raised them, and the far end's
// namespace or SSH target.
func TestUDPSideArgv(t *testing.T) {
	near, far := &runbook.Local{}, &runbook.Local{Netns: "udppeer"}
	tu := &udpTuner{sides: &runbook.Sides{Mode: runbook.TwoNetns, Near: near, Far: far, NearNetdev: "eth0", FarNetdev: "eth1"},
		limit: 2 << 20, o: UDPOptions{Preflight: []report.HostFacts{{Sysctls: map[string]string{"net.core.rmem_max": "4194304", "net.core.wmem_max": "2097152"}}}}}
	res := &UDPRoundResult{Near: runbook.Netdev{Snapshot: nic.Snapshot{MTU: 9000}}, Far: runbook.Netdev{Snapshot: nic.Snapshot{MTU: 9000}}}
	got := []report.SideArgv{tu.argv("server", far, []string{"netserver", "-D"}, res), tu.argv("client", near, []string{"netperf"}, res)}
	want := []report.SideArgv{
		{Role: "server", Argv: []string{"ip", "netns", "exec", "udppeer", "netserver", "-D"}, Netns: "udppeer",
			MTUs: []report.NetdevMTU{{Netdev: "eth1", MTU: 9000}}},
		{Role: "client", Argv: []string{"netperf"}, MTUs: []report.NetdevMTU{{Netdev: "eth0", MTU: 9000}},
			Sysctls: []report.Param{{Key: "net.core.rmem_max", Value: "4194304"}, {Key: "net.core.wmem_max", Value: "2097152"}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("netns (-want +got):\n%s", d)
	}
	tu.sides.Mode, tu.o.FarTarget, tu.limit = runbook.TwoHosts, "root@198.18.0.2:2222", 0
	a := tu.argv("server", far, []string{"netserver"}, res)
	if d := cmp.Diff(report.SideArgv{Role: "server", Host: "root@198.18.0.2:2222", Argv: []string{"netserver"},
		MTUs: []report.NetdevMTU{{Netdev: "eth1", MTU: 9000}}}, a); d != "" {
		t.Errorf("two hosts, limits not raised (-want +got):\n%s", d)
	}
	// A peer in a namespace there: rerun.sh enters it over SSH.
	peer := &runbook.Peer{Netns: "udppeer"}
	tu.sides.Far = peer
	a = tu.argv("server", peer, []string{"netserver", "-D"}, res)
	if d := cmp.Diff(report.SideArgv{Role: "server", Host: "root@198.18.0.2:2222", Netns: "udppeer", Argv: []string{"ip", "netns", "exec", "udppeer", "netserver", "-D"},
		MTUs: []report.NetdevMTU{{Netdev: "eth1", MTU: 9000}}}, a); d != "" {
		t.Errorf("peer in a namespace (-want +got):\n%s", d)
	}
}

// TestHostsKernel: one kernel once, two named per end.
func TestHostsKernel(t *testing.T) {
	if got := udpHostsKernel([]report.HostFacts{{Role: "near", Kernel: "6.12.1"}, {Role: "far", Kernel: "6.12.1"}}); got != "6.12.1" {
		t.Errorf("one kernel: %q", got)
	}
	if got := udpHostsKernel([]report.HostFacts{{Role: "near", Kernel: "6.12.1"}, {Role: "far", Kernel: "6.1.0"}}); got != "near 6.12.1, far 6.1.0" {
		t.Errorf("two kernels: %q", got)
	}
}

// TestMTUMessageSize: a round that raises the MTU sends MTU-28 bytes,
// unless the size is kept, when it says why the MTU cannot gain; the
// verification round's sizes win.
func TestMTUMessageSize(t *testing.T) {
	tu := &udpTuner{o: UDPOptions{Netperf: netperf.Options{MessageSize: 1400}}}
	o, notes := tu.options(UDPRound{Letter: "2", MTU: 9000})
	if o.MessageSize != 8972 || len(notes) != 1 || !strings.Contains(notes[0], "frames above 1500 bytes are sent") {
		t.Errorf("round 2: -m %d, notes %q", o.MessageSize, notes)
	}
	tu.o.KeepMessageSize = true
	o, notes = tu.options(UDPRound{Letter: "2", MTU: 9000})
	if o.MessageSize != 1400 || len(notes) != 1 || !strings.Contains(notes[0], "sends no frame above 1500 bytes") {
		t.Errorf("round 2 kept: -m %d, notes %q", o.MessageSize, notes)
	}
	if o, notes := tu.options(UDPRound{Letter: "B", MTU: 1500, Limits: true}); o.MessageSize != 1400 || len(notes) != 1 || !strings.Contains(notes[0], "MTU 1500 is not above 1500") {
		t.Errorf("round B at 1500: -m %d, notes %q", o.MessageSize, notes)
	}
	if o, _ := tu.options(UDPRound{Letter: "V", MTU: 9000, Verify: true}); o.MessageSize != 8000 || o.RemoteSocketBuffer != 4<<20 {
		t.Errorf("round V: %+v", o)
	}
	if o, notes := tu.options(UDPRound{Letter: "T", MTU: 9000, TCP: true}); o.Test != netperf.TestTCPStream || o.MessageSize != 0 || len(notes) != 1 {
		t.Errorf("round T: %+v %q", o, notes)
	}
}

// udpDemoResult is the captured keyval output of netperf -D
// (netperf/testdata/loopback/tcp-stream-demo-k), as Run parses it.
func udpDemoResult(t *testing.T) *netperf.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "netperf", "testdata", "loopback", "tcp-stream-demo-k", "client.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := netperf.ParseKeyVal(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interims) < 2 {
		t.Fatalf("the capture has %d interim results", len(res.Interims))
	}
	return res
}

// TestInterimsInOutputs: the interim results of each run are drawn in
// interims-throughput.svg and on report.html, and kept out of the
// side-by-side tables; without any, there is no such picture.
func TestInterimsInOutputs(t *testing.T) {
	sides := &runbook.Sides{Mode: runbook.TwoNetns, Near: &runbook.Local{}, Far: &runbook.Local{Netns: "udppeer"},
		NearNetdev: "eth0", FarNetdev: "eth1"}
	results := udpFakeResults()[:1] // round A, which has per-CPU load for cpu-A.svg
	dir := t.TempDir()
	if err := WriteUDPReport(dir, nil, sides, results); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "interims-throughput.svg")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no interims, yet interims-throughput.svg: %v", err)
	}
	res := udpDemoResult(t)
	for i := range 2 {
		if err := results[0].Round.AddNetperfInterims(i, res); err != nil {
			t.Fatal(err)
		}
	}
	dir = t.TempDir()
	if err := WriteUDPReport(dir, nil, sides, results); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "interims-throughput.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"throughput over time", "udp_stream_A_default run 0", "udp_stream_A_default run 1"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("interims-throughput.svg lacks %q", want)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte("throughput over time (interim results)")) {
		t.Error("report.html lacks the interim picture")
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if bytes.Contains(md, []byte("interim_throughput")) || bytes.Contains(html, []byte("interim_throughput/")) {
		t.Error("interim results in the side-by-side tables")
	}
	for _, name := range []string{"summary.json", "throughput.svg", "cpu-A.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}

// TestSocketText: read with the socket, RcvbufErrors cover its span (the
// tail after netserver stopped reading is in the runs' counters only);
// without, the runs' counters are all there is.
func TestSocketText(t *testing.T) {
	for _, tc := range []struct {
		socks []SocketReading
		round uint64
		want  string
	}{
		{[]SocketReading{{Drops: 400, RcvbufErrors: 410, CountersRead: true}, {Drops: 300, RcvbufErrors: 300, CountersRead: true}}, 1500,
			"drops 700 against RcvbufErrors 710 read with it (1500 over the whole runs: what arrived after netserver stopped reading at each test's end): agree"},
		{[]SocketReading{{Drops: 100, RcvbufErrors: 900, CountersRead: true}}, 900,
			"drops 100 against RcvbufErrors 900 read with it (900 over the whole runs: what arrived after netserver stopped reading at each test's end): **do not agree**"},
		{[]SocketReading{{Drops: 400, RcvbufErrors: 400, CountersRead: true}, {Drops: 300}}, 1500,
			"drops 700 against RcvbufErrors 1500 over the runs: **do not agree**"},
	} {
		if got := udpSocketText(tc.socks, tc.round); got != tc.want {
			t.Errorf("udpSocketText(%+v, %d) =\n%q\nwant\n%q", tc.socks, tc.round, got, tc.want)
		}
	}
}

// TestUDPPreflightWriteFiles: preflight.md is the Markdown also written
// to out, and preflight.json reads back as the preflight.
func TestUDPPreflightWriteFiles(t *testing.T) {
	p := UDPPreflight{Hosts: []report.HostFacts{{Role: "near", Host: "h0", Kernel: "6.12.0"}},
		Findings: []report.Finding{{Rule: "x", Severity: report.SeverityWarning, Summary: "a finding"}}}
	dir := t.TempDir()
	var out bytes.Buffer
	if err := p.WriteFiles(dir, &out); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "preflight.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(md) != out.String() || !strings.Contains(string(md), "- near: h0, kernel 6.12.0") || !strings.Contains(string(md), "a finding") {
		t.Errorf("preflight.md:\n%s\nout:\n%s", md, out.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "preflight.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back UDPPreflight
	if err := json.Unmarshal(b, &back); err != nil || !bytes.HasSuffix(b, []byte("}\n")) {
		t.Fatalf("preflight.json: %v\n%s", err, b)
	}
	if len(back.Hosts) != 1 || back.Hosts[0].Host != "h0" || len(back.Findings) != 1 || back.Findings[0].Summary != "a finding" {
		t.Errorf("preflight.json read back: %+v", back)
	}
}
