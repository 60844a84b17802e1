package bottleneck

import (
	"math"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/limits"
)

func local(b bool) *bool { return &b }

func TestJudge(t *testing.T) {
	link100 := limits.Path{LinkMbps: 100000, PCIe: limits.PCIe{GTps: 16, Width: 16}}
	for _, c := range []struct {
		name     string
		e        Evidence
		bound    Resource
		fraction float64
		summary  []string // substrings of Summary
		also     int
	}{{
		name:     "WRITE near the link",
		e:        Evidence{Gbps: 92.6, Ceiling: link100.Ceiling(limits.RoCE{PathMTU: 4096, Verb: limits.Write})},
		bound:    Link,
		fraction: 0.945,
		summary:  []string{"92.6 Gbit/s is 94 % of the 98 Gbit/s link ceiling", "100000 Mb/s × 98.04 %"},
	}, {
		name: "a NIC trained down to x8",
		e: Evidence{Gbps: 52, Ceiling: limits.Path{LinkMbps: 100000, PCIe: limits.PCIe{GTps: 8, Width: 8},
			PCIeMax: limits.PCIe{GTps: 8, Width: 16}}.Ceiling(limits.RoCE{PathMTU: 4096})},
		bound:    PCIe,
		fraction: 0.951,
		summary:  []string{"of the 54.7 Gbit/s pcie ceiling", "PCIe 8 GT/s x8"},
	}, {
		name: "soft-RoCE held by the far host's softirq core",
		e: Evidence{Gbps: 1.2, Ceiling: limits.Path{LinkMbps: 10000}.Ceiling(limits.RoCE{PathMTU: 4096}),
			Cores: []Core{{Host: "near", CPU: 0, SoftPct: 40, SysPct: 10}, {Host: "far", CPU: 3, SoftPct: 91, IRQPct: 2, SysPct: 4, Thread: "ksoftirqd/3", NUMALocal: local(false)}}},
		bound:    CPU,
		fraction: 0.122,
		summary:  []string{"1.2 Gbit/s is 12 % of the 9.8 Gbit/s link ceiling", "far CPU3 97 % busy (softirq 91 %, irq 2 %, system 4 %), running ksoftirqd/3, NOT local"},
	}, {
		name: "UDP round A: clamped receive buffer, drops beside it",
		e: Evidence{Gbps: 3.1, Ceiling: limits.Path{LinkMbps: 25000}.Ceiling(limits.IPStream{MTU: 1500}),
			Clamps: []Clamp{{Host: "netserver's host", Direction: "receive", Sysctl: "net.core.rmem_max", AskedBytes: 2097152, GotBytes: 425984}},
			Drops:  []Drop{{Host: "netserver's host", Counter: "Udp RcvbufErrors", Delta: 120345}}},
		bound:    SocketBuf,
		fraction: 0.1295,
		summary:  []string{"asked 2 MiB, read back 416 KiB where a granted request reads 4 MiB (net.core.rmem_max)"},
		also:     1,
	}, {
		name:     "loss alone: RDMA retransmissions",
		e:        Evidence{Gbps: 40, Ceiling: link100.Ceiling(limits.RoCE{PathMTU: 1024}), Drops: []Drop{{Host: "far", Counter: "rdma retransmissions", Delta: 4, Cause: "packets lost between the hosts"}}},
		bound:    Loss,
		fraction: 0.432,
		summary:  []string{"packets lost: 4 counted (far rdma retransmissions +4 (packets lost between the hosts))"},
	}, {
		name:     "nothing explains it",
		e:        Evidence{Gbps: 12, Ceiling: limits.Path{LinkMbps: 25000}.Ceiling(limits.IPStream{MTU: 9000}), Cores: []Core{{Host: "near", CPU: 1, SoftPct: 30}}},
		bound:    None,
		fraction: 0.4835,
		summary:  []string{"reached 48 % of the 24.8 Gbit/s link ceiling; no counter or core explains the rest"},
	}, {
		name:    "virtio: no ceiling, a hot core",
		e:       Evidence{Gbps: 0.4, Ceiling: limits.Path{}.Ceiling(limits.RoCE{PathMTU: 1024}), Cores: []Core{{Host: "near", CPU: 1, SysPct: 95, Thread: "rxe_wq"}}},
		bound:   CPU,
		summary: []string{"one core saturated: near CPU1 95 % busy", "running rxe_wq"},
	}, {
		name:    "no rate",
		e:       Evidence{Gbps: math.NaN(), Ceiling: link100.Ceiling(limits.RoCE{PathMTU: 4096})},
		bound:   None,
		summary: []string{"no rate was measured"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			v := Judge(c.e, Thresholds{})
			if v.Bound != c.bound {
				t.Errorf("bound %s, want %s: %+v", v.Bound, c.bound, v)
			}
			if math.Abs(v.Fraction-c.fraction) > 0.001 {
				t.Errorf("fraction %.4f, want %.4f", v.Fraction, c.fraction)
			}
			for _, s := range c.summary {
				if !strings.Contains(v.Summary, s) {
					t.Errorf("summary %q lacks %q", v.Summary, s)
				}
			}
			if len(v.Also) != c.also {
				t.Errorf("also %q", v.Also)
			}
			if len(v.Evidence) == 0 && c.bound != None {
				t.Error("a verdict without evidence")
			}
		})
	}
}

