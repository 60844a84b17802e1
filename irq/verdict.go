package irq

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Thresholds tune Distribute's verdict. Like report.Thresholds and
// bottleneck.Thresholds it is passed by value and a zero field means its
// default (the field of DefaultThresholds); WithDefaults fills them in.
type Thresholds struct {
	// MinInterrupts is the number of queue interrupts below which the
	// sample is too small to judge (the NIC was idle).
	MinInterrupts uint64
	// MaxBusiestShare is the largest share (0–1) of the queue interrupts
	// one CPU may take from several queue IRQs before the distribution is
	// called concentrated.
	MaxBusiestShare float64
}

// DefaultThresholds are the thresholds used when none are given.
var DefaultThresholds = Thresholds{MinInterrupts: 100, MaxBusiestShare: 0.5}

// CPUCount is a number of interrupts on one CPU.
type CPUCount struct {
	CPU   int
	Count uint64
}

// IRQActivity is how often one queue IRQ fired between two samples, and
// where.
type IRQActivity struct {
	IRQ       int
	Name      string
	Queue     int
	Direction Direction
	Total     uint64
	// CPUs are the CPUs it fired on, with counts, by CPU id.
	CPUs []CPUCount
	// Home is the CPU that took most of its interrupts, -1 if it did
	// not fire.
	Home int
}

// Distribution judges how a NIC's queue interrupts spread over CPUs between
// two samples of /proc/interrupts.
type Distribution struct {
	Netdev   string
	Interval time.Duration // 0 if not known
	// Total is the number of queue interrupts in the interval.
	Total uint64
	// PerIRQ lists the queue IRQs, by IRQ number, including idle ones.
	PerIRQ []IRQActivity
	// PerCPU sums the queue interrupts per CPU, for CPUs that took any.
	PerCPU []CPUCount
	// CPUsUsed are the CPUs that took any queue interrupt.
	CPUsUsed CPUList
	// Busiest is the CPU that took most (-1 if none), BusiestShare its
	// share of Total (0–1).
	Busiest      int
	BusiestShare float64
	// NodeCPUs are the CPUs of the NIC's NUMA node, nil when unknown.
	NodeCPUs CPUList
	// OffNode lists the queue IRQs whose home CPU is outside NodeCPUs.
	OffNode []int
	// Idle: fewer than Thresholds.MinInterrupts queue interrupts.
	Idle bool
	// Concentrated: several queue IRQs fired and all landed on one CPU,
	// or one CPU took more than Thresholds.MaxBusiestShare of the
	// interrupts from more than one of them.
	Concentrated bool
	// OK: not idle, not concentrated, nothing off the node.
	OK bool
	// Reasons explain the verdict in words ("8 queue IRQs fired, all on
	// CPU0").
	Reasons []string
}

// Distribute judges dev's queue interrupts between the samples before and
// after. nodeCPUs are the CPUs of the NIC's NUMA node (nil if unknown);
// th's zero fields are DefaultThresholds'.
func Distribute(dev Netdev, before, after Interrupts, nodeCPUs CPUList, th Thresholds) Distribution {
	d := Distribution{Netdev: dev.Name, Busiest: -1, NodeCPUs: nodeCPUs}
	deltas := map[int]InterruptDelta{}
	for _, x := range after.Sub(before) {
		if x.IRQ >= 0 {
			deltas[x.IRQ] = x
		}
	}
	perCPU := map[int]uint64{}
	irqsOn := map[int]int{} // queue IRQs whose home is each CPU
	fired := 0
	for _, q := range dev.Queues() {
		a := IRQActivity{IRQ: q.IRQ, Name: q.Name, Queue: q.Queue, Direction: q.Direction, Home: -1}
		x := deltas[q.IRQ]
		var most uint64
		for k, cpu := range x.CPUs {
			c := x.Counts[k]
			if c == 0 {
				continue
			}
			a.CPUs = append(a.CPUs, CPUCount{CPU: cpu, Count: c})
			a.Total += c
			perCPU[cpu] += c
			if c > most || (c == most && cpu < a.Home) {
				a.Home, most = cpu, c
			}
		}
		slices.SortFunc(a.CPUs, func(p, q CPUCount) int { return p.CPU - q.CPU })
		if a.Total > 0 {
			fired++
			irqsOn[a.Home]++
			if nodeCPUs != nil && !nodeCPUs.Contains(a.Home) {
				d.OffNode = append(d.OffNode, q.IRQ)
			}
		}
		d.Total += a.Total
		d.PerIRQ = append(d.PerIRQ, a)
	}
	for cpu, c := range perCPU {
		d.PerCPU = append(d.PerCPU, CPUCount{CPU: cpu, Count: c})
	}
	slices.SortFunc(d.PerCPU, func(p, q CPUCount) int { return p.CPU - q.CPU })
	for _, pc := range d.PerCPU {
		d.CPUsUsed = append(d.CPUsUsed, pc.CPU)
		if d.Busiest < 0 || pc.Count > perCPU[d.Busiest] {
			d.Busiest = pc.CPU
		}
	}
	if d.Total > 0 {
		d.BusiestShare = float64(perCPU[d.Busiest]) / float64(d.Total)
	}

	d.judge(dev, th.WithDefaults(), fired, irqsOn)
	return d
}

