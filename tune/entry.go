package tune

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
)

// Kind is what a change changes.
type Kind string

// Kinds of change, each made through the package that owns it. Each is
// one entry of the kinds table (kinds_builtin.go), which says how it is
// checked, read, written and compared; a new kind is a file of its own
// that registers its entry (kind_txqueuelen.go).
const (
	KindMTU      Kind = "mtu"      // nic.Handle.SetMTU
	KindLink     Kind = "link"     // nic.Handle.SetUp
	KindRing     Kind = "ring"     // nic.Handle.SetRing
	KindChannels Kind = "channels" // nic.Handle.SetChannels
	KindRXE      Kind = "rxe"      // rxe.Handle.AddLink, DeleteLink
	KindAffinity Kind = "affinity" // irq.Root.SetAffinity
	KindGovernor Kind = "governor" // irq.Root.SetGovernors
	// KindSysctl writes a file under /proc/sys, in a named network
	// namespace when Target.Netns is set.
	KindSysctl Kind = "sysctl"
	// KindFeatures turns offloads on or off: nic.Handle.SetFeatures.
	KindFeatures Kind = "features"
	// KindCoalesce changes interrupt coalescing: nic.Handle.SetCoalesce.
	KindCoalesce Kind = "coalesce"
	// KindIRQBalance pauses (SIGSTOP) or resumes (SIGCONT) the running
	// irqbalance daemons.
	KindIRQBalance Kind = "irqbalance"
)

// Target is what a change acts on. Which fields count depends on the
// Kind: Netns and Netdev for MTU, link, ring and channels; Netns, Link
// (and the netdev in the Value) for rxe; IRQ for affinity; CPU for
// governor.
type Target struct {
	Netns  string `json:"netns,omitempty"`  // named network namespace, "" for the caller's
	Netdev string `json:"netdev,omitempty"` // "eth0"
	Link   string `json:"link,omitempty"`   // rxe link name, "rxe0"
	IRQ    int    `json:"irq,omitempty"`
	CPU    int    `json:"cpu,omitempty"`
	Key    string `json:"key,omitempty"` // sysctl, "net.core.rmem_max"
	// PID and PIDStart name a process (KindProcess): its start time tells
	// it from a later process with the same PID.
	PID      int    `json:"pid,omitempty"`
	PIDStart uint64 `json:"pid_start,omitempty"`
}

// String names the target: "netdev eth0", "netdev v0 in netns a",
// "rxe link rxe0", else "IRQ 27" (IRQ set) or "CPU 3". Entry.String
// names it by its kind, which tells IRQ 0 from CPU 0.
func (t Target) String() string {
	var s string
	switch {
	case t.Netdev != "":
		s = "netdev " + t.Netdev
	case t.Link != "":
		s = "rxe link " + t.Link
	case t.Key != "":
		s = "sysctl " + t.Key
	case t.IRQ != 0:
		return "IRQ " + strconv.Itoa(t.IRQ)
	default:
		return "CPU " + strconv.Itoa(t.CPU)
	}
	if t.Netns != "" {
		s += " in netns " + t.Netns
	}
	return s
}

// IRQBalanceState is whether the irqbalance daemons are paused, and which.
type IRQBalanceState struct {
	Paused bool  `json:"paused"`
	PIDs   []int `json:"pids,omitempty"`
}

// RXELink is the state of an rxe link: present on a netdev, or absent.
type RXELink struct {
	Present bool   `json:"present"`
	Netdev  string `json:"netdev,omitempty"`
}

// Value is the value of one target; the field of the change's Kind is set.
// For ring and channels the journal keeps every count as the old value and
// only the requested ones as the new value.
type Value struct {
	MTU      int                 `json:"mtu,omitempty"`
	Up       *bool               `json:"up,omitempty"`
	Ring     *nic.RingUpdate     `json:"ring,omitempty"`
	Channels *nic.ChannelsUpdate `json:"channels,omitempty"`
	RXE      *RXELink            `json:"rxe,omitempty"`
	CPUs     irq.CPUList         `json:"cpus,omitempty"`
	Governor string              `json:"governor,omitempty"`
	// Sysctl is the file's content without its trailing newline, with
	// runs of blanks as one space ("4096 131072 6291456").
	Sysctl *string `json:"sysctl,omitempty"`
	// Features are offload states by ethtool -k name; the journal keeps
	// the old state of the features changed only.
	Features   map[string]bool     `json:"features,omitempty"`
	Coalesce   *nic.CoalesceUpdate `json:"coalesce,omitempty"`
	IRQBalance *IRQBalanceState    `json:"irqbalance,omitempty"`
	// Netns and Veth are the topology kinds' values (topology.go).
	Netns *NetnsState `json:"netns,omitempty"`
	Veth  *VethState  `json:"veth,omitempty"`
	// Process is KindProcess's value (process.go).
	Process *ProcessState `json:"process,omitempty"`
	// Ext is the value of a kind registered in a file of its own
	// (KindTxQueueLen): its JSON, which that file encodes and reads
	// (Value.TxQueueLen). Journals written before it have none.
	Ext json.RawMessage `json:"ext,omitempty"`
}

