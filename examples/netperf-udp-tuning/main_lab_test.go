//go:build lab

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/sysroot"
	"github.com/rocekit/rocekit/workflow"
)

// TestLabUDPTuning runs rounds A, S, B, C and V between the guest's two virtio
// NICs: eth0 here sends, eth1 in namespace udppeer receives (netserver
// there), through the QEMU hub. It checks the structured output and that
// MTUs and IRQ affinities are back as they were; never performance (TCG).
func TestLabUDPTuning(t *testing.T) {
	c := runLabRounds(t, "A,S,B,C,V")

	names := []string{"udp_stream_A_default", "udp_stream_S_sockmax", "udp_stream_B_sockmax_mtu",
		"udp_stream_C_sockmax_mtu_irqspread", "udp_stream_V_sockmax_mtu_irqspread_verify"}
	mtus := []int{1500, 1500, 9000, 9000, 9000}
	s := checkLabSummary(t, c.Out, names, mtus)
	checkLabStore(t, c.Store, s, names, mtus, c.Count)
	// Round B sends MTU-28-byte datagrams: frames above 1500 bytes, by
	// the receiver's netdev counters.
	if r := s.Rounds[2]; r.MsgSize != 8972 || r.FrameMeanBytes == nil || *r.FrameMeanBytes <= 1500 {
		t.Errorf("round B: message size %d, receiver's mean frame %v; want 8972 and above 1500 bytes", r.MsgSize, r.FrameMeanBytes)
	}
	// The files of -out; each archive holds netperf's output of every run.
	if html, err := os.ReadFile(filepath.Join(c.Out, "report.html")); err != nil || !bytes.Contains(html, []byte("throughput over time (interim results)")) {
		t.Errorf("report.html without the interim picture (%v)", err)
	}
	for _, name := range []string{"report.md", "preflight.md", "preflight.json", "interims-throughput.svg"} {
		if _, err := os.Stat(filepath.Join(c.Out, name)); err != nil {
			t.Errorf("-out: %v", err)
		}
	}
	for _, name := range names {
		checkLabArchive(t, filepath.Join(c.Out, name+".tar.gz"), c.Count)
	}
}

// runLabRounds runs -rounds between the guest's two virtio NICs (eth0
// here, eth1 moved into namespace udppeer) at MTU 9000, 2 runs of 2 s
// each, and checks that MTUs and IRQ affinities are back as they were;
// it returns the run's flags, for its outputs.
func runLabRounds(t *testing.T, rounds string) config {
	t.Helper()
	labtest.Guest(t)
	// The IRQs of both NICs and their affinity, before anything moves.
	before := readLabState(t, queueIRQs(t, "eth0", "eth1"), "")
	movePeer(t)

	dir := t.TempDir()
	c := config{Flags: cli.Flags{Netdev: "eth0", PeerNetns: "udppeer", PeerNetdev: "eth1",
		Journal: filepath.Join(dir, "journal.jsonl"), Timeout: 10 * time.Minute},
		Rounds: rounds, MTU: 9000, Length: 2, MsgSize: 1400, SockBuf: "2M", Count: 2,
		Store: filepath.Join(dir, "rounds.jsonl"), Out: filepath.Join(dir, "out"), Governor: "performance",
		Interval: 1}
	runLogged(t, c)
	checkLabRestored(t, before)
	return c
}

