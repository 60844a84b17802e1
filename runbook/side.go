package runbook

import (
	"context"
	"errors"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rxe"
)

// Side is one end of a run: where its programs run and how its system is
// read and changed. Every change is journaled where it is made and undone
// by Restore. Local is this host (or a network namespace on it); Peer is
// another host reached over SSH.
type Side interface {
	// Name says where the side is ("local", "netns peer", "ssh root@h:22").
	Name() string
	// Runner runs the side's programs (ib_send_bw, netserver).
	Runner() host.Runner
	// PrepareRXE makes the side ready for perftest: rdma_rxe loaded, an rxe
	// link on the netdev (reused when there is one), the MTU set when
	// asked, the port ACTIVE and the RoCE v2 IPv4 GID picked.
	PrepareRXE(ctx context.Context, c RXEConfig) (RXE, error)
	// SetMTU sets a netdev's MTU (journaled).
	SetMTU(ctx context.Context, netdev string, mtu int) error
	// Netdev describes a netdev for the report: driver, NUMA node, MTU,
	// IPv4 address and its IRQs.
	Netdev(ctx context.Context, netdev string) (Netdev, error)
	// Counters reads what a round compares before and after: the
	// netdev's counters, UDP counters, /proc/interrupts and CPU load.
	Counters(ctx context.Context, netdev string) (Counters, error)
	// SpreadIRQs spreads the netdev's queue IRQs round-robin over the CPUs
	// of its NUMA node (all CPUs when the node is unknown), journaled.
	SpreadIRQs(ctx context.Context, netdev string) (Spread, error)
	// SetGovernor sets every CPU's cpufreq governor (journaled). Set is
	// false, with the reason, where there is no cpufreq (VMs).
	SetGovernor(ctx context.Context, governor string) (GovernorResult, error)
	// Host reads the host's preflight facts: kernel, governors,
	// irqbalance, socket buffer limits, firewall rules.
	Host(ctx context.Context) (Host, error)
	// PortCounters reads an RDMA device's port 1 counters (hw_counters
	// and counters).
	PortCounters(ctx context.Context, device string) (rxe.PortCounters, error)
	// KernelLog reads the kernel's log ring (kmsg.Read): compare two
	// reads with kmsg.Since to keep a round's lines.
	KernelLog(ctx context.Context) ([]kmsg.Record, error)
	// SetSysctl sets a kernel parameter (journaled).
	SetSysctl(ctx context.Context, key, value string) error
	// Restore undoes every change the side made, newest first.
	Restore(ctx context.Context) error
	// Close releases connections; it does not restore.
	Close() error
}

// RXEConfig is what PrepareRXE sets up.
type RXEConfig struct {
	Netdev string `json:"netdev"`
	// Name of the rxe link to create when the netdev has none ("rxe0").
	Name string `json:"name"`
	// MTU for the netdev; 0 leaves it.
	MTU int `json:"mtu,omitempty"`
}

// RXE is a prepared rxe side: what perftest needs on it.
type RXE struct {
	Device    string        `json:"device"`
	Netdev    string        `json:"netdev"`
	Addr      string        `json:"addr"` // the netdev's IPv4 address
	NetdevMTU int           `json:"netdev_mtu"`
	Created   bool          `json:"created"` // the link was made (not reused)
	GID       rxe.Selection `json:"gid"`
}