// String formats the value as the matching command would take it:
// "mtu 9000", "up", "rx 256 tx 256", "combined 2", "rxe on eth0",
// "cpus 0-3", "governor performance".
func (v Value) String() string {
	var parts []string
	if v.MTU != 0 {
		parts = append(parts, "mtu "+strconv.Itoa(v.MTU))
	}
	if v.Up != nil {
		parts = append(parts, map[bool]string{true: "up", false: "down"}[*v.Up])
	}
	if v.Ring != nil {
		parts = append(parts, counts([]string{"rx", "rx-mini", "rx-jumbo", "tx"},
			v.Ring.Rx, v.Ring.RxMini, v.Ring.RxJumbo, v.Ring.Tx))
	}
	if v.Channels != nil {
		parts = append(parts, counts([]string{"rx", "tx", "other", "combined"},
			v.Channels.Rx, v.Channels.Tx, v.Channels.Other, v.Channels.Combined))
	}
	if v.RXE != nil {
		if v.RXE.Present {
			parts = append(parts, "rxe on "+v.RXE.Netdev)
		} else {
			parts = append(parts, "no rxe link")
		}
	}
	if v.CPUs != nil {
		parts = append(parts, "cpus "+v.CPUs.String())
	}
	if v.Governor != "" {
		parts = append(parts, "governor "+v.Governor)
	}
	if v.Sysctl != nil {
		parts = append(parts, strconv.Quote(*v.Sysctl))
	}
	if v.Process != nil {
		parts = append(parts, v.Process.String())
	}
	if v.Features != nil {
		names := make([]string, 0, len(v.Features))
		for n := range v.Features {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			parts = append(parts, n+" "+onOff(v.Features[n]))
		}
	}
	if c := v.Coalesce; c != nil {
		if c.AdaptiveRx != nil {
			parts = append(parts, "adaptive-rx "+onOff(*c.AdaptiveRx))
		}
		if c.AdaptiveTx != nil {
			parts = append(parts, "adaptive-tx "+onOff(*c.AdaptiveTx))
		}
		parts = append(parts, counts([]string{"rx-usecs", "rx-frames", "tx-usecs", "tx-frames"}, c.RxUsecs, c.RxFrames, c.TxUsecs, c.TxFrames))
	}
	if v.IRQBalance != nil {
		st := "running"
		switch {
		case v.IRQBalance.Paused:
			st = "paused"
		case len(v.IRQBalance.PIDs) == 0:
			st = "not running"
		}
		parts = append(parts, "irqbalance "+st)
	}
	parts = append(parts, topologyString(v)...)
	if v.Ext != nil {
		parts = append(parts, string(v.Ext))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

func counts(names []string, vals ...*uint32) string {
	var parts []string
	for i, v := range vals {
		if v != nil {
			parts = append(parts, names[i]+" "+strconv.FormatUint(uint64(*v), 10))
		}
	}
	return strings.Join(parts, " ")
}

// Entry is one journaled change: what it changed, the value it replaced
// (Old) and the value it set (New). Done is set once the change was made;
// Restored once it was undone.
type Entry struct {
	Seq      int    `json:"seq"`
	Kind     Kind   `json:"kind"`
	Target   Target `json:"target"`
	Old      Value  `json:"old"`
	New      Value  `json:"new"`
	Done     bool   `json:"-"`
	Restored bool   `json:"-"`
}

// String describes the entry: "#3 mtu netdev eth0: mtu 1500 -> mtu 9000".
func (e Entry) String() string {
	return fmt.Sprintf("#%d %s %s: %s -> %s", e.Seq, e.Kind, e.Kind.target(e.Target), e.Kind.show(e.Old), e.Kind.show(e.New))
}

// UndoString describes the entry's undo in the direction it goes:
// "#1 mtu netdev eth0: mtu 9000 -> mtu 1500 (undone)".
func (e Entry) UndoString() string {
	return fmt.Sprintf("#%d %s %s: %s -> %s (undone)", e.Seq, e.Kind, e.Kind.target(e.Target), e.Kind.show(e.New), e.Kind.show(e.Old))
}

// Change is a change to make: a kind, a target and the new value. Make one
// with MTU, LinkUp, Ring, Channels, AddRXE, DeleteRXE, Affinity, Governor
// or Spread, and give it to Session.Apply.
type Change struct {
	Kind   Kind
	Target Target
	New    Value
}

// MTU sets a netdev's MTU.
//
// Similar to: ip -n NETNS link set NETDEV mtu MTU
func MTU(netns, netdev string, mtu int) Change {
	return Change{Kind: KindMTU, Target: Target{Netns: netns, Netdev: netdev}, New: Value{MTU: mtu}}
}

// LinkUp brings a netdev up or down.
//
// Similar to: ip -n NETNS link set NETDEV up|down
func LinkUp(netns, netdev string, up bool) Change {
	return Change{Kind: KindLink, Target: Target{Netns: netns, Netdev: netdev}, New: Value{Up: &up}}
}

// Ring changes the ring sizes set in u.
//
// Similar to: ethtool -G NETDEV rx N tx N
func Ring(netns, netdev string, u nic.RingUpdate) Change {
	return Change{Kind: KindRing, Target: Target{Netns: netns, Netdev: netdev}, New: Value{Ring: &u}}
}

// Channels changes the queue counts set in u.
//
// Similar to: ethtool -L NETDEV combined N
func Channels(netns, netdev string, u nic.ChannelsUpdate) Change {
	return Change{Kind: KindChannels, Target: Target{Netns: netns, Netdev: netdev}, New: Value{Channels: &u}}
}

// AddRXE creates an rxe link on a netdev.
//
// Similar to: rdma link add NAME type rxe netdev NETDEV
func AddRXE(netns, name, netdev string) Change {
	return Change{Kind: KindRXE, Target: Target{Netns: netns, Link: name},
		New: Value{RXE: &RXELink{Present: true, Netdev: netdev}}}
}

// DeleteRXE removes an rxe link (Restore re-creates it on its netdev).
//
// Similar to: rdma link delete NAME
func DeleteRXE(netns, name string) Change {
	return Change{Kind: KindRXE, Target: Target{Netns: netns, Link: name}, New: Value{RXE: &RXELink{}}}
}

// Affinity sets an IRQ's smp_affinity_list.
//
// Similar to: echo CPUS > /proc/irq/N/smp_affinity_list
func Affinity(irqNum int, cpus irq.CPUList) Change {
	return Change{Kind: KindAffinity, Target: Target{IRQ: irqNum}, New: Value{CPUs: cpus}}
}

// Governor sets a CPU's cpufreq governor.
//
// Similar to: cpupower -c CPU frequency-set -g GOVERNOR
func Governor(cpu int, governor string) Change {
	return Change{Kind: KindGovernor, Target: Target{CPU: cpu}, New: Value{Governor: governor}}
}

// Sysctl sets a kernel parameter by its dotted name ("net.core.rmem_max")
// or its path under /proc/sys ("net/ipv4/conf/eth0.100/rp_filter"), in a
// named network namespace when netns is set (only the net.* keys the
// kernel keeps per namespace exist there; rmem_max and wmem_max do not).
// Only net.* keys are taken, and a value of one line: runs of spaces and
// TABs separate its fields; a newline or another control character makes
// Apply refuse it (ErrInvalidInput), as an undo would.
//
// Similar to: ip netns exec NETNS sysctl -w KEY=VALUE
func Sysctl(netns, key, value string) Change {
	v := foldBlanks(value)
	return Change{Kind: KindSysctl, Target: Target{Netns: netns, Key: key}, New: Value{Sysctl: &v}}
}

// Features turns offloads on or off by their kernel names, as the
// ethtool netlink interface and nic.Handle.Features give them ("rx-gro"
// for ethtool's "gro" or "generic-receive-offload", "rx-lro", "rx-gro-hw",
// "tx-udp-segmentation").
//
// Similar to: ethtool -K NETDEV gro off lro on
func Features(netns, netdev string, want map[string]bool) Change {
	return Change{Kind: KindFeatures, Target: Target{Netns: netns, Netdev: netdev}, New: Value{Features: want}}
}

// Coalesce changes a NIC's interrupt coalescing: the fields set in u.
//
// Similar to: ethtool -C NETDEV adaptive-rx off rx-usecs 8 rx-frames 32
func Coalesce(netns, netdev string, u nic.CoalesceUpdate) Change {
	return Change{Kind: KindCoalesce, Target: Target{Netns: netns, Netdev: netdev}, New: Value{Coalesce: &u}}
}

// PauseIRQBalance pauses every running irqbalance daemon with SIGSTOP, so
// that it cannot move the IRQs a spread placed; Restore resumes them with
// SIGCONT. Pausing rather than stopping the service leaves nothing to
// start again, so even Recover after a crash needs no process: the
// daemons resume where they were.
//
// Similar to: systemctl stop irqbalance (and start after)
func PauseIRQBalance() Change {
	return Change{Kind: KindIRQBalance, New: Value{IRQBalance: &IRQBalanceState{Paused: true}}}
}

// Spread turns an irq policy's plan (irq.RoundRobin, FS.ByNode, PinAll)
// into one Affinity change per assignment. The plan's skipped IRQs and
// warnings are not changes; read them from the plan.
//
// Similar to: set_irq_affinity_cpulist.sh LIST IF
func Spread(p irq.Plan) []Change {
	out := make([]Change, 0, len(p.Assign))
	for _, a := range p.Assign {
		out = append(out, Affinity(a.IRQ, a.CPUs))
	}
	return out
}
