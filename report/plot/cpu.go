package plot

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/report"
)

// CPULoadOptions tune CPULoad.
type CPULoadOptions struct {
	// Name is the figure's file name without extension ("cpu" when "").
	Name string
	// NodeCPUs are the CPUs of the NIC's NUMA node, marked on the plot;
	// nil takes them from the round's fingerprint (the first NIC with
	// numa_node_cpus, the far host's first).
	NodeCPUs []int
}

// CPULoad draws one round's per-CPU load (Round.AddCPULoad,
// AddIRQDistribution): for each CPU the median share of its time in
// softirq and in hard IRQ (mpstat's %soft and %irq) and its share of the
// NIC's queue interrupts, as grouped bars in percent; the CPUs of the
// NIC's NUMA node have a grey band behind them. A hot softirq core and
// interrupts concentrated on one CPU, or away from the NIC's node, stand
// out. The error wraps report.ErrNoData when the round has no cpu_soft.
//
// Similar to: mpstat -P ALL 1 and watch -d grep eth0 /proc/interrupts, side by side
func CPULoad(r report.Round, opts CPULoadOptions) (Figure, error) {
	soft, hard, irqs, total := cpuMedians(r)
	if len(soft) == 0 {
		return Figure{}, fmt.Errorf("%w: round %s has no per-CPU load (cpu_soft)", report.ErrNoData, r.Name)
	}
	cpus := slices.Sorted(func(yield func(int) bool) {
		for c := range soft {
			if !yield(c) {
				return
			}
		}
	})
	node, nodeText := opts.NodeCPUs, "NIC's NUMA node CPUs"
	if node == nil {
		node, nodeText = fingerprintNode(r.Fingerprint)
	}
	p := newPlot()
	p.Y.Label.Text = "% (median over the runs)"
	top := 0.0
	for _, m := range []map[int]float64{soft, hard} {
		for _, v := range m {
			top = max(top, v)
		}
	}
	if total > 0 {
		top = 100 // the queue interrupts' shares add up to 100
	}
	p.Y.Min, p.Y.Max = 0, min(100, max(10, top*1.15))
	p.X.Label.Text = "CPU"
	labels := make([]string, len(cpus))
	step := max(1, len(cpus)/16)
	for i, c := range cpus {
		if i%step == 0 {
			labels[i] = strconv.Itoa(c)
		}
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max, p.X.Padding = -0.5, float64(len(cpus))-0.5, 0
	var band rects
	groups := []struct {
		name string
		v    map[int]float64
	}{{"%soft", soft}, {"%irq", hard}}
	if total > 0 {
		for c := range irqs {
			irqs[c] = 100 * irqs[c] / total
		}
		groups = append(groups, struct {
			name string
			v    map[int]float64
		}{"% of the NIC's queue interrupts", irqs})
	}
	w := 0.8 / float64(len(groups))
	bars := make([]rects, len(groups))
	for i, c := range cpus {
		x := float64(i)
		if slices.Contains(node, c) {
			band = append(band, rect{x - 0.5, x + 0.5, 0, p.Y.Max, lightGrey})
		}
		for g, gr := range groups {
			x0 := x - 0.4 + float64(g)*w
			bars[g] = append(bars[g], rect{x0, x0 + w*0.9, 0, gr.v[c], colorOf(g)})
		}
	}
	f := &frame{title: "per-CPU softirq, IRQ and queue-interrupt load: " + r.Name, panels: []panel{{p, 1}}, plotH: 7 * 28.35}
	if len(band) > 0 {
		p.Add(band)
		f.legend = append(f.legend, legendEntry{nodeText, rects{{Fill: lightGrey}}})
	} else {
		f.footnotes = append(f.footnotes, nodeText)
	}
	for g, gr := range groups {
		p.Add(bars[g])
		f.legend = append(f.legend, legendEntry{gr.name, rects{{Fill: colorOf(g)}}})
	}
	caption := "Per CPU, the median share of its time in softirq and hard IRQ over the round's runs, and its share of the NIC's queue interrupts; " +
		"the grey band marks the NIC's NUMA node CPUs, where the queue interrupts belong."
	return f.figure(orDefault(opts.Name, "cpu"), caption)
}

// cpuMedians are the medians of r's per-CPU metrics by CPU: softirq and
// IRQ shares, queue interrupts, and the queue interrupts' total.
func cpuMedians(r report.Round) (soft, hard, irqs map[int]float64, total float64) {
	soft, hard, irqs = map[int]float64{}, map[int]float64{}, map[int]float64{}
	for _, m := range r.Metrics {
		c, ok := m.Label("cpu")
		cpu, err := strconv.Atoi(c)
		if !ok || err != nil || len(m.Values) == 0 {
			continue
		}
		med := report.Summarize(m).Median
		switch m.Name {
		case "cpu_soft":
			soft[cpu] = med
		case "cpu_irq":
			hard[cpu] = med
		case "queue_irqs":
			irqs[cpu] = med
			total += med
		}
	}
	return soft, hard, irqs, total
}

// fingerprintNode returns the NUMA node CPUs of the first NIC that has
// them, preferring a remote host's (the receiver in the examples), and
// the legend text for them.
func fingerprintNode(fp *report.Fingerprint) ([]int, string) {
	if fp == nil {
		return nil, "NIC's NUMA node unknown (no fingerprint)"
	}
	nics := slices.Clone(fp.NICs)
	slices.SortStableFunc(nics, func(a, b report.NICFingerprint) int {
		return boolInt(a.Host == "local" || a.Host == "") - boolInt(b.Host == "local" || b.Host == "")
	})
	for _, n := range nics {
		if n.NUMANodeCPUs == "" {
			continue
		}
		set, err := irq.ParseCPUList(n.NUMANodeCPUs)
		if err != nil {
			continue
		}
		return set, fmt.Sprintf("NUMA node %d of %s (CPUs %s)", n.NUMANode, n.Netdev, n.NUMANodeCPUs)
	}
	var ns []string
	for _, n := range nics {
		ns = append(ns, fmt.Sprintf("%s numa_node %d", n.Netdev, n.NUMANode))
	}
	return nil, "no NUMA node CPUs recorded (" + orDefault(strings.Join(ns, ", "), "no NIC") + "): every CPU is as near as any"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