func TestJudgeUnknownAndNotes(t *testing.T) {
	v := Judge(Evidence{Gbps: 0.5, Ceiling: limits.Path{}.Ceiling(limits.RoCE{PathMTU: 1024})}, Thresholds{})
	if v.Bound != None || !strings.Contains(strings.Join(v.Unknown, ";"), "link speed unknown") || v.Ceiling != nil {
		t.Errorf("%+v", v)
	}
	if !strings.Contains(v.Summary, "500 Mbit/s against no known ceiling") {
		t.Errorf("summary %q", v.Summary)
	}
	// A degraded PCIe link is a note even when the link binds.
	v = Judge(Evidence{Gbps: 24, Ceiling: limits.Path{LinkMbps: 25000, PCIe: limits.PCIe{GTps: 8, Width: 4},
		PCIeMax: limits.PCIe{GTps: 8, Width: 8}}.Ceiling(limits.RoCE{PathMTU: 4096})}, Thresholds{})
	if v.Bound != Link || len(v.Notes) != 1 {
		t.Errorf("%+v", v)
	}
	// Thresholds move the line.
	e := Evidence{Gbps: 85, Ceiling: limits.Path{LinkMbps: 100000}.Ceiling(limits.RoCE{PathMTU: 4096})}
	if v := Judge(e, Thresholds{}); v.Bound != None {
		t.Errorf("85 %% at the default 90: %s", v.Bound)
	}
	if v := Judge(e, Thresholds{NearCeiling: 0.8}); v.Bound != Link {
		t.Errorf("85 %% at 80: %s", v.Bound)
	}
}

func TestBusiestIsOrderFree(t *testing.T) {
	a := []Core{{Host: "near", CPU: 2, SoftPct: 95}, {Host: "far", CPU: 1, SoftPct: 95}}
	b := []Core{a[1], a[0]}
	ca, _ := busiest(a)
	cb, _ := busiest(b)
	if ca != cb || ca.Host != "far" {
		t.Errorf("%+v vs %+v", ca, cb)
	}
}

func TestFormatRate(t *testing.T) {
	for in, want := range map[float64]string{23.44: "23.4 Gbit/s", 0.941: "941 Mbit/s", 0.0735: "73.5 Mbit/s", 1.7e-05: "17 kbit/s", 98.04: "98 Gbit/s", 363.47: "363.5 Gbit/s", 3.85: "3.85 Gbit/s", 3e-10: "0.3 bit/s"} {
		if got := FormatRate(in); got != want {
			t.Errorf("FormatRate(%g) = %q, want %q", in, got, want)
		}
	}
}

