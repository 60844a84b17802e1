package bottleneck

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rocekit/rocekit/limits"
)

// Resource is what a verdict says held the result back.
type Resource string

// The verdicts.
const (
	Link      Resource = "link"
	PCIe      Resource = "pcie"
	CPU       Resource = "cpu"
	SocketBuf Resource = "socket-buffer"
	Loss      Resource = "loss"
	None      Resource = "none-found"
)

// Core is one CPU's time while the tool ran, in percent of the interval
// (irq.CPULoad has these).
type Core struct {
	Host    string // "near", "far", a host name
	CPU     int
	SoftPct float64
	IRQPct  float64
	SysPct  float64
	// UserPct is user and nice time: a tool that busy-polls its
	// completion queue (perftest) keeps its core in user time.
	UserPct float64
	// Thread is what ran there when known ("rxe_wq", "ksoftirqd/3",
	// "ib_send_bw"); "" is unknown.
	Thread string
	// NUMALocal says whether the core is on the NIC's NUMA node: nil is
	// unknown (single node, virtio).
	NUMALocal *bool
}

// BusyPct is the share of the core the kernel's network path can use:
// softirq, hard irq and system time.
func (c Core) BusyPct() float64 { return c.SoftPct + c.IRQPct + c.SysPct }

// Thread is one thread's system time while the tool ran, in percent of
// one core over the interval: a kernel thread that does the network
// path's work (rdma_rxe's rxe_wq worker, ksoftirqd) can saturate while
// the scheduler moves it between cores, so that no one core shows it.
type Thread struct {
	Host string
	Name string // its comm: "kworker/u16:7-rxe_wq"
	PID  int
	TID  int
	CPU  int // where it ran last
	// SysPct is its system time over the interval's ticks of one core.
	SysPct float64
	// Role is what it is to the run ("rdma_rxe's work queue ..."); "" for a
	// program.
	Role string
}

// Clamp is a socket buffer that got less than asked.
type Clamp struct {
	Host      string // where the buffer is
	Direction string // "receive", "send"
	Sysctl    string // "net.core.rmem_max"
	// AskedBytes is the request (-S 2M); GotBytes what getsockopt read
	// back (Linux doubles a granted request, so an unclamped 2 MiB
	// reads as 4 MiB).
	AskedBytes, GotBytes int
}

// Drop is a loss counter that rose while the tool ran.
type Drop struct {
	Host    string
	Counter string // "rx_queue_0_drops", "Udp RcvbufErrors", "rdma retransmissions"
	Delta   uint64
	Cause   string // what the counter means, when known ("late responder")
}

// Evidence is everything known about one measured result.
type Evidence struct {
	// Gbps is the measured goodput in 10^9 bit/s (the receiver's figure
	// for UDP). NaN or negative means no rate was measured.
	Gbps float64
	// Ceiling is the path's ceiling (limits.Lower of both ends' for a
	// pair: pass the end whose limit is lower).
	Ceiling limits.Ceiling
	Cores   []Core
	// Threads are the threads with system time, when known; a kernel
	// thread at BusyCore of one core is the CPU bound when no core is.
	Threads []Thread
	Clamps  []Clamp
	Drops   []Drop
}

// Thresholds tune Judge. Zero values take the defaults.
type Thresholds struct {
	NearCeiling float64 // fraction of the ceiling that counts as bound by it; 0.90
	BusyCore    float64 // percent busy that counts as a saturated core; 90
}

// DefaultThresholds are the verdict's rules of thumb: bound by a ceiling
// at 90 % of it, a core saturated at 90 % busy.
var DefaultThresholds = Thresholds{NearCeiling: 0.90, BusyCore: 90}

// WithDefaults returns t with each zero (or negative) field set to
// DefaultThresholds'.
func (t Thresholds) WithDefaults() Thresholds { return t.withDefaults() }

func (t Thresholds) withDefaults() Thresholds {
	if t.NearCeiling <= 0 {
		t.NearCeiling = DefaultThresholds.NearCeiling
	}
	if t.BusyCore <= 0 {
		t.BusyCore = DefaultThresholds.BusyCore
	}
	return t
}

