package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/bottleneck"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/limits"
	"github.com/rocekit/rocekit/nic"
)

// HostLoad is one host's per-CPU load while the tool ran.
type HostLoad struct {
	Host string
	Load irq.Load
	// LocalCPUs are the CPUs local to the NIC's NUMA node; nil when
	// unknown (one node, virtio).
	LocalCPUs []int
	// Threads are the host's threads' CPU time over the same interval
	// (runbook.Growth.Threads, irq.ThreadSnapshot.Sub): they name what ran on
	// a busy core. nil leaves the thread unknown.
	Threads []irq.ThreadLoad
}

// Cores returns the host's cores as bottleneck judges them: softirq, irq
// and system time, the threads that ran there (irq.DescribeThreads, up
// to two) and whether each is local to the NIC's NUMA node.
func (l HostLoad) Cores() []bottleneck.Core {
	var out []bottleneck.Core
	for _, c := range l.Load.CPUs {
		core := bottleneck.Core{Host: l.Host, CPU: c.CPU, SoftPct: c.SoftPct, IRQPct: c.IRQPct, SysPct: c.SysPct, UserPct: c.UserPct + c.NicePct,
			Thread: irq.DescribeThreads(irq.OnCPU(l.Threads, c.CPU), c.Ticks, 2)}
		if l.LocalCPUs != nil {
			local := slices.Contains(l.LocalCPUs, c.CPU)
			core.NUMALocal = &local
		}
		out = append(out, core)
	}
	return out
}

// KernelThreads returns the host's kernel threads with system time as
// bottleneck judges them, each in percent of one core: its system ticks
// over the mean of the cores' ticks for the interval.
func (l HostLoad) KernelThreads() []bottleneck.Thread {
	var ticks uint64
	for _, c := range l.Load.CPUs {
		ticks += c.Ticks
	}
	if len(l.Load.CPUs) == 0 || ticks == 0 {
		return nil
	}
	perCore := float64(ticks) / float64(len(l.Load.CPUs))
	var out []bottleneck.Thread
	for _, t := range l.Threads {
		if t.Role() == "" || t.SysTicks == 0 {
			continue
		}
		out = append(out, bottleneck.Thread{Host: l.Host, Name: t.Comm, PID: t.PID, TID: t.TID, CPU: t.CPU,
			SysPct: 100 * float64(t.SysTicks) / perCore, Role: t.Role()})
	}
	return out
}

// End is one host's netdev as seen before the round: link speed, MTU and
// PCIe link (nic.Snapshot, runbook.Netdev.Snapshot).
type End struct {
	Host     string
	Snapshot nic.Snapshot
}

// BottleneckInput is what Bottleneck holds a round against.
type BottleneckInput struct {
	Round *Round
	// Ends are both hosts' netdevs (one in loopback); the path is as fast
	// as the slower one.
	Ends []End
	// Loads are the hosts' CPU loads during the round.
	Loads []HostLoad
	// NICDelta and UDP are the counters' changes over the round (drops).
	NICDelta *nic.StatsDelta
	UDP      *nic.UDPCounters
	// Thresholds tune the verdict (bottleneck.Thresholds).
	Thresholds bottleneck.Thresholds
}

