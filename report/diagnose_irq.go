package report

import (
	"strings"

	"github.com/rocekit/rocekit/bottleneck"
	"github.com/rocekit/rocekit/irq"
)

// CheckIRQDistribution reports a NIC's queue interrupts concentrated on one
// CPU, and queue IRQs whose home CPU is off the NIC's NUMA node, from an
// irq.Distribution (its verdict, with the numbers).
//
// Similar to: grep eth0 /proc/interrupts (twice); show_irq_affinity.sh eth0
func CheckIRQDistribution(d irq.Distribution) []Finding {
	var out []Finding
	if d.Idle {
		return nil
	}
	if d.Concentrated {
		out = append(out, Finding{Rule: RuleIRQConcentrated, Severity: SeverityWarning,
			Summary: sprintf("%s: CPU%d took %.0f%% of %d queue interrupts from %d queue IRQs", d.Netdev, d.Busiest, 100*d.BusiestShare, d.Total, len(d.PerIRQ)),
			Evidence: []Evidence{ev("busiest_cpu", float64(d.Busiest), "cpu"), ev("busiest_share", d.BusiestShare, UnitRatio),
				ev("interrupts", float64(d.Total), "count"), ev("queue_irqs", float64(len(d.PerIRQ)), "count"), ev("cpus_used", float64(len(d.CPUsUsed)), "count")},
			Action: "spread the queue IRQs round-robin over the NIC's NUMA-local cores (set_irq_affinity_bynode.sh NODE DEV, irq.Root.ByNode) and stop irqbalance"})
	}
	if len(d.OffNode) > 0 {
		evs := []Evidence{ev("off_node_irqs", float64(len(d.OffNode)), "count"), ev("queue_irqs", float64(len(d.PerIRQ)), "count")}
		for _, n := range d.OffNode {
			evs = append(evs, ev("irq", float64(n), "irq"))
		}
		out = append(out, Finding{Rule: RuleIRQOffNode, Severity: SeverityWarning,
			Summary:  sprintf("%s: %d of %d queue IRQs fire on CPUs outside the NIC's NUMA node (CPUs %s)", d.Netdev, len(d.OffNode), len(d.PerIRQ), d.NodeCPUs),
			Evidence: evs,
			Action:   "move them to the node's CPUs (echo CPUS > /proc/irq/N/smp_affinity_list, irq.Root.ByNode) and run the test on the same node"})
	}
	return out
}

// CheckSoftirq reports a CPU that spent more than MaxSoftPct of its time in
// softirq: the core that limits a soft-RoCE or UDP run. It sees one host's
// softirq only; CheckBusyCore judges both ends on softirq, irq and system
// time and names the thread.
//
// Similar to: mpstat -P ALL 1, looking for %soft near 100
func CheckSoftirq(h irq.HotCore, th Thresholds) []Finding {
	th = th.WithDefaults()
	if h.CPU < 0 || h.SoftPct <= th.MaxSoftPct {
		return nil
	}
	return one(Finding{Rule: RuleHotSoftirq, Severity: SeverityWarning,
		Summary: sprintf("CPU%d spent %.0f%% in softirq (%.0f%% idle): it limits the run", h.CPU, h.SoftPct, h.IdlePct),
		Evidence: []Evidence{ev("cpu", float64(h.CPU), "cpu"), ev("soft", h.SoftPct, UnitPercent), ev("irq", h.IRQPct, UnitPercent),
			ev("idle", h.IdlePct, UnitPercent), ev("net_rx_runs", float64(h.NetRX), "count")},
		Action: "spread the load: more queues (ethtool -L DEV combined N) with IRQs on distinct NUMA-local cores, RPS for a single-queue NIC, or more QPs/streams so that other cores take part"})
}

// CheckGovernor reports CPUs whose cpufreq governor is not performance.
//
// Similar to: cpupower frequency-info -p
func CheckGovernor(gs []irq.CPUGovernor) []Finding {
	var other []irq.CPUGovernor
	for _, g := range gs {
		if g.Governor != "performance" {
			other = append(other, g)
		}
	}
	if len(other) == 0 {
		return nil
	}
	return one(Finding{Rule: RuleGovernor, Severity: SeverityWarning,
		Summary:  sprintf("%d of %d CPUs run governor %s, not performance", len(other), len(gs), GovernorSummary(other)),
		Evidence: []Evidence{ev("cpus_not_performance", float64(len(other)), "count"), ev("cpus", float64(len(gs)), "count")},
		Action:   "cpupower frequency-set -g performance (irq.Root.SetGovernor) for the run, and record it in the fingerprint"})
}