// SinceBoot judges dev's queue interrupts in one sample of
// /proc/interrupts, counted since boot (or since each IRQ was requested):
// Distribute against a sample of zeros. It suits an output captured on a
// host rocekit cannot reach; an interval (Distribute) says more about the
// current placement, since the counts include every earlier affinity.
//
// Similar to: grep IF /proc/interrupts
func SinceBoot(dev Netdev, in Interrupts, nodeCPUs CPUList, th Thresholds) Distribution {
	zero := Interrupts{CPUs: in.CPUs, Lines: make([]Interrupt, len(in.Lines))}
	for i, l := range in.Lines {
		zero.Lines[i] = Interrupt{Label: l.Label, IRQ: l.IRQ, CPUs: l.CPUs, Counts: make([]uint64, len(l.Counts))}
	}
	return Distribute(dev, zero, in, nodeCPUs, th)
}

// judge sets the verdict flags and reasons from the counts Distribute
// gathered. irqsOn counts the fired queue IRQs by home CPU.
func (d *Distribution) judge(dev Netdev, t Thresholds, fired int, irqsOn map[int]int) {
	nq := len(d.PerIRQ)
	switch {
	case nq == 0 && len(dev.IRQs) > 0:
		d.Idle = true
		d.Reasons = append(d.Reasons, fmt.Sprintf("%s has %d IRQs but none is a known queue vector (%s)", dev.Name, len(dev.IRQs), irqNames(dev.IRQs)))
	case nq == 0:
		d.Idle = true
		d.Reasons = append(d.Reasons, fmt.Sprintf("%s has no queue IRQs", dev.Name))
	case d.Total < t.MinInterrupts:
		d.Idle = true
		d.Reasons = append(d.Reasons, fmt.Sprintf("%d queue interrupts, fewer than %d: too little traffic to judge", d.Total, t.MinInterrupts))
	}
	// Placement is judged by each IRQ's home CPU, so that a stray
	// interrupt (the one that completes a move on x86) does not count.
	homes := CPUList{}
	for cpu := range irqsOn {
		homes = append(homes, cpu)
	}
	homes = NewCPUList(homes...)
	switch {
	case fired > 1 && len(d.CPUsUsed) == 1:
		d.Concentrated = true
		d.Reasons = append(d.Reasons, fmt.Sprintf("%d queue IRQs fired, all on CPU%d", fired, d.Busiest))
	case fired > 1 && len(homes) == 1:
		d.Concentrated = true
		d.Reasons = append(d.Reasons, fmt.Sprintf("%d queue IRQs fired, all mostly on CPU%d (%.0f%% of %d)", fired, homes[0], 100*d.BusiestShare, d.Total))
	case fired > 1 && irqsOn[d.Busiest] > 1 && d.BusiestShare > t.MaxBusiestShare:
		// Only stacking counts: one busy IRQ alone on its CPU is as
		// spread as it can be.
		d.Concentrated = true
		d.Reasons = append(d.Reasons, fmt.Sprintf("CPU%d took %.0f%% of %d queue interrupts, from %d of %d IRQs", d.Busiest, 100*d.BusiestShare, d.Total, irqsOn[d.Busiest], fired))
	}
	if len(d.OffNode) > 0 {
		d.Reasons = append(d.Reasons, fmt.Sprintf("%d of %d queue IRQs fired on CPUs off the NIC's NUMA node (CPUs %s): IRQ %s",
			len(d.OffNode), nq, d.NodeCPUs, joinInts(d.OffNode)))
	}
	d.OK = !d.Idle && !d.Concentrated && len(d.OffNode) == 0
	if d.OK {
		d.Reasons = append(d.Reasons, fmt.Sprintf("%d queue IRQs fired on %d CPUs (%s); busiest CPU%d took %.0f%% of %d", fired, len(homes), homes, d.Busiest, 100*d.BusiestShare, d.Total))
	}
}

// irqNames lists up to four IRQs as "IRQ (name)".
func irqNames(irqs []QueueIRQ) string {
	var s []string
	for i, q := range irqs {
		if i == 4 {
			s = append(s, "…")
			break
		}
		s = append(s, fmt.Sprintf("%d (%s)", q.IRQ, q.Name))
	}
	return strings.Join(s, ", ")
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

// SampleDistribution reads /proc/interrupts, waits interval (or until ctx
// ends, which is an error), reads it again and judges dev's queue
// interrupts with Distribute against the NIC's NUMA node.
//
// Similar to: grep IF /proc/interrupts; sleep 10; grep IF /proc/interrupts
func (fs Root) SampleDistribution(ctx context.Context, dev Netdev, interval time.Duration, th Thresholds) (Distribution, error) {
	var node CPUList
	if dev.NUMANode >= 0 {
		if c, err := fs.NodeCPUs(dev.NUMANode); err == nil {
			node = c
		}
	}
	before, err := fs.Interrupts()
	if err != nil && len(before.Lines) == 0 {
		return Distribution{}, err
	}
	began := time.Now()
	t := time.NewTimer(interval)
	select {
	case <-ctx.Done():
		t.Stop()
		return Distribution{}, ctx.Err()
	case <-t.C:
	}
	after, err := fs.Interrupts()
	if err != nil && len(after.Lines) == 0 {
		return Distribution{}, err
	}
	d := Distribute(dev, before, after, node, th)
	d.Interval = time.Since(began)
	return d, nil
}

// WithDefaults returns t with each zero field set to DefaultThresholds'.
func (t Thresholds) WithDefaults() Thresholds {
	if t.MinInterrupts == 0 {
		t.MinInterrupts = DefaultThresholds.MinInterrupts
	}
	if t.MaxBusiestShare == 0 {
		t.MaxBusiestShare = DefaultThresholds.MaxBusiestShare
	}
	return t
}
