package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/sysroot"
)

func rules(fs []Finding) []string {
	var r []string
	for _, f := range fs {
		r = append(r, f.Rule)
	}
	return r
}

func evidence(f Finding) map[string]float64 {
	m := map[string]float64{}
	for _, e := range f.Evidence {
		m[e.Name] = e.Value
	}
	return m
}

func TestCheckMTU(t *testing.T) {
	low, high := baselineRound(), candidateRound()
	if fs := CheckMTU(low, high, "bw_avg/size=65536", Thresholds{}); len(fs) != 0 {
		t.Errorf("fired on a 49%% gain with path MTU 1024 → 4096: %v", fs)
	}
	// The path MTU did not follow (perftest's header still says 1024) and
	// the bandwidth stayed.
	stuck := sampleRound("mtu9000-stuck", "1024", bw1500, lat1500, sampleFingerprint(9000, 1024))
	low.SetParam("mtu", "1024")
	fs := CheckMTU(low, stuck, "bw_avg/size=65536", Thresholds{})
	diff(t, []string{RulePathMTUUnchanged, RuleMTUNotFollowed}, rules(fs))
	diff(t, map[string]float64{"netdev_mtu_low": 1500, "netdev_mtu_high": 9000, "roce_path_mtu_low": 1024, "roce_path_mtu_high": 1024}, evidence(fs[0]))
	diff(t, "bw_avg/size=65536 went 3.96 → 3.96 Gbit/s (×1.00) from MTU 1500 to MTU 9000: bandwidth does not follow MTU", fs[1].Summary)
	diff(t, map[string]float64{"median_low_mtu": 3.96, "median_high_mtu": 3.96, "gain": 1, "roce_path_mtu_low": 1024, "roce_path_mtu_high": 1024}, evidence(fs[1]))
}

// 4200 → 9000 and 1500 → 2000 map to the same RDMA MTU (4096, 1024): no
// critical "path MTU unchanged", no "bandwidth does not follow MTU", one
// info that says why (it was a false critical in mtu-sweep -mtus 4200,9000).
func TestCheckMTUSamePathMTU(t *testing.T) {
	for _, c := range []struct{ low, high, path int }{{4200, 9000, 4096}, {1500, 2000, 1024}} {
		low := sampleRound("low", fmt.Sprint(c.path), bw1500, lat1500, sampleFingerprint(c.low, c.path))
		high := sampleRound("high", fmt.Sprint(c.path), bw1500, lat1500, sampleFingerprint(c.high, c.path))
		fs := CheckMTU(low, high, "bw_avg/size=65536", Thresholds{})
		diff(t, []string{RuleMTUSamePath}, rules(fs))
		diff(t, map[string]float64{"netdev_mtu_low": float64(c.low), "netdev_mtu_high": float64(c.high), "expected_path_mtu": float64(c.path)}, evidence(fs[0]))
		if fs[0].Severity != SeverityInfo {
			t.Errorf("%d → %d: severity %v", c.low, c.high, fs[0].Severity)
		}
	}
	// Hardware RoCE takes 96 bytes: 4176 is 2048 there, 4096 on rxe.
	hw := sampleFingerprint(4176, 2048)
	hw.RXE, hw.NICs[0].RDMADevice = nil, "mlx5_0"
	hw9000 := sampleFingerprint(9000, 4096)
	hw9000.RXE, hw9000.NICs[0].RDMADevice = nil, "mlx5_0"
	fs := CheckMTU(sampleRound("a", "2048", bw1500, lat1500, hw), sampleRound("b", "4096", bw9000, lat9000, hw9000), "bw_avg/size=65536", Thresholds{})
	if len(fs) != 0 {
		t.Errorf("hardware 4176 → 9000 (2048 → 4096, bandwidth up): %v", fs)
	}
}

func TestCheckJitter(t *testing.T) {
	// bookworm send-lat: t_max 5202.19 us, t_typical 34.14 us.
	r, err := FromPerftest("lat", t0, perftestFixture(t, "bookworm", "send-lat", "client"))
	if err != nil {
		t.Fatal(err)
	}
	fs := CheckJitter(r, Thresholds{})
	diff(t, []string{RuleJitter}, rules(fs))
	diff(t, map[string]float64{"t_max": 5202.19, "t_typical": 34.14, "ratio": 5202.19 / 34.14, "p99.9": 5202.19}, evidence(fs[0]))
	if fs := CheckJitter(r, Thresholds{MaxJitterRatio: 200}); len(fs) != 0 {
		t.Errorf("fired at ratio 200: %v", fs)
	}
}