// TestJudgeSaturatedThread is the lab's soft-RoCE pair on trixie's 6.12
// (TestLabBusyCoreThreads, 4 vCPUs, 2026-12-02): no core reaches 90 %
// (system 33 %, 12 %, 29 %, 6 %), but rdma_rxe's rxe_wq worker took
// 4833 ticks of system time, more than one core's share of the interval
// as this VM counts it: one thread saturated, which the verdict names with
// the busiest core beside it. A busy-polling tool's thread does not count.
func TestJudgeSaturatedThread(t *testing.T) {
	rxe := "rdma_rxe's work queue (rxe_wq): its packet processing, counted as system time"
	e := Evidence{Gbps: 0.08,
		Cores: []Core{{Host: "this host", CPU: 0, SoftPct: 3, SysPct: 33}, {Host: "this host", CPU: 1, SoftPct: 2, SysPct: 12},
			{Host: "this host", CPU: 2, SoftPct: 3, SysPct: 29}, {Host: "this host", CPU: 3, SoftPct: 1, SysPct: 6}},
		Threads: []Thread{{Host: "this host", Name: "ib_send_bw", PID: 300, TID: 300, CPU: 2, SysPct: 95},
			{Host: "this host", Name: "kworker/u16:11-rxe_wq", PID: 143, TID: 143, CPU: 0, SysPct: 90, Role: rxe},
			{Host: "this host", Name: "kworker/u16:7-rxe_wq", PID: 129, TID: 129, CPU: 1, SysPct: 109, Role: rxe}}}
	v := Judge(e, Thresholds{})
	want := "one thread saturated: this host kworker/u16:7-rxe_wq (pid 129, tid 129) 100 % of one core in system time, last on CPU1 [" + rxe + "]; the scheduler moved it between cores, so no one core reached 90 %"
	if v.Bound != CPU || v.Summary != want {
		t.Errorf("verdict %s: %s", v.Bound, v.Summary)
	}
	if len(v.Evidence) != 2 || !strings.HasPrefix(v.Evidence[1], "busiest core: this host CPU0 36 % busy") {
		t.Errorf("evidence %q", v.Evidence)
	}
	// Below the threshold it is none found, with the busiest core.
	e.Threads = e.Threads[:2]
	e.Threads[1].SysPct = 60
	if v := Judge(e, Thresholds{}); v.Bound != None {
		t.Errorf("a thread at 60 %%: %s", v)
	}
}

// TestJudgeFullCore is the lab's soft-RoCE pair on bookworm's 6.1
// (TestLabBusyCoreThreads, 2026-12-02): one core 87 % system with no
// kernel thread holding the time (rdma_rxe works inside the tool's calls
// there) and the tool's polling in user time beside it: a full core,
// mostly the kernel's, is the CPU bound. A core full of user time alone
// (a busy-polling tool on an idle path) is not.
func TestJudgeFullCore(t *testing.T) {
	e := Evidence{Gbps: math.NaN(), Cores: []Core{{Host: "this host", CPU: 2, SysPct: 8, UserPct: 3},
		{Host: "this host", CPU: 3, SysPct: 87, UserPct: 12}}}
	v := Judge(e, Thresholds{})
	if v.Bound != CPU || !strings.Contains(v.Summary, "one core full, mostly with the kernel's network work: this host CPU3 87 % busy") ||
		!strings.Contains(v.Summary, "12 % user: 99 % in use") {
		t.Errorf("verdict %s", v)
	}
	e.Cores[1] = Core{Host: "this host", CPU: 3, SysPct: 10, UserPct: 90}
	if v := Judge(e, Thresholds{}); v.Bound != None {
		t.Errorf("a core full of user time: %s", v)
	}
}

// A zero field is DefaultThresholds', each on its own.
func TestThresholdsWithDefaults(t *testing.T) {
	if got := (Thresholds{}).WithDefaults(); got != DefaultThresholds || got.NearCeiling != 0.90 || got.BusyCore != 90 {
		t.Errorf("zero: %+v", got)
	}
	if got, want := (Thresholds{BusyCore: 50}).WithDefaults(), (Thresholds{NearCeiling: 0.90, BusyCore: 50}); got != want {
		t.Errorf("BusyCore only: %+v, want %+v", got, want)
	}
}