// Bottleneck says what held a bandwidth round back (package bottleneck):
// its rate (perftest's bw_avg at the largest message size, netperf's
// receive throughput) against the lowest ceiling of its path — each end's
// link at the stream's efficiency at the MTU in use, and its PCIe link —
// and against the cores, socket buffers and drop counters seen. A round
// without a rate (a latency test) gives nil.
//
// Similar to: the runbooks' last question, "where is the bottleneck?"
func Bottleneck(in BottleneckInput) *bottleneck.Verdict {
	if in.Round == nil {
		return nil
	}
	gbps, stream, ok := roundRate(*in.Round, in.Ends)
	if !ok {
		return nil
	}
	ev := bottleneck.Evidence{Gbps: gbps, Ceiling: pathCeiling(in.Ends, stream)}
	for _, l := range in.Loads {
		ev.Cores = append(ev.Cores, l.Cores()...)
		ev.Threads = append(ev.Threads, l.KernelThreads()...)
	}
	for _, c := range clamps(*in.Round) {
		ev.Clamps = append(ev.Clamps, bottleneck.Clamp{Host: c.host, Direction: c.side, Sysctl: c.sysctl, AskedBytes: c.asked, GotBytes: c.got})
	}
	if in.NICDelta != nil {
		for _, l := range in.NICDelta.Losses() {
			ev.Drops = append(ev.Drops, bottleneck.Drop{Host: in.NICDelta.Netdev, Counter: l.Name, Delta: l.Delta})
		}
	}
	if u := in.UDP; u != nil {
		for _, d := range []struct {
			name string
			n    uint64
			why  string
		}{{"Udp RcvbufErrors", u.RcvbufErrors, "a socket receive buffer was full"},
			{"Udp SndbufErrors", u.SndbufErrors, "a socket send buffer was full"},
			{"Udp MemErrors", u.MemErrors, "UDP memory (net.ipv4.udp_mem) was exhausted"}} {
			if d.n > 0 {
				ev.Drops = append(ev.Drops, bottleneck.Drop{Host: "udp", Counter: d.name, Delta: d.n, Cause: d.why})
			}
		}
	}
	v := bottleneck.Judge(ev, in.Thresholds)
	return &v
}

// roundRate picks a round's rate and the stream it travelled as.
func roundRate(r Round, ends []End) (float64, limits.Stream, bool) {
	test, _ := r.Param(ParamTest)
	if m, ok := largestBW(r); ok {
		mtu, _ := strconv.Atoi(paramOr(r, ParamMTU, "0"))
		if mtu == 0 {
			mtu = minPathMTU(ends)
		}
		size, _ := strconv.Atoi(labelOr(m, LabelSize, "0"))
		return median(m), limits.RoCE{PathMTU: mtu, MessageBytes: size, Verb: verbOf(test)}, true
	}
	for _, name := range []string{MetricRecvThroughput, MetricThroughput} {
		m, ok := r.Metric(name)
		if !ok || m.Unit != UnitMbps {
			continue
		}
		s := limits.IPStream{MTU: minMTU(ends)}
		if strings.Contains(strings.ToUpper(test), "TCP") {
			s.Transport = limits.TCP
		} else if n, err := strconv.Atoi(paramOr(r, "message_size", "0")); err == nil && n > 0 {
			s.MessageBytes = n
		}
		return median(m) / 1000, s, true
	}
	return 0, nil, false
}

// largestBW is perftest's bw_avg at the largest message size.
func largestBW(r Round) (Metric, bool) {
	var best Metric
	found, bestSize := false, -1
	for _, m := range r.Metrics {
		if m.Name != MetricBWAvg || m.Unit != UnitGbps {
			continue
		}
		size, _ := strconv.Atoi(labelOr(m, LabelSize, "0"))
		if size > bestSize {
			best, bestSize, found = m, size, true
		}
	}
	return best, found
}

func verbOf(test string) limits.Verb {
	t := strings.ToLower(test)
	switch {
	case strings.Contains(t, "write"):
		return limits.Write
	case strings.Contains(t, "read"):
		return limits.Read
	}
	return limits.Send
}

func paramOr(r Round, key, def string) string {
	if v, ok := r.Param(key); ok {
		return v
	}
	return def
}

func labelOr(m Metric, key, def string) string {
	if v, ok := m.Label(key); ok {
		return v
	}
	return def
}

func minMTU(ends []End) int {
	mtu := 0
	for _, e := range ends {
		if e.Snapshot.MTU > 0 && (mtu == 0 || e.Snapshot.MTU < mtu) {
			mtu = e.Snapshot.MTU
		}
	}
	return mtu
}

func minPathMTU(ends []End) int {
	if m := minMTU(ends); m > 0 {
		return nic.RXEPathMTU(m)
	}
	return 0
}