func TestCheckQPScaling(t *testing.T) {
	at := func(qps string, bw ...float64) Round {
		return Round{Name: "q" + qps, Params: []Param{{"qps", qps}},
			Metrics: []Metric{{Name: "bw_avg", Unit: UnitGbps, Better: HigherIsBetter, Values: bw}}}
	}
	knee := []Round{at("4", 7.6, 7.7), at("1", 2.1, 2.0), at("8", 7.9, 7.8), at("2", 4.0, 4.1)}
	fs := CheckQPScaling(knee, "bw_avg", Thresholds{})
	diff(t, []string{RuleQPKnee}, rules(fs))
	diff(t, map[string]float64{"knee_qps": 4, "bw_at_knee": 7.65, "next_qps": 8, "bw_next": 7.85, "gain": 7.85 / 7.65}, evidence(fs[0]))
	if fs := CheckQPScaling(knee[1:2], "bw_avg", Thresholds{}); fs != nil {
		t.Errorf("one point: %v", fs)
	}
	if fs := CheckQPScaling([]Round{at("1", 2), at("2", 4), at("4", 7.5)}, "bw_avg", Thresholds{}); fs != nil {
		t.Errorf("scaling: %v", fs)
	}
}

func TestCheckUDPLoss(t *testing.T) {
	r, err := FromNetperf("udp", t0, netperfFixture(t, "bookworm", "udp-stream-loss"))
	if err != nil {
		t.Fatal(err)
	}
	before := nic.Stats{Netdev: "eth1", Ethtool: map[string]uint64{"rx_queue_0_drops": 10, "rx_packets": 100}, Link: map[string]uint64{"rx_dropped": 0}}
	after := nic.Stats{Netdev: "eth1", Ethtool: map[string]uint64{"rx_queue_0_drops": 110, "rx_packets": 5000}, Link: map[string]uint64{"rx_dropped": 0}}
	d, err := after.Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	udp := nic.UDPCounters{InErrors: 1774, RcvbufErrors: 1774}
	fs := CheckUDPLoss(r, &d, &udp, Thresholds{})
	diff(t, []string{RuleUDPLoss}, rules(fs))
	diff(t, map[string]float64{"loss_ratio": 1 - 556.0/2330, "sent": 2330, "received": 556,
		"ethtool.rx_queue_0_drops": 100, "udp.rcvbuf_errors": 1774}, evidence(fs[0]))
	if !bytes.Contains([]byte(fs[0].Action), []byte("raise netperf's -S")) || !bytes.Contains([]byte(fs[0].Action), []byte("ethtool -G")) {
		t.Errorf("action %q", fs[0].Action)
	}
	// The same loss with the receive buffer clamped (asked 2M with the
	// default rmem_max): the action is the sysctl, not a larger -S.
	clampedRound := r
	clampedRound.Params = append(append([]Param(nil), r.Params...),
		Param{"sockbuf_remote_recv_asked", "2097152"}, Param{"sockbuf_remote_recv_got", "425984"})
	fs = CheckUDPLoss(clampedRound, nil, &udp, Thresholds{})
	if !strings.Contains(fs[0].Action, "it was clamped (-S asked 2 MiB, it read back 416 KiB where a granted one reads 4 MiB): raise net.core.rmem_max to at least 2097152 on netserver's host; a larger -S cannot take effect") {
		t.Errorf("clamped action %q", fs[0].Action)
	}
	// Datagrams that reached a closed port: the end-of-test tail.
	tail := nic.UDPCounters{NoPorts: 1450}
	fs = CheckUDPLoss(r, nil, &tail, Thresholds{})
	if !strings.Contains(fs[0].Action, "1450 datagrams reached the receiver after netserver had closed its socket (NoPorts) against 1774 lost") {
		t.Errorf("NoPorts action %q", fs[0].Action)
	}
	cf := CheckSocketBuffers(clampedRound)
	diff(t, []string{RuleBufferClamped}, rules(cf))
	if want := "remote recv socket buffer clamped: -S asked 2 MiB, which the kernel doubles to 4 MiB when it grants it (SO_RCVBUF reads back twice the request), but it read back 416 KiB: twice net.core.rmem_max, which is 212992 on netserver's host"; len(cf) == 1 && cf[0].Summary != want {
		t.Errorf("clamp summary %q\nwant %q", cf[0].Summary, want)
	}
	// Asked 8 MiB with rmem_max at 4 MiB: it reads back 8 MiB, the size
	// asked, and that is the clamp (granted, it would read 16 MiB).
	eight := r
	eight.Params = append(append([]Param(nil), r.Params...),
		Param{"sockbuf_local_send_asked", "8388608"}, Param{"sockbuf_local_send_got", "8388608"})
	cf = CheckSocketBuffers(eight)
	if want := "local send socket buffer clamped: -s asked 8 MiB, which the kernel doubles to 16 MiB when it grants it (SO_SNDBUF reads back twice the request), but it read back 8 MiB: twice net.core.wmem_max, which is 4194304 on netperf's host"; len(cf) != 1 || cf[0].Summary != want {
		t.Errorf("8 MiB clamp %v\nwant %q", cf, want)
	}
	if fs := CheckSocketBuffers(r); fs != nil {
		t.Errorf("no sockbuf params, findings %v", fs)
	}
	// Without counters nothing was measured: the loss is unattributed,
	// not "outside the measured hosts".
	fs = CheckUDPLoss(r, nil, nil, Thresholds{})
	if a := fs[0].Action; !strings.Contains(a, "unattributed: no drop counters were read") || strings.Contains(a, "outside") {
		t.Errorf("loss without counters: %q", a)
	}
	// Only the UDP counters read, none grew: the NIC's were not read.
	fs = CheckUDPLoss(r, nil, &nic.UDPCounters{}, Thresholds{})
	if a := fs[0].Action; !strings.Contains(a, "the NIC's drop counters were not read") || strings.Contains(a, "outside") {
		t.Errorf("loss with UDP counters only: %q", a)
	}
	// Both read, none grew: then the loss is outside what was measured.
	fs = CheckUDPLoss(r, &nic.StatsDelta{}, &nic.UDPCounters{}, Thresholds{})
	if a := fs[0].Action; !strings.Contains(a, "no drop counter explains") || !strings.Contains(a, "outside the measured hosts") {
		t.Errorf("unexplained loss: %q", a)
	}
	if fs := CheckUDPLoss(r, nil, nil, Thresholds{MaxLossRatio: 0.9}); fs != nil {
		t.Errorf("fired under the threshold: %v", fs)
	}
	tcp, _ := FromNetperf("tcp", t0, netperfFixture(t, "bookworm", "tcp-stream"))
	if fs := CheckUDPLoss(tcp, nil, nil, Thresholds{}); fs != nil {
		t.Errorf("fired on TCP: %v", fs)
	}
}