// CheckIRQBalance reports irqbalance running in a round whose IRQ affinity
// was set by hand: irqbalance rewrites it.
//
// Similar to: pgrep irqbalance
func CheckIRQBalance(pids []int, affinitySet bool) []Finding {
	if !affinitySet || len(pids) == 0 {
		return nil
	}
	return one(Finding{Rule: RuleIRQBalanceRunning, Severity: SeverityCritical,
		Summary:  sprintf("irqbalance (%d processes) runs although IRQ affinity was set for this round: it may have moved the IRQs", len(pids)),
		Evidence: []Evidence{ev("irqbalance_processes", float64(len(pids)), "count"), ev("pid", float64(pids[0]), "pid")},
		Action:   "systemctl stop irqbalance (or --banirq the NIC's IRQs), set the affinity again and rerun the round"})
}

// RuleBusyCore is CheckBusyCore's rule: one core of either end busy in
// softirq, irq and system time together while the tool ran.
const RuleBusyCore = "busy_core"

// CheckBusyCore reports the busiest core of both ends when its softirq,
// irq and system time together reach th.BusyCore (90 %): on recent kernels
// rdma_rxe works in a work queue (rxe_wq: system time, not softirq), and a
// UDP sender's core fills with udp_sendmsg's system time, which a softirq
// rule alone misses. It names the core, the end, the threads that ran
// there (HostLoad.Threads) and whether the core is local to the NIC's
// NUMA node, and advises by what ran there.
//
// Similar to: mpstat -P ALL 1 and top -H on both hosts
func CheckBusyCore(loads []HostLoad, th bottleneck.Thresholds) []Finding {
	th = th.WithDefaults()
	var cores []bottleneck.Core
	threads := map[string][]irq.ThreadLoad{}
	for _, l := range loads {
		cores = append(cores, l.Cores()...)
		threads[l.Host] = l.Threads
	}
	c, ok := bottleneck.Busiest(cores)
	if !ok || c.BusyPct() < th.BusyCore {
		return nil
	}
	text := bottleneck.CoreText(c)
	evs := []Evidence{ev("cpu", float64(c.CPU), "cpu"), ev("softirq", c.SoftPct, UnitPercent), ev("irq", c.IRQPct, UnitPercent),
		ev("system", c.SysPct, UnitPercent)}
	var actions []string
	switch {
	case c.NUMALocal == nil:
		text += ", NUMA node unknown"
	case *c.NUMALocal:
		evs = append(evs, ev("numa_local", 1, "bool"))
	default:
		evs = append(evs, ev("numa_local", 0, "bool"))
		actions = append(actions, sprintf("run the tool and the NIC's IRQs on the NIC's NUMA node (taskset -c <its local CPUs>, irq.Root.ByNode): CPU%d is not on it", c.CPU))
	}
	top := irq.OnCPU(threads[c.Host], c.CPU)
	if len(top) > 0 {
		evs = append(evs, ev("top_thread_tid", float64(top[0].TID), "tid"), ev("top_thread_ticks", float64(top[0].Ticks()), "ticks"))
	}
	switch {
	case len(top) > 0 && strings.HasPrefix(top[0].Comm, "kworker/") && strings.Contains(top[0].Comm, "rxe"):
		actions = append(actions, "rdma_rxe does its packet work in its work queue on this core: more QPs (ib_send_bw -q 4, qp-scaling) spread it over more kworkers; keep the tool off this core (taskset -c N ib_send_bw ...) and set the performance governor (cpupower frequency-set -g performance)")
	case len(top) > 0 && strings.HasPrefix(top[0].Comm, "ksoftirqd/"):
		actions = append(actions, "softirq work overflowed into ksoftirqd: spread the NIC's queue IRQs over distinct NUMA-local cores (set_irq_affinity_bynode.sh NODE DEV, irq.Root.ByNode), add queues (ethtool -L DEV combined N), or RPS for a single-queue NIC")
	case len(top) > 0 && top[0].Role() == "":
		actions = append(actions, sprintf("the program %s shares the core with the kernel's network work: pin it to another core (taskset -c N) or move the NIC's IRQs off CPU%d (echo CPUS > /proc/irq/N/smp_affinity_list)", top[0].Comm, c.CPU))
	default:
		actions = append(actions, "spread the load: more queues (ethtool -L DEV combined N) with IRQs on distinct NUMA-local cores, RPS for a single-queue NIC, or more QPs/streams so that other cores take part")
	}
	return one(Finding{Rule: RuleBusyCore, Severity: SeverityWarning,
		Summary:  text + ": it limits the run",
		Evidence: evs,
		Action:   strings.Join(actions, "; ")})
}