// TestLabUDPGroups runs the runbook's three groups as written and the TCP
// reference round (-rounds 1,2,3,T) between the guest's two virtio NICs:
// group 2 changes only the MTU (the socket buffer limits stay, so -S 2M
// stays clamped) and sends 8972-byte datagrams, so the receiver's frames
// average above 1500 bytes; group 3 pauses irqbalance and spreads the
// IRQs; the report holds TCP_STREAM against UDP. netserver's own socket
// is read in every UDP round and agrees with Udp RcvbufErrors.
func TestLabUDPGroups(t *testing.T) {
	c := runLabRounds(t, "1,2,3,T")

	names := []string{"udp_stream_1_default", "udp_stream_2_mtu", "udp_stream_3_mtu_irqspread", "tcp_stream_T"}
	s := checkLabSummary(t, c.Out, names, []int{1500, 9000, 9000, 9000})
	for i, want := range []int{1400, 8972, 8972, 0} { // T: netperf's default send size
		if r := s.Rounds[i]; r.MsgSize != want {
			t.Errorf("%s: message size %d, want %d", r.Name, r.MsgSize, want)
		}
	}
	// Frames above 1500 bytes in the MTU round, by the receiver's netdev
	// counters (rx_bytes / rx_packets), not in the default one.
	if f := s.Rounds[1].FrameMeanBytes; f == nil || *f <= 1500 {
		t.Errorf("round 2: receiver's mean frame %v, want above 1500 bytes", f)
	}
	if f := s.Rounds[0].FrameMeanBytes; f == nil || *f > 1514 {
		t.Errorf("round 1: receiver's mean frame %v, want at most 1514 bytes", f)
	}
	for _, r := range s.Rounds[:3] {
		if r.SocketDrops == nil {
			t.Errorf("%s: netserver's socket not read", r.Name)
		}
	}
	md, err := os.ReadFile(filepath.Join(c.Out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## UDP against TCP (round T)", "UDP at ", "TCP_STREAM throughput (median of 2 runs)",
		"message size 8972 bytes: MTU 9000 less 28", "netserver's own socket (/proc/PID/net/udp): drops",
		"netperf[local] ", "netserver[netns udppeer] "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Group 3 paused irqbalance, or says there was none to pause.
	if !strings.Contains(string(md), "irqbalance paused on local (PIDs") && !strings.Contains(string(md), "irqbalance not running on local: nothing to pause") {
		t.Errorf("report.md says nothing of irqbalance in group 3")
	}
	// Group 2 raised no limit: its receive buffer is still clamped.
	rounds, _, err := report.OpenStore(c.Store).Load()
	if err != nil || len(rounds) != 4 {
		t.Fatalf("store: %d rounds, %v", len(rounds), err)
	}
	if m, ok := rounds[1].Metric("sockbuf_remote_recv"); !ok || m.Values[0] != 425984 {
		t.Errorf("round 2: netserver's receive buffer %v, want 425984 (clamped: the groups raise no limit)", m.Values)
	}
	for _, r := range rounds {
		if r.Fingerprint == nil || len(r.Fingerprint.Argv) != 2 || len(r.Fingerprint.Tools) != 2 || r.Fingerprint.Kernel == "" {
			t.Errorf("%s: fingerprint without both command lines, both tool versions and the kernel: %+v", r.Name, r.Fingerprint)
		}
		if _, err := os.Stat(filepath.Join(c.Out, r.Name+".tar.gz")); err != nil {
			t.Errorf("%s: archive: %v", r.Name, err)
		}
	}
}

// labState is what the run changes and must put back: the NICs' IRQ
// affinities, both MTUs, and net.core.rmem_max.
type labState struct {
	irqs       map[int]string // IRQ: "NETDEV QUEUE"
	affinity   map[int]string // IRQ: smp_affinity_list
	mtu0, mtu1 int            // eth0 here, eth1
	rmem       string
}

// queueIRQs are the netdevs' queue IRQs, named "NETDEV QUEUE".
func queueIRQs(t *testing.T, netdevs ...string) map[int]string {
	t.Helper()
	fs := irq.Root(sysroot.ProcSys("/proc", "/sys"))
	irqs := map[int]string{}
	for _, dev := range netdevs {
		d, err := fs.Netdev(dev)
		if err != nil {
			t.Fatalf("IRQs of %s: %v", dev, err)
		}
		if len(d.IRQs) == 0 {
			t.Fatalf("%s has no IRQs", dev)
		}
		for _, q := range d.IRQs {
			irqs[q.IRQ] = dev + " " + q.Name
		}
	}
	return irqs
}

// readLabState reads the IRQs' affinities, the MTUs (eth1's in namespace
// eth1Netns, "" for here) and rmem_max.
func readLabState(t *testing.T, irqs map[int]string, eth1Netns string) labState {
	t.Helper()
	st := labState{irqs: irqs, affinity: map[int]string{}, rmem: readSysctl(t, "net/core/rmem_max")}
	for n := range irqs {
		b, err := os.ReadFile(filepath.Join("/proc/irq", strconv.Itoa(n), "smp_affinity_list"))
		if err != nil {
			t.Fatal(err)
		}
		st.affinity[n] = strings.TrimSpace(string(b))
	}
	st.mtu0, st.mtu1 = readMTU(t, "", "eth0"), readMTU(t, eth1Netns, "eth1")
	return st
}

// movePeer moves eth1 into a new namespace udppeer as 198.18.94.2, and
// gives eth0 198.18.94.1.
func movePeer(t *testing.T) {
	ipCmd := func(args ...string) {
		t.Helper()
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	labtest.Netns(t, "udppeer")
	// Cleanups run last first: eth1 goes home before the namespace goes.
	t.Cleanup(func() {
		exec.Command("ip", "-n", "udppeer", "link", "set", "eth1", "netns", "1").Run()
		exec.Command("ip", "addr", "del", "198.18.94.1/24", "dev", "eth0").Run()
	})
	ipCmd("link", "set", "eth1", "netns", "udppeer")
	ipCmd("-n", "udppeer", "addr", "add", "198.18.94.2/24", "dev", "eth1")
	ipCmd("-n", "udppeer", "link", "set", "eth1", "up")
	ipCmd("addr", "add", "198.18.94.1/24", "dev", "eth0")
	ipCmd("link", "set", "eth0", "up")
}

// runLogged runs the rounds, logging the progress and the start of
// report.md (round C whole) whether the run passed or not.
func runLogged(t *testing.T, c config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var out, progress bytes.Buffer
	start := time.Now()
	err := run(ctx, c, &out, &progress)
	t.Logf("run took %s; progress:\n%s", time.Since(start).Round(time.Second), progress.String())
	if md, rerr := os.ReadFile(filepath.Join(c.Out, "report.md")); rerr == nil {
		lines := strings.Split(string(md), "\n")
		t.Logf("report.md (%d lines), first 40:\n%s", len(lines), strings.Join(lines[:min(40, len(lines))], "\n"))
		if _, roundC, ok := strings.Cut(string(md), "\n## Round C"); ok {
			t.Logf("report.md, round C:\n## Round C%s", roundC)
		}
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
}

// checkLabRestored checks everything is back: MTUs of both ends
// (1500), rmem_max (the default), IRQ affinity of both NICs.
func checkLabRestored(t *testing.T, before labState) {
	t.Helper()
	after := readLabState(t, before.irqs, "udppeer")
	if after.mtu0 != before.mtu0 || after.mtu0 != 1500 {
		t.Errorf("eth0 MTU %d after the run, want %d (1500)", after.mtu0, before.mtu0)
	}
	if after.mtu1 != before.mtu1 || after.mtu1 != 1500 {
		t.Errorf("eth1 (netns udppeer) MTU %d after the run, want %d (1500)", after.mtu1, before.mtu1)
	}
	if after.rmem != before.rmem || after.rmem != "212992" {
		t.Errorf("net.core.rmem_max %s after the run, want %s (212992, the default)", after.rmem, before.rmem)
	}
	for n, a := range before.affinity {
		if after.affinity[n] != a {
			t.Errorf("IRQ %d (%s): smp_affinity_list %s after the run, want %s", n, before.irqs[n], after.affinity[n], a)
		}
	}
}

// checkLabSummary checks summary.json: the rounds, in order, with the
// MTU of each, and findings that name their round and rule, the governor
// note of the first round that spreads IRQs among them (no cpufreq in a
// guest), and neither a drifted setting nor netserver's socket drops
// disagreeing with Udp RcvbufErrors.
func checkLabSummary(t *testing.T, out string, names []string, mtus []int) workflow.UDPSummary {
	t.Helper()
	var s workflow.UDPSummary
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	t.Logf("summary.json:\n%s", b)
	if s.Mode != "netns" || len(s.Rounds) != len(names) {
		t.Fatalf("summary: mode %q, %d rounds; want netns, %d", s.Mode, len(s.Rounds), len(names))
	}
	for i, r := range s.Rounds {
		if r.Name != names[i] || r.Letter != names[i][11:12] || r.NetdevMTU != mtus[i] {
			t.Errorf("summary round %d: %s %s MTU %d; want %s MTU %d", i, r.Name, r.Letter, r.NetdevMTU, names[i], mtus[i])
		}
		if r.Test == "TCP_STREAM" {
			if r.Mbps == nil {
				t.Errorf("summary round %s: no TCP_STREAM throughput", r.Name)
			}
			continue
		}
		if r.RecvMbps == nil || r.SendMbps == nil || r.LossPct == nil {
			t.Errorf("summary round %s: send %v, receive %v, loss %v; want all measured", r.Name, r.SendMbps, r.RecvMbps, r.LossPct)
		}
	}
	if len(s.Findings) == 0 {
		t.Errorf("summary has no findings")
	}
	governorNote := false
	spread := slices.IndexFunc(names, func(n string) bool { return strings.Contains(n, "irqspread") })
	for _, f := range s.Findings {
		if f.Round == "" || f.Severity == "" || f.Rule == "" || f.Summary == "" {
			t.Errorf("finding incomplete: %+v", f)
		}
		governorNote = governorNote || (f.Round == names[spread] && f.Rule == workflow.RuleGovernorNotSet)
		if f.Rule == workflow.RuleSettingDrifted || f.Rule == report.RuleSocketDropsDisagree {
			t.Errorf("finding %s in %s: %s", f.Rule, f.Round, f.Summary)
		}
	}
	if !governorNote && !s.Rounds[spread].GovernorSet {
		t.Errorf("round %s neither set the governor nor says why", names[spread])
	}
	return s
}

// checkLabStore checks the store holds the rounds, each with the
// receiver's interrupt distribution, its throughput and socket buffer,
// and the parameters of the run; and that round A alone says its buffer
// was clamped.
func checkLabStore(t *testing.T, store string, s workflow.UDPSummary, names []string, mtus []int, count int) {
	t.Helper()
	rounds, _, err := report.OpenStore(store).Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != len(names) {
		t.Fatalf("store holds %d rounds, want %d", len(rounds), len(names))
	}
	// -S 2M against the default rmem_max 212992: clamped in round A (the
	// kernel grants twice the cap), granted after round S raised the
	// limit (twice the request), 4M in round V.
	for i, want := range []float64{425984, 4194304, 4194304, 4194304, 8388608} {
		m, ok := rounds[i].Metric("sockbuf_remote_recv")
		if !ok || m.Values[0] != want {
			t.Errorf("%s: netserver's receive buffer %v, want %.0f", names[i], m.Values, want)
		}
	}
	clampInA := false
	for _, f := range s.Findings {
		if f.Rule == report.RuleBufferClamped {
			if f.Round != names[0] {
				t.Errorf("a clamp finding in %s: %s", f.Round, f.Summary)
			}
			clampInA = clampInA || strings.Contains(f.Summary, "net.core.rmem_max, which is 212992")
		}
	}
	if !clampInA {
		t.Errorf("round A has no socket_buffer_clamped finding naming rmem_max 212992")
	}
	for i, r := range rounds {
		if r.Name != names[i] {
			t.Errorf("store round %d is %s, want %s", i, r.Name, names[i])
		}
		if m, _ := r.Param("netdev_mtu"); m != strconv.Itoa(mtus[i]) {
			t.Errorf("%s: netdev_mtu %q, want %d", r.Name, m, mtus[i])
		}
		irqMetrics := 0
		for _, m := range r.Metrics {
			if l, _ := m.Label("netdev"); m.Name == "queue_irqs" && l == "eth1" {
				irqMetrics++
			}
		}
		if irqMetrics == 0 {
			t.Errorf("%s: no queue_irqs of the receiver eth1", r.Name)
		}
		if _, ok := r.Metric("recv_throughput"); !ok {
			t.Errorf("%s: no recv_throughput", r.Name)
		}
		checkLabInterims(t, r, count)
	}
}

// checkLabInterims: netperf -D 1 gave interim results in every run, each
// timed within it.
func checkLabInterims(t *testing.T, r report.Round, count int) {
	t.Helper()
	interims := map[string]int{}
	for _, m := range r.Metrics {
		if m.Name == "interim_throughput" {
			rep, _ := m.Label("repeat")
			interims[rep]++
			if ts, _ := m.Label("t"); m.Unit != report.UnitMbps || ts == "" || len(m.Values) != 1 || !(m.Values[0] >= 0) {
				t.Errorf("%s: interim %s: %v %s", r.Name, m.Key(), m.Values, m.Unit)
			}
		}
	}
	if len(interims) != count || interims["0"] == 0 {
		t.Errorf("%s: interim results per run %v, want some in each of %d runs", r.Name, interims, count)
	}
	t.Logf("%s: interim results per run %v", r.Name, interims)
}

// checkLabArchive checks a round's archive holds netperf's output of
// every run, parsing back, the far end's counters, and both command lines.
func checkLabArchive(t *testing.T, path string, count int) {
	t.Helper()
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		t.Errorf("archive: %v", err)
		return
	}
	r, files, err := report.ReadArchive(f)
	f.Close()
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	found := map[string][]byte{}
	for _, af := range files {
		found[af.Name] = af.Data
	}
	for i := range count {
		raw, ok := found["raw/"+strconv.Itoa(i)+"/netperf.stdout"]
		if !ok {
			t.Errorf("%s: no raw/%d/netperf.stdout", name, i)
			continue
		}
		if res, err := netperf.ParseKeyVal(bytes.NewReader(raw)); err != nil || res.UDP == nil {
			t.Errorf("%s raw/%d/netperf.stdout does not parse back: %v", name, i, err)
		}
		if _, ok := found["snapshots/"+strconv.Itoa(i)+"/far-after.json"]; !ok {
			t.Errorf("%s: no snapshots/%d/far-after.json", name, i)
		}
	}
	if r.Fingerprint == nil || len(r.Fingerprint.Argv) != 2 {
		t.Errorf("%s: fingerprint without the two command lines", name)
	}
}

// readSysctl reads a file under /proc/sys, trimmed.
func readSysctl(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/" + path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// readMTU reads a netdev's MTU, in a named namespace or ("") here.
func readMTU(t *testing.T, netns, dev string) int {
	t.Helper()
	args := []string{"-j", "link", "show", "dev", dev}
	if netns != "" {
		args = append([]string{"-n", netns}, args...)
	}
	out, err := exec.Command("ip", args...).Output()
	if err != nil {
		t.Fatalf("ip %s: %v", strings.Join(args, " "), err)
	}
	var links []struct {
		MTU int `json:"mtu"`
	}
	if err := json.Unmarshal(out, &links); err != nil || len(links) != 1 {
		t.Fatalf("ip -j link show %s: %v: %s", dev, err, out)
	}
	return links[0].MTU
}
