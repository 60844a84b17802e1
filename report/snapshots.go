package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
)

// AddValue appends one repeat's value to the metric with this name and
// labels, creating it at the end of the round's metrics. It returns an
// error wrapping ErrInvalidRound for a non-finite value, a missing name or
// unit, or a unit or direction that differs from the metric's.
func (r *Round) AddValue(name string, labels []Param, unit string, better Better, v float64) error {
	if name == "" || unit == "" || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: %s %v %s", ErrInvalidRound, name, v, unit)
	}
	m := Metric{Name: name, Labels: labels, Unit: unit, Better: better}
	k := m.Key()
	for i := range r.Metrics {
		if r.Metrics[i].Key() != k {
			continue
		}
		if r.Metrics[i].Unit != unit || r.Metrics[i].Better != better {
			return fmt.Errorf("%w: %s is %s (%s), not %s (%s)", ErrInvalidRound, k, r.Metrics[i].Unit, r.Metrics[i].Better, unit, better)
		}
		r.Metrics[i].Values = append(r.Metrics[i].Values, v)
		return nil
	}
	m.Values = []float64{v}
	r.Metrics = append(r.Metrics, m)
	return nil
}

// AddNICLosses records one repeat's NIC loss counters: every counter of a
// loss class (drop, discard, error, missed, out of buffer) that grew, as
// metric "nic_loss" labelled with the netdev, source and counter name
// (count, lower is better). Counters that did not grow are left out, so a
// counter appears only in the repeats where it moved.
//
// Similar to: ethtool -S eth0 | grep -E 'drop|discard|miss' before and after, subtracted
func (r *Round) AddNICLosses(d nic.StatsDelta) error {
	for _, c := range d.Losses() {
		labels := []Param{{"netdev", d.Netdev}, {"counter", c.Source + "." + c.Name}}
		if err := r.AddValue("nic_loss", labels, "count", LowerIsBetter, float64(c.Delta)); err != nil {
			return err
		}
	}
	return nil
}

// AddUDPErrors records one repeat's UDP errors of the host (a delta from
// nic.UDPCounters.Sub) as metrics udp_rcvbuf_errors, udp_sndbuf_errors,
// udp_mem_errors, udp_in_errors (count, lower is better), all of them, zero
// included, so that repeats line up.
//
// Similar to: netstat -su before and after
func (r *Round) AddUDPErrors(delta nic.UDPCounters) error {
	for _, c := range []struct {
		name string
		v    uint64
	}{{"udp_rcvbuf_errors", delta.RcvbufErrors}, {"udp_sndbuf_errors", delta.SndbufErrors},
		{"udp_mem_errors", delta.MemErrors}, {"udp_in_errors", delta.InErrors}} {
		if err := r.AddValue(c.name, nil, "count", LowerIsBetter, float64(c.v)); err != nil {
			return err
		}
	}
	return nil
}

// AddCPULoad records one repeat's per-CPU load: cpu_soft and cpu_irq (%,
// lower is better) labelled with the CPU, for every CPU, and cpu_soft_max,
// the hottest CPU's softirq share.
//
// Similar to: mpstat -P ALL 1, the %soft and %irq columns
func (r *Round) AddCPULoad(l irq.Load) error {
	hottest := 0.0
	for _, c := range l.CPUs {
		cpu := []Param{{"cpu", strconv.Itoa(c.CPU)}}
		if err := r.AddValue("cpu_soft", cpu, UnitPercent, LowerIsBetter, c.SoftPct); err != nil {
			return err
		}
		if err := r.AddValue("cpu_irq", cpu, UnitPercent, LowerIsBetter, c.IRQPct); err != nil {
			return err
		}
		hottest = math.Max(hottest, c.SoftPct)
	}
	if len(l.CPUs) == 0 {
		return nil
	}
	return r.AddValue("cpu_soft_max", nil, UnitPercent, LowerIsBetter, hottest)
}

// AddIRQDistribution records one repeat's queue interrupts per CPU as
// metric "queue_irqs" labelled with the netdev and CPU (count), and the
// busiest CPU's share as "queue_irq_busiest_share" (ratio, lower is
// better).
//
// Similar to: grep eth0 /proc/interrupts before and after, per column
func (r *Round) AddIRQDistribution(d irq.Distribution) error {
	for _, c := range d.PerCPU {
		labels := []Param{{"netdev", d.Netdev}, {"cpu", strconv.Itoa(c.CPU)}}
		if err := r.AddValue("queue_irqs", labels, "count", BetterUnknown, float64(c.Count)); err != nil {
			return err
		}
	}
	if d.Total == 0 {
		return nil
	}
	return r.AddValue("queue_irq_busiest_share", []Param{{"netdev", d.Netdev}}, UnitRatio, LowerIsBetter, d.BusiestShare)
}