// irqFixture parses a capture of the irq package's testdata.
func irqInterrupts(t *testing.T, p string) irq.Interrupts {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "irq", "testdata", p))
	if err != nil {
		t.Fatal(err)
	}
	in, err := irq.ParseInterrupts(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestCheckIRQDistribution(t *testing.T) {
	dir := filepath.Join("..", "irq", "testdata", "mlx5-2node")
	fsys := irq.Root(sysroot.ProcSys(filepath.Join(dir, "proc"), filepath.Join(dir, "sys")))
	dev, err := fsys.Netdev("ens1f0np0")
	if err != nil {
		t.Fatal(err)
	}
	node, _ := fsys.NodeCPUs(1)
	before := irqInterrupts(t, "mlx5-2node/proc/interrupts")
	conc := irq.Distribute(dev, before, irqInterrupts(t, "mlx5-2node/after-concentrated/interrupts"), node, irq.Thresholds{})
	fs := CheckIRQDistribution(conc)
	diff(t, []string{RuleIRQConcentrated, RuleIRQOffNode}, rules(fs))
	diff(t, map[string]float64{"busiest_cpu": 0, "busiest_share": 1, "interrupts": 2028000, "queue_irqs": 48, "cpus_used": 1}, evidence(fs[0]))
	if e := evidence(fs[1]); e["off_node_irqs"] != 8 {
		t.Errorf("off node evidence %v", fs[1].Evidence)
	}
	spread := irq.Distribute(dev, before, irqInterrupts(t, "mlx5-2node/after-spread/interrupts"), node, irq.Thresholds{})
	if fs := CheckIRQDistribution(spread); fs != nil {
		t.Errorf("spread fired: %v (%v)", fs, spread.Reasons)
	}
	if got := IRQPlacementSummary(conc); got != "48 queue IRQs on CPUs 0 (busiest CPU0 100%), node CPUs 24-47,72-95, off node: IRQ 121,122,123,124,125,126,127,128" {
		t.Errorf("summary %q", got)
	}
}

func TestCheckSoftirq(t *testing.T) {
	fs := CheckSoftirq(irq.HotCore{CPU: 3, SoftPct: 92, IRQPct: 2, IdlePct: 1, NetRX: 81234}, Thresholds{})
	diff(t, []string{RuleHotSoftirq}, rules(fs))
	diff(t, map[string]float64{"cpu": 3, "soft": 92, "irq": 2, "idle": 1, "net_rx_runs": 81234}, evidence(fs[0]))
	// The guest's TCP_STREAM capture: a softirq share far from hot.
	hot := trafficLoad(t).Hot()
	if fs := CheckSoftirq(hot, Thresholds{}); fs != nil {
		t.Errorf("fired at %v: %v", hot, fs)
	}
	if fs := CheckSoftirq(hot, Thresholds{MaxSoftPct: hot.SoftPct / 2}); len(fs) != 1 || hot.SoftPct <= 0 {
		t.Errorf("did not fire at half of %v%%", hot.SoftPct)
	}
}

func TestCheckGovernorAndIRQBalance(t *testing.T) {
	gs := []irq.CPUGovernor{{CPU: 0, Governor: "performance"}, {CPU: 1, Governor: "powersave"}, {CPU: 2, Governor: "powersave"}}
	fs := CheckGovernor(gs)
	diff(t, []string{RuleGovernor}, rules(fs))
	diff(t, "2 of 3 CPUs run governor powersave, not performance", fs[0].Summary)
	if fs := CheckGovernor(gs[:1]); fs != nil {
		t.Errorf("performance fired: %v", fs)
	}
	diff(t, []string{RuleIRQBalanceRunning}, rules(CheckIRQBalance([]int{812}, true)))
	if CheckIRQBalance([]int{812}, false) != nil || CheckIRQBalance(nil, true) != nil {
		t.Error("irqbalance rule fired without affinity set or without irqbalance")
	}
}

func TestCheckLink(t *testing.T) {
	r, _ := FromNetperf("udp", t0, netperfFixture(t, "bookworm", "udp-stream-loss"))
	fs := CheckLinkUtilisation(r, "throughput", nic.LinkSettings{SpeedMbps: 25000}, Thresholds{})
	diff(t, []string{RuleBelowLinkSpeed}, rules(fs))
	diff(t, map[string]float64{"throughput": 17.68, "link_speed": 25000, "share": 17.68 / 25000}, evidence(fs[0]))
	if fs := CheckLinkUtilisation(r, "throughput", nic.LinkSettings{SpeedMbps: 30}, Thresholds{}); fs != nil {
		t.Errorf("fired at 59%%: %v", fs)
	}
	if fs := CheckLinkUtilisation(r, "throughput", nic.LinkSettings{SpeedMbps: -1}, Thresholds{}); fs != nil {
		t.Errorf("fired at unknown speed: %v", fs)
	}
	diff(t, []string{RuleLinkSpeedDegraded}, rules(CheckLinkSpeed(nic.LinkSettings{SpeedMbps: 10000}, 25000)))
	if CheckLinkSpeed(nic.LinkSettings{SpeedMbps: 25000}, 25000) != nil || CheckLinkSpeed(nic.LinkSettings{SpeedMbps: 10000}, 0) != nil {
		t.Error("link speed rule fired at full speed or without the supported speed")
	}
}

func TestCheckGID(t *testing.T) {
	v2, err := rxe.ParseGID("0000:0000:0000:0000:0000:ffff:c612:0001")
	if err != nil {
		t.Fatal(err)
	}
	ll, _ := rxe.ParseGID("fe80:0000:0000:0000:5054:00ff:fe12:3456")
	if fs := CheckGID(rxe.GIDEntry{Device: "rxe0", Port: 1, Index: 1, GID: v2, Type: rxe.GIDTypeRoCEv2}); fs != nil {
		t.Errorf("RoCE v2 IPv4 fired: %v", fs)
	}
	for _, e := range []rxe.GIDEntry{
		{Device: "rxe0", Port: 1, Index: 0, GID: ll, Type: rxe.GIDTypeRoCEv1},
		{Device: "rxe0", Port: 1, Index: 2, GID: ll, Type: rxe.GIDTypeRoCEv2},
		{Device: "rxe0", Port: 1, Index: 3, GID: v2, Type: rxe.GIDTypeRoCEv1},
	} {
		fs := CheckGID(e)
		if len(fs) != 1 || fs[0].Severity != SeverityCritical || evidence(fs[0])["gid_index"] != float64(e.Index) {
			t.Errorf("%v: %v", e, fs)
		}
	}
}

func TestDiagnoseOrdersBySeverity(t *testing.T) {
	r, _ := FromNetperf("udp", t0, netperfFixture(t, "bookworm", "udp-stream-loss"))
	fs := Diagnose(DiagnosisInput{Round: &r, ThroughputMetric: "throughput", Link: &nic.LinkSettings{SpeedMbps: 25000},
		Governors: []irq.CPUGovernor{{CPU: 0, Governor: "powersave"}}, IRQBalancePIDs: []int{1}, AffinitySet: true})
	diff(t, []string{RuleIRQBalanceRunning, RuleUDPLoss, RuleBelowLinkSpeed, RuleGovernor}, rules(fs))
	if fs := Diagnose(DiagnosisInput{}); fs != nil {
		t.Errorf("empty input: %v", fs)
	}
}
