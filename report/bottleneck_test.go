package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/bottleneck"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/perftest"
)

func realPerftestRound(t *testing.T, dir string) Round {
	t.Helper()
	f, err := os.Open("../testdata/realworld/perftest/" + dir + "/client.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := perftest.Parse(f)
	if res == nil {
		t.Fatalf("%s: %v", dir, err)
	}
	r, err := FromPerftest(dir, t0, res)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func linkEnd(host string, mbps, mtu int) End {
	return End{Host: host, Snapshot: nic.Snapshot{Netdev: "eth0", MTU: mtu, Link: &nic.LinkSettings{SpeedMbps: mbps}}}
}

// Real outputs of real hardware, with the link speed their sources give,
// judged as a reader of the text would.
func TestBottleneckOnRealOutputs(t *testing.T) {
	// Broadcom bnxt_re on 400G RoCE v2, ib_write_bw 64 KiB at path MTU
	// 1024: 363.47 Gbit/s, at the wire's limit for 1 KiB packets
	// (65536/(65536+64×82+16) of 400 = 370.3).
	r := realPerftestRound(t, "bnxt-re-write-bw-rdma-cm-q3-duration")
	v := Bottleneck(BottleneckInput{Round: &r, Ends: []End{linkEnd("client", 400000, 0), linkEnd("server", 400000, 0)}})
	if v == nil || v.Bound != bottleneck.Link || v.Ceiling == nil || v.Ceiling.Gbps < 370.2 || v.Ceiling.Gbps > 370.4 ||
		v.Fraction < 0.981 || v.Fraction > 0.982 {
		t.Fatalf("bnxt_re: %+v", v)
	}
	if !strings.HasPrefix(v.Summary, "363.5 Gbit/s is 98 % of the 370.3 Gbit/s link ceiling (client eth0: 400000 Mb/s × 92.56 % (RoCE v2 WRITE, 65536 B messages at path MTU 1024, IPv4))") {
		t.Errorf("summary %q", v.Summary)
	}
	// Huawei Ascend hns on 200G, ib_send_bw 2 MiB at 4096: 23365.53 MB/sec
	// (2^20 bytes) is 196.0 Gbit/s of a 196.2 ceiling.
	r = realPerftestRound(t, "hns-ascend-send-bw-hccn-tool")
	v = Bottleneck(BottleneckInput{Round: &r, Ends: []End{linkEnd("device 0", 200000, 0)}})
	if v == nil || v.Bound != bottleneck.Link || v.Fraction < 0.995 || v.Fraction > 1.0 {
		t.Fatalf("hns: %+v", v)
	}
	// netperf's manual: UDP_STREAM -m 32768 on 10 GbE (MTU 1500 assumed:
	// the manual does not say) receives 2748.5 Mbit/s, 29 % of the 9.6
	// Gbit/s the link carries in 23 fragments a datagram; nothing measured
	// says why.
	f, err := os.Open("../testdata/realworld/netperf/manual-2.4-udp-stream-10g-loss/output.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := netperf.Parse(f)
	if res == nil {
		t.Fatal(err)
	}
	nr, err := FromNetperf("udp", t0, res)
	if err != nil {
		t.Fatal(err)
	}
	v = Bottleneck(BottleneckInput{Round: &nr, Ends: []End{linkEnd("netperf", 10000, 1500), linkEnd("netserver", 10000, 1500)}})
	if v == nil || v.Bound != bottleneck.None || v.Fraction < 0.28 || v.Fraction > 0.30 ||
		v.Summary != "reached 29 % of the 9.61 Gbit/s link ceiling; no counter or core explains the rest" {
		t.Fatalf("netperf: %+v", v)
	}
	// A latency round has no rate to judge.
	lat := Round{Name: "lat", Params: []Param{{"test", "Send Latency Test"}}, Metrics: []Metric{{Name: "t_typical", Unit: UnitMicros, Values: []float64{5}}}}
	if v := Bottleneck(BottleneckInput{Round: &lat}); v != nil {
		t.Errorf("latency: %+v", v)
	}
}

// The same round with a saturated core on the receiver, a clamped buffer
// and drops: the core is named first, the rest kept.
func TestBottleneckCoresClampsDrops(t *testing.T) {
	r := Round{Name: "udp", Params: []Param{{"test", "UDP_STREAM"}, {"message_size", "1400"},
		{"sockbuf_remote_recv_asked", "2097152"}, {"sockbuf_remote_recv_got", "425984"}},
		Metrics: []Metric{{Name: "recv_throughput", Unit: UnitMbps, Better: HigherIsBetter, Values: []float64{3800, 3900, 3850}}}}
	load := irq.Load{CPUs: []irq.CPULoad{{CPU: 0, SoftPct: 20}, {CPU: 5, SoftPct: 96, SysPct: 3}}}
	v := Bottleneck(BottleneckInput{Round: &r, Ends: []End{linkEnd("receiver", 25000, 1500)},
		Loads: []HostLoad{{Host: "receiver", Load: load, LocalCPUs: []int{0, 1, 2, 3}}},
		UDP:   &nic.UDPCounters{RcvbufErrors: 1234}})
	if v == nil || v.Bound != bottleneck.CPU || len(v.Also) != 2 ||
		!strings.Contains(v.Summary, "receiver CPU5 99 % busy (softirq 96 %, irq 0 %, system 3 %), NOT local to the NIC's NUMA node") {
		t.Fatalf("%+v", v)
	}
	if !strings.Contains(v.Also[1], "Udp RcvbufErrors +1234") {
		t.Errorf("also %q", v.Also)
	}
	// Stored with the round and written first.
	r.Bottleneck = v
	var b bytes.Buffer
	if err := WriteAnswersMarkdown(&b, []Round{r}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Answers", "| udp | 3.85 Gbit/s (n = 3: no CI) | 23.9 Gbit/s (link) | 16 % | **cpu**: "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("answers lack %q:\n%s", want, b.String())
		}
	}
}

// TestBottleneckBothEndsThreads: a soft-RoCE round where the sender's
// core is busy in system time (rdma_rxe's work queue, not softirq) and
// the receiver's in softirq less so: the verdict names the sender's core,
// its kworker and that it is NUMA-local; CheckBusyCore says the same.
func TestBottleneckBothEndsThreads(t *testing.T) {
	r := Round{Name: "send_bw", Params: []Param{{"test", "Send BW Test"}, {"mtu", "1024"}},
		Metrics: []Metric{{Name: "bw_avg", Unit: UnitGbps, Labels: []Param{{"size", "65536"}}, Values: []float64{0.9}}}}
	sender := HostLoad{Host: "near", LocalCPUs: []int{0, 1},
		Load: irq.Load{CPUs: []irq.CPULoad{{CPU: 0, SysPct: 5, Ticks: 1000}, {CPU: 1, SoftPct: 8, SysPct: 88, Ticks: 1000}}},
		Threads: []irq.ThreadLoad{{PID: 2, TID: 311, Comm: "kworker/u8:2-rxe_wq", CPU: 1, SysTicks: 850},
			{PID: 900, TID: 900, Comm: "ib_send_bw", CPU: 1, UserTicks: 60, SysTicks: 20}, {PID: 5, TID: 5, Comm: "sshd", CPU: 0, UserTicks: 40}}}
	receiver := HostLoad{Host: "far", Load: irq.Load{CPUs: []irq.CPULoad{{CPU: 0, SoftPct: 70, Ticks: 1000}, {CPU: 1, Ticks: 1000}}},
		Threads: []irq.ThreadLoad{{PID: 3, TID: 30, Comm: "ksoftirqd/0", CPU: 0, SysTicks: 300}}}
	v := Bottleneck(BottleneckInput{Round: &r, Ends: []End{linkEnd("near", 10000, 1500), linkEnd("far", 10000, 1500)},
		Loads: []HostLoad{receiver, sender}})
	want := "near CPU1 96 % busy (softirq 8 %, irq 0 %, system 88 %), running kworker/u8:2-rxe_wq (pid 2, tid 311) 85 % system, 0 % user [rdma_rxe's work queue"
	if v == nil || v.Bound != bottleneck.CPU || !strings.Contains(v.Summary, want) ||
		!strings.Contains(v.Summary, "; ib_send_bw (pid 900, tid 900) 2 % system, 6 % user, local to the NIC's NUMA node") {
		t.Fatalf("%+v", v)
	}
	fs := CheckBusyCore([]HostLoad{receiver, sender}, bottleneck.Thresholds{})
	if len(fs) != 1 || fs[0].Rule != RuleBusyCore || fs[0].Severity != SeverityWarning || !strings.HasPrefix(fs[0].Summary, want) ||
		!strings.Contains(fs[0].Action, "rxe") {
		t.Fatalf("%+v", fs)
	}
	if e := fs[0].Evidence; len(e) < 5 || e[0] != (Evidence{"cpu", 1, "cpu"}) || e[3] != (Evidence{"system", 88, UnitPercent}) || e[4] != (Evidence{"numa_local", 1, "bool"}) {
		t.Errorf("evidence %+v", e)
	}
	// Under the threshold: nothing. The far end's softirq core at 70 %.
	if fs := CheckBusyCore([]HostLoad{receiver}, bottleneck.Thresholds{}); fs != nil {
		t.Errorf("%+v", fs)
	}
	// ksoftirqd and the tool get their own advice.
	receiver.Load.CPUs[0].SoftPct = 95
	fs = CheckBusyCore([]HostLoad{receiver}, bottleneck.Thresholds{})
	if len(fs) != 1 || !strings.Contains(fs[0].Summary, "far CPU0 95 % busy") || !strings.Contains(fs[0].Summary, "ksoftirqd/0") ||
		!strings.Contains(fs[0].Action, "ksoftirqd") || !strings.Contains(fs[0].Summary, "NUMA node unknown") {
		t.Fatalf("%+v", fs)
	}
}

// TestKernelThreadsShareOfOneCore: a host load's kernel threads, each in
// percent of one core (its system ticks over the mean of the cores' ticks
// for the interval); programs and threads without system time are left out.
func TestKernelThreadsShareOfOneCore(t *testing.T) {
	l := HostLoad{Host: "far", Load: irq.Load{CPUs: []irq.CPULoad{{CPU: 0, Ticks: 4000}, {CPU: 1, Ticks: 4400}}},
		Threads: []irq.ThreadLoad{{PID: 129, TID: 129, Comm: "kworker/u16:7-rxe_wq", CPU: 1, SysTicks: 4200},
			{PID: 300, TID: 300, Comm: "ib_send_bw", CPU: 0, UserTicks: 4000, SysTicks: 100},
			{PID: 18, TID: 18, Comm: "ksoftirqd/0", CPU: 0, UserTicks: 3}}}
	got := l.KernelThreads()
	if len(got) != 1 || got[0].Name != "kworker/u16:7-rxe_wq" || got[0].SysPct != 100 || got[0].CPU != 1 || got[0].Host != "far" || !strings.Contains(got[0].Role, "rxe_wq") {
		t.Errorf("KernelThreads %+v", got)
	}
	if (HostLoad{Threads: l.Threads}).KernelThreads() != nil {
		t.Error("threads without cores' ticks")
	}
}