// Netdev describes a netdev for a report.
type Netdev struct {
	Snapshot nic.Snapshot `json:"snapshot"`
	Addr     string       `json:"addr,omitempty"`
	// LocalCPUs are the CPUs local to the netdev's PCI function. Its
	// NUMA node is Snapshot.Device.NUMANode (-1 when the kernel does
	// not know, as in most VMs).
	LocalCPUs irq.CPUList    `json:"local_cpus,omitempty"`
	IRQs      []irq.QueueIRQ `json:"irqs,omitempty"`
	// Affinity is where each of IRQs may and does fire now.
	Affinity []irq.Affinity `json:"affinity,omitempty"`
	// Warnings say what could not be read (IRQs of a netdev in another
	// namespace, a driver without ethtool ring support). JSON has their
	// messages.
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// IRQNetdev rebuilds the irq view of the netdev, for irq.Distribute.
func (n Netdev) IRQNetdev() irq.Netdev {
	return irq.Netdev{Name: n.Snapshot.Netdev, NUMANode: n.Snapshot.Device.NUMANode, LocalCPUs: n.LocalCPUs,
		IRQs: n.IRQs, Driver: n.Snapshot.Driver.Driver}
}

// Counters is a side's state at one moment, compared before and after a
// run.
type Counters struct {
	Time       time.Time        `json:"time"`
	Stats      nic.Stats        `json:"stats"`
	UDP        nic.UDPCounters  `json:"udp"`
	Interrupts irq.Interrupts   `json:"interrupts"`
	Load       irq.LoadSnapshot `json:"load"`
	// Threads are every thread's CPU time by the CPU it last ran on
	// (irq.Root.Threads): which thread kept a busy core busy (rxe_wq's
	// kworker, ksoftirqd/N, the tool).
	Threads irq.ThreadSnapshot `json:"threads"`
	// AER are the NIC's PCIe AER counters (nic.Root.AER); nil for a
	// netdev without a PCI function or a device without AER.
	AER *nic.AERCounts `json:"aer,omitempty"`
}

// Growth is what happened on a side between two Counters.
type Growth struct {
	Stats nic.StatsDelta
	UDP   nic.UDPCounters
	Load  irq.Load
	// Threads are the threads that used CPU time, most first
	// (irq.ThreadSnapshot.Sub); nil when a side's Counters had none.
	Threads []irq.ThreadLoad
	// Distribution judges where the netdev's queue interrupts landed.
	Distribution irq.Distribution
	// AER is what the NIC's PCIe AER counters grew by; nil when either
	// read had none.
	AER *nic.AERCounts
}

// Sub returns what the Counters of the netdev dev grew by from before to
// after (these Counters): after.Sub(before, dev), as nic.Stats.Sub and the
// other counters' Sub.
func (after Counters) Sub(before Counters, dev Netdev) (Growth, error) {
	d, err := after.Stats.Sub(before.Stats)
	if err != nil {
		return Growth{}, err
	}
	node := dev.LocalCPUs
	var aer *nic.AERCounts
	if before.AER != nil && after.AER != nil {
		d := after.AER.Sub(*before.AER)
		aer = &d
	}
	return Growth{
		AER:          aer,
		Stats:        d,
		UDP:          after.UDP.Sub(before.UDP),
		Load:         after.Load.Sub(before.Load),
		Threads:      after.Threads.Sub(before.Threads),
		Distribution: irq.Distribute(dev.IRQNetdev(), before.Interrupts, after.Interrupts, node, irq.Thresholds{}),
	}, nil
}

// HostLoad is the growth's CPU load and threads as report.Bottleneck and
// report.CheckBusyCore take them, for the end named host; the NIC's
// NUMA-local CPUs come from dev (nil when unknown).
func (g Growth) HostLoad(host string, dev Netdev) report.HostLoad {
	var local []int
	if dev.Snapshot.Device.NUMANode >= 0 && len(dev.LocalCPUs) > 0 {
		local = dev.LocalCPUs
	}
	return report.HostLoad{Host: host, Load: g.Load, LocalCPUs: local, Threads: g.Threads}
}

// Spread is what SpreadIRQs did.
type Spread struct {
	Policy   string           `json:"policy"`
	Assign   []irq.Assignment `json:"assign"`
	Skipped  []irq.Skip       `json:"skipped,omitempty"`
	Warnings warnjson.Errors  `json:"warnings,omitempty"`
}

// GovernorResult is what SetGovernor did.
type GovernorResult struct {
	Set      bool              `json:"set"`
	Replaced []irq.CPUGovernor `json:"replaced,omitempty"`
	Reason   string            `json:"reason,omitempty"`
}

// ErrNoIPv4 means a netdev has no IPv4 address: perftest and netperf
// clients need one to connect to.
var ErrNoIPv4 = errors.New("runbook: netdev has no IPv4 address")