// Verdict is what held a result back, with its evidence.
type Verdict struct {
	Bound Resource `json:"bound"`
	// Fraction is the result over the lowest ceiling (0.94); 0 when no
	// ceiling is known.
	Fraction float64       `json:"fraction,omitempty"`
	Ceiling  *limits.Limit `json:"ceiling,omitempty"`
	// Summary is one sentence with units.
	Summary string `json:"summary"`
	// Evidence quotes each figure the verdict rests on.
	Evidence []string `json:"evidence,omitempty"`
	// Also lists further causes seen ("socket-buffer: ...").
	Also    []string `json:"also,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	Unknown []string `json:"unknown,omitempty"`
}

// String is the verdict in one line: what bound the result, and why.
func (v Verdict) String() string { return string(v.Bound) + ": " + v.Summary }

// Judge returns the verdict on e (the package doc gives the rules).
func Judge(e Evidence, th Thresholds) Verdict {
	th = th.withDefaults()
	v := Verdict{Notes: e.Ceiling.Notes, Unknown: slices.Clone(e.Ceiling.Unknown)}
	measured := !math.IsNaN(e.Gbps) && !math.IsInf(e.Gbps, 0) && e.Gbps >= 0
	of := ""
	if frac, low, ok := e.Ceiling.Fraction(e.Gbps); ok && measured {
		v.Fraction, v.Ceiling = frac, &low
		v.Evidence = append(v.Evidence, low.String())
		of = fmt.Sprintf("%s is %.0f %% of the %s %s ceiling", FormatRate(e.Gbps), frac*100, FormatRate(low.Gbps), low.Resource)
		if frac >= th.NearCeiling {
			v.Bound = Link
			if low.Resource == limits.Bus {
				v.Bound = PCIe
			}
			v.Summary = of + " (" + low.Basis + ")"
		}
	} else if !measured {
		v.Unknown = append(v.Unknown, "no rate was measured")
	}

	var causes []cause
	core, haveCore := busiest(e.Cores)
	if haveCore && core.BusyPct() >= th.BusyCore {
		causes = append(causes, coreCause(core))
	} else if t, ok := busiestThread(e.Threads); ok && t.SysPct >= th.BusyCore {
		causes = append(causes, threadCause(t, core, haveCore, th))
	} else if c, ok := fullest(e.Cores); ok && c.BusyPct()+c.UserPct >= th.BusyCore && c.BusyPct() >= kernelShare {
		causes = append(causes, fullCoreCause(c))
	}
	if len(e.Clamps) > 0 {
		causes = append(causes, clampCause(e.Clamps))
	}
	if len(e.Drops) > 0 {
		causes = append(causes, dropCause(e.Drops))
	}
	for _, c := range causes {
		if v.Bound == "" {
			v.Bound = c.resource
			v.Summary = c.summary
			if of != "" {
				v.Summary = of + "; " + c.summary
			}
			v.Evidence = append(v.Evidence, c.evidence...)
			continue
		}
		v.Also = append(v.Also, string(c.resource)+": "+c.summary)
	}
	if v.Bound == "" {
		v.Bound = None
		switch {
		case of != "":
			v.Summary = "reached " + strings.TrimPrefix(of, FormatRate(e.Gbps)+" is ") + "; no counter or core explains the rest"
		case measured:
			v.Summary = FormatRate(e.Gbps) + " against no known ceiling; no counter or core explains it"
		default:
			v.Summary = "no rate was measured; no counter or core stood out"
		}
		if c, ok := busiest(e.Cores); ok {
			v.Evidence = append(v.Evidence, "busiest core: "+coreText(c))
			// What was looked at, in the one line a reader sees.
			v.Summary += fmt.Sprintf(" (busiest core: %s CPU%d, %.0f %% in softirq, irq and system time)", c.Host, c.CPU, c.BusyPct())
		}
	}
	return v
}

type cause struct {
	resource Resource
	summary  string
	evidence []string
}

// Busiest returns the core with the highest BusyPct, on whichever host
// (ties: the lower host name, then CPU id, so the answer does not depend
// on input order); false when there is none.
func Busiest(cores []Core) (Core, bool) { return busiest(cores) }

// CoreText describes a core as verdicts quote it: host, CPU, how busy in
// softirq, irq and system time, what ran there, and whether it is local
// to the NIC's NUMA node.
func CoreText(c Core) string { return coreText(c) }

func busiest(cores []Core) (Core, bool) { return mostBy(cores, Core.BusyPct) }

// mostBy is the core with the most of measure (ties: the lower host
// name, then CPU id); false when there is none.
func mostBy(cores []Core, measure func(Core) float64) (Core, bool) {
	if len(cores) == 0 {
		return Core{}, false
	}
	best := cores[0]
	for _, c := range cores[1:] {
		b, cb := measure(c), measure(best)
		if b > cb || b == cb && (c.Host < best.Host || c.Host == best.Host && c.CPU < best.CPU) {
			best = c
		}
	}
	return best, true
}

func coreText(c Core) string {
	s := fmt.Sprintf("%s CPU%d %.0f %% busy (softirq %.0f %%, irq %.0f %%, system %.0f %%)", c.Host, c.CPU, c.BusyPct(), c.SoftPct, c.IRQPct, c.SysPct)
	if c.Thread != "" {
		s += ", running " + c.Thread
	}
	switch {
	case c.NUMALocal == nil:
	case *c.NUMALocal:
		s += ", local to the NIC's NUMA node"
	default:
		s += ", NOT local to the NIC's NUMA node"
	}
	return s
}

func coreCause(c Core) cause {
	return cause{CPU, "one core saturated: " + coreText(c), []string{coreText(c)}}
}

// kernelShare is the share of a full core (percent) that must be the
// kernel's (softirq, irq, system) for the core to count as the network
// path's bottleneck although the tool's user time fills the rest: on 6.1
// rdma_rxe does a send's work inside the tool's own calls (the lab's pair:
// one core 87 % system, the rest the tool's polling).
const kernelShare = 50

// fullest is the core with the most time in use, user time included.
func fullest(cores []Core) (Core, bool) {
	return mostBy(cores, func(c Core) float64 { return c.BusyPct() + c.UserPct })
}

func fullCoreCause(c Core) cause {
	t := fmt.Sprintf("%s, and %.0f %% user: %.0f %% in use", coreText(c), c.UserPct, c.BusyPct()+c.UserPct)
	return cause{CPU, "one core full, mostly with the kernel's network work: " + t, []string{t}}
}

// busiestThread is the kernel thread with the most system time (ties: the
// lower host name, then TID); a program's thread (the tool busy-polling its
// completion queue) does not count: its time is the tool's, not the path's.
func busiestThread(ts []Thread) (Thread, bool) {
	var best Thread
	found := false
	for _, t := range ts {
		if t.Role == "" {
			continue
		}
		if !found || t.SysPct > best.SysPct || t.SysPct == best.SysPct && (t.Host < best.Host || t.Host == best.Host && t.TID < best.TID) {
			best, found = t, true
		}
	}
	return best, found
}

// threadText describes a thread as verdicts quote it; a share above 100 %
// (tick counts of a VM, a thread that moved) reads as 100 %.
func threadText(t Thread) string {
	s := fmt.Sprintf("%s %s (pid %d, tid %d) %.0f %% of one core in system time, last on CPU%d", t.Host, t.Name, t.PID, t.TID, min(t.SysPct, 100), t.CPU)
	if t.Role != "" {
		s += " [" + t.Role + "]"
	}
	return s
}

func threadCause(t Thread, core Core, haveCore bool, th Thresholds) cause {
	ev := []string{threadText(t)}
	why := "the scheduler moved it between cores"
	if haveCore {
		ev = append(ev, "busiest core: "+coreText(core))
		why += fmt.Sprintf(", so no one core reached %.0f %%", th.BusyCore)
	}
	return cause{CPU, "one thread saturated: " + threadText(t) + "; " + why, ev}
}

func clampCause(cs []Clamp) cause {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %s buffer asked %s, read back %s where a granted request reads %s (%s)",
			c.Host, c.Direction, size(c.AskedBytes), size(c.GotBytes), size(2*c.AskedBytes), c.Sysctl))
	}
	return cause{SocketBuf, fmt.Sprintf("%d socket buffer(s) clamped by the kernel: %s", len(cs), parts[0]), parts}
}

func dropCause(ds []Drop) cause {
	var parts []string
	var total uint64
	for _, d := range ds {
		s := fmt.Sprintf("%s %s +%d", d.Host, d.Counter, d.Delta)
		if d.Cause != "" {
			s += " (" + d.Cause + ")"
		}
		parts = append(parts, s)
		total += d.Delta
	}
	return cause{Loss, fmt.Sprintf("packets lost: %d counted (%s)", total, strings.Join(parts, "; ")), parts}
}

// FormatRate prints a rate given in Gbit/s at a readable scale, three
// digits (one decimal from 100 up): 363.5 Gbit/s, 23.4 Gbit/s, 3.85
// Gbit/s, 941 Mbit/s, 17 kbit/s (never 1.7e-05 Gbit/s).
func FormatRate(gbps float64) string {
	switch a := math.Abs(gbps); {
	case a >= 100:
		return fmt.Sprintf("%.1f Gbit/s", gbps)
	case a >= 1:
		return fmt.Sprintf("%.3g Gbit/s", gbps)
	case a >= 1e-3:
		return fmt.Sprintf("%.3g Mbit/s", gbps*1e3)
	case a >= 1e-6:
		return fmt.Sprintf("%.3g kbit/s", gbps*1e6)
	}
	return fmt.Sprintf("%.3g bit/s", gbps*1e9)
}

// size prints a byte count as the tools' flags take it: 2 MiB, 416 KiB,
// 1500 B.
func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