// pathCeiling is the ceiling of the end whose limit is lower; what is
// unknown on either end is said, with the end's name.
func pathCeiling(ends []End, s limits.Stream) limits.Ceiling {
	var out limits.Ceiling
	var low *limits.Limit
	for _, e := range ends {
		p := limits.Path{}
		if l := e.Snapshot.Link; l != nil && l.SpeedMbps > 0 {
			p.LinkMbps = l.SpeedMbps
		}
		if pci := e.Snapshot.Device.PCI; pci != nil && pci.Link != nil {
			p.PCIe, p.PCIeMax = pci.Link.Current(), pci.Link.Max()
		}
		c := p.Ceiling(s)
		out.Stream = c.Stream
		for _, u := range c.Unknown {
			out.Unknown = append(out.Unknown, e.Host+": "+u)
		}
		for _, n := range c.Notes {
			out.Notes = append(out.Notes, e.Host+": "+n)
		}
		if l, ok := c.Lowest(); ok && (low == nil || l.Gbps < low.Gbps) {
			l.Basis = e.Host + " " + e.Snapshot.Netdev + ": " + l.Basis
			low = &l
		}
	}
	if low != nil {
		out.Limits = []limits.Limit{*low}
	}
	if len(ends) == 0 {
		out = limits.Path{}.Ceiling(s)
	}
	return out
}

// Answer is one round's line of the answers that open a report: its
// rate with the spread, the ceiling of its path, the share reached and
// what held it back (Round.Bottleneck).
type Answer struct {
	Round   string
	Rate    string // "3.85 Gbit/s (n = 3: no CI)"
	Ceiling string // "23.9 Gbit/s (link)", "unknown"
	Share   string // "16 %", "—"
	Bound   string // "cpu", "link", "none-found"
	Summary string // the verdict's sentence
}

// Answers returns the answer of every round with a verdict, in order.
func Answers(rounds []Round) []Answer {
	var out []Answer
	for _, r := range rounds {
		v := r.Bottleneck
		if v == nil {
			continue
		}
		a := Answer{Round: r.Name, Rate: "—", Ceiling: "unknown", Share: "—", Bound: string(v.Bound), Summary: v.Summary}
		if m, ok := largestBW(r); ok {
			a.Rate = rateText(Summarize(m), 1)
		} else if m, ok := r.Metric(MetricRecvThroughput); ok {
			a.Rate = rateText(Summarize(m), 1e-3)
		} else if m, ok := r.Metric(MetricThroughput); ok {
			a.Rate = rateText(Summarize(m), 1e-3)
		}
		if v.Ceiling != nil {
			a.Ceiling = fmt.Sprintf("%s (%s)", bottleneck.FormatRate(v.Ceiling.Gbps), v.Ceiling.Resource)
			a.Share = fmt.Sprintf("%.0f %%", 100*v.Fraction)
		}
		out = append(out, a)
	}
	return out
}

// WriteAnswersMarkdown writes what the runbooks ask first: for each round
// with a verdict, its Answer; nothing when no round has one.
func WriteAnswersMarkdown(w io.Writer, rounds []Round) error {
	as := Answers(rounds)
	if len(as) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("## Answers\n\n| round | rate | ceiling | share | bottleneck |\n|---|---:|---:|---:|---|\n")
	for _, a := range as {
		row := []string{a.Round, a.Rate, a.Ceiling, a.Share, "**" + a.Bound + "**: " + a.Summary}
		for i := range row {
			row[i] = strings.ReplaceAll(row[i], "|", `\|`)
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// rateText is a median with its spread, scaled for reading; scale turns
// the metric's unit into Gbit/s. A sample too small for a confidence
// interval says so ("n = 3: no CI") instead of "± ∞".
func rateText(s Summary, scale float64) string {
	t := bottleneck.FormatRate(s.Median * scale)
	switch {
	case s.N < 2:
		return t + " (n = 1)"
	case !s.HasCI():
		return fmt.Sprintf("%s (n = %d: no CI)", t, s.N)
	}
	return fmt.Sprintf("%s (%.0f %% CI %s–%s, n = %d)", t, 100*s.Confidence, bottleneck.FormatRate(s.Lo*scale), bottleneck.FormatRate(s.Hi*scale), s.N)
}
