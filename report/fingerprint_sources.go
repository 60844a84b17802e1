package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
)

// NICFromSnapshot takes a netdev's fingerprint from a nic.Snapshot.
//
// Similar to: ip link show DEV; ethtool -i DEV; ethtool DEV; ethtool -g DEV; ethtool -l DEV
func NICFromSnapshot(host string, s nic.Snapshot) NICFingerprint {
	f := NICFingerprint{
		Host:          host,
		Netdev:        s.Netdev,
		MTU:           s.MTU,
		RoCEPathMTU:   s.RoCEPathMTU,
		Driver:        s.Driver.Driver,
		DriverVersion: s.Driver.Version,
		Firmware:      s.Driver.FirmwareVersion,
		NUMANode:      s.Device.NUMANode,
		NUMANodeCPUs:  irq.NewCPUList(s.Device.NodeCPUs...).String(),
	}
	if s.Device.PCI != nil {
		f.PCIAddress = s.Driver.BusInfo
		if l := s.Device.PCI.Link; l != nil && l.GTps > 0 {
			f.PCIe, f.PCIeDegraded = l.String(), l.Degraded()
		}
	}
	if l := s.Link; l != nil {
		f.SpeedMbps = l.SpeedMbps
		f.Duplex = string(l.Duplex)
	}
	if r := s.Ring; r != nil {
		f.RingRx, f.RingTx = r.RxPending, r.TxPending
	}
	if c := s.Channels; c != nil {
		f.ChannelsComb, f.ChannelsRx, f.ChannelsTx = c.Combined, c.Rx, c.Tx
	}
	return f
}

// RXEFromLink takes an rxe link's fingerprint from its netlink view and the
// GID selected on its first port (sel may be nil: no GID chosen).
//
// Similar to: rdma link show rxe0/1; show_gids rxe0
func RXEFromLink(host string, l rxe.Link, sel *rxe.Selection) RXEFingerprint {
	f := RXEFingerprint{Host: host, Link: l.Name, Netdev: l.Netdev(), GIDIndex: -1}
	if len(l.Ports) > 0 {
		f.State = l.Ports[0].State.String() + "/" + l.Ports[0].PhysState.String()
	}
	if sel != nil {
		f.GIDIndex = sel.Entry.Index
		f.GID = sel.Entry.GID.String()
		f.GIDType = sel.Entry.Type.String()
	}
	return f
}

// GovernorSummary summarises per-CPU governors: "performance" when all
// agree, else each governor with its CPU count in order of first
// appearance ("powersave×6,performance×2"); "" for none.
//
// Similar to: cpupower frequency-info -p
func GovernorSummary(gs []irq.CPUGovernor) string {
	var names []string
	count := map[string]int{}
	for _, g := range gs {
		if count[g.Governor] == 0 {
			names = append(names, g.Governor)
		}
		count[g.Governor]++
	}
	if len(names) == 1 {
		return names[0]
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s×%d", n, count[n])
	}
	return strings.Join(parts, ",")
}

// IRQBalanceState returns "running" when irqbalance has processes (the
// PIDs irq.Root.IRQBalance returns), "stopped" otherwise.
//
// Similar to: pgrep irqbalance
func IRQBalanceState(pids []int) string {
	if len(pids) > 0 {
		return "running"
	}
	return "stopped"
}

// IRQPlacementSummary summarises an interrupt distribution in one line:
// "4 queue IRQs on CPUs 0-3 (busiest CPU0 31%), node CPUs 0-7, off node:
// none". An idle distribution says so.
//
// Similar to: grep eth0 /proc/interrupts, twice, by eye
func IRQPlacementSummary(d irq.Distribution) string {
	if d.Idle {
		return fmt.Sprintf("%d queue IRQs idle", len(d.PerIRQ))
	}
	off := "none"
	if len(d.OffNode) > 0 {
		s := make([]string, len(d.OffNode))
		for i, n := range d.OffNode {
			s[i] = fmt.Sprint(n)
		}
		off = "IRQ " + strings.Join(s, ",")
	}
	node := "unknown"
	if d.NodeCPUs != nil {
		node = d.NodeCPUs.String()
	}
	cpus := slices.Clone(d.CPUsUsed)
	return fmt.Sprintf("%d queue IRQs on CPUs %s (busiest CPU%d %.0f%%), node CPUs %s, off node: %s",
		len(d.PerIRQ), cpus.String(), d.Busiest, 100*d.BusiestShare, node, off)
}
