package irq

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Assignment gives one IRQ a CPU list.
type Assignment struct {
	IRQ  int
	Name string
	CPUs CPUList
}

// Skip is an IRQ a plan leaves alone, and why.
type Skip struct {
	IRQ    int
	Name   string
	Reason string // "control vector", "role other: name not known"
}

// Plan is what a policy would do; Apply does it.
type Plan struct {
	// Policy says how the plan was made ("round-robin over CPUs 0-3").
	Policy   string
	Assign   []Assignment
	Skipped  []Skip
	Warnings []error
}

// String lists the assignments, one per line: "IRQ 27 (virtio1-input.0) -> 0".
func (p Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", p.Policy)
	for _, a := range p.Assign {
		fmt.Fprintf(&b, "IRQ %d (%s) -> %s\n", a.IRQ, a.Name, a.CPUs)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(&b, "IRQ %d (%s) skipped: %s\n", s.IRQ, s.Name, s.Reason)
	}
	return b.String()
}

// queuesOnly splits irqs into the queue vectors a policy moves and the
// others it skips. Duplicate IRQ numbers are kept once.
func queuesOnly(irqs []QueueIRQ) (queues []QueueIRQ, skipped []Skip) {
	seen := map[int]bool{}
	for _, q := range irqs {
		if seen[q.IRQ] {
			continue
		}
		seen[q.IRQ] = true
		switch q.Role {
		case RoleQueue:
			queues = append(queues, q)
		case RoleControl:
			skipped = append(skipped, Skip{IRQ: q.IRQ, Name: q.Name, Reason: "control vector"})
		case RoleSideband:
			skipped = append(skipped, Skip{IRQ: q.IRQ, Name: q.Name, Reason: "sideband vector (Flow Director), no data queue"})
		case RoleCoreEQ:
			skipped = append(skipped, Skip{IRQ: q.IRQ, Name: q.Name, Reason: "core driver completion vector, not used by the netdev's rings"})
		default:
			skipped = append(skipped, Skip{IRQ: q.IRQ, Name: q.Name, Reason: "not a known queue vector"})
		}
	}
	return queues, skipped
}

// RoundRobin gives the queue IRQs of irqs one CPU each from cpus in turn,
// in the order given (Netdev lists them by IRQ number, which is queue order
// for the drivers known here), wrapping around when there are more IRQs
// than CPUs. Control and unknown vectors are skipped. Give it the IRQs of
// several NICs to spread them together.
//
// Similar to: set_irq_affinity_cpulist.sh LIST IF
func RoundRobin(irqs []QueueIRQ, cpus CPUList) Plan {
	p := Plan{Policy: fmt.Sprintf("round-robin over CPUs %s", cpus)}
	queues, skipped := queuesOnly(irqs)
	p.Skipped = skipped
	if len(cpus) == 0 {
		p.Warnings = append(p.Warnings, errors.New("irq: round-robin over an empty CPU list: nothing to do"))
		return p
	}
	for i, q := range queues {
		p.Assign = append(p.Assign, Assignment{IRQ: q.IRQ, Name: q.Name, CPUs: CPUList{cpus[i%len(cpus)]}})
	}
	return p
}

// PinAll gives every queue IRQ of irqs the one CPU cpu. Control and unknown
// vectors are skipped.
//
// Similar to: set_irq_affinity_cpulist.sh N IF
func PinAll(irqs []QueueIRQ, cpu int) Plan {
	p := RoundRobin(irqs, CPUList{cpu})
	p.Policy = fmt.Sprintf("all on CPU %d", cpu)
	return p
}

// ByNode spreads dev's queue IRQs round-robin over the CPUs of NUMA node
// node, or of the device's own node when node is negative. When the kernel
// does not know the device's node (-1, most VMs), it uses the device's
// local_cpulist, else all online CPUs, and says so in a warning.
//
// Similar to: set_irq_affinity_bynode.sh NODE IF
func (fs Root) ByNode(dev Netdev, node int) (Plan, error) {
	if node < 0 {
		node = dev.NUMANode
	}
	var cpus CPUList
	var warn error
	switch {
	case node >= 0:
		c, err := fs.NodeCPUs(node)
		if err != nil {
			return Plan{}, err
		}
		cpus = c
	case len(dev.LocalCPUs) > 0:
		cpus = dev.LocalCPUs
		warn = fmt.Errorf("irq: %s: NUMA node unknown; using its local CPUs %s", dev.Name, cpus)
	default:
		c, err := fs.OnlineCPUs()
		if err != nil {
			return Plan{}, err
		}
		cpus = c
		warn = fmt.Errorf("irq: %s: NUMA node unknown; using all online CPUs %s", dev.Name, cpus)
	}
	p := RoundRobin(dev.IRQs, cpus)
	if node >= 0 {
		p.Policy = fmt.Sprintf("round-robin over NUMA node %d (CPUs %s)", node, cpus)
	}
	if warn != nil {
		p.Warnings = append(p.Warnings, warn)
	}
	return p, nil
}

// Change is what Apply did to one IRQ.
type Change struct {
	IRQ  int
	Name string
	// Replaced is the smp_affinity_list before the write: what Restore
	// writes back. Nil if it could not be read.
	Replaced CPUList
	// Requested is the list the plan asked for.
	Requested CPUList
	// Effective is effective_affinity_list read back right after the write
	// (nil where the kernel has none).
	Effective CPUList
	// Pending is true when Effective is not yet within Requested. On x86
	// without interrupt remapping the kernel moves an MSI only when it
	// next fires (seen in the lab on 6.1 and 6.12: one more interrupt
	// lands on the old CPU); WaitEffective after some traffic shows the
	// move.
	Pending bool
	// Err is nil, or why this IRQ was not changed: an *AffinityError;
	// errors.Is(Err, ErrNotWritable) for IRQs user space cannot move.
	Err error
}

// Applied is the outcome of Apply or Restore.
type Applied struct {
	Changes  []Change
	Skipped  []Skip
	Warnings []error
}

// Apply writes a plan's assignments and reads back each IRQ's effective
// affinity, without waiting for it to follow (see Change.Pending). IRQs
// that cannot be moved (ErrNotWritable) are recorded in their Change and do
// not make Apply fail; any other write error does, and Apply goes on with
// the other IRQs. A running irqbalance is reported in Warnings. Give the
// result to Restore to undo it.
//
// Similar to: for each IRQ: echo CPU > /proc/irq/N/smp_affinity_list
func (fs Root) Apply(ctx context.Context, p Plan) (Applied, error) {
	res := Applied{Skipped: p.Skipped, Warnings: slices.Clone(p.Warnings)}
	if pids, err := fs.IRQBalance(); err == nil && len(pids) > 0 {
		res.Warnings = append(res.Warnings, irqbalanceWarning(pids))
	}
	var errs []error
	for _, a := range p.Assign {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		c := Change{IRQ: a.IRQ, Name: a.Name, Requested: a.CPUs}
		old, err := fs.SetAffinity(a.IRQ, a.CPUs)
		c.Replaced = old
		if err != nil {
			c.Err = err
			if !errors.Is(err, ErrNotWritable) {
				errs = append(errs, err)
			}
			res.Changes = append(res.Changes, c)
			continue
		}
		if aff, err := fs.Affinity(a.IRQ); err == nil {
			c.Effective = aff.Effective
			c.Pending = aff.Effective != nil && (len(aff.Effective) == 0 || len(aff.Effective.Without(a.CPUs)) > 0)
		}
		res.Changes = append(res.Changes, c)
	}
	return res, errors.Join(errs...)
}

// Restore writes back the affinity each successful change of a replaced,
// in reverse order, and returns what it did (each Change's Replaced is
// then the list Apply had set).
//
// Similar to: echo OLD > /proc/irq/N/smp_affinity_list
func (fs Root) Restore(ctx context.Context, a Applied) (Applied, error) {
	var undo Plan
	for i := len(a.Changes) - 1; i >= 0; i-- {
		c := a.Changes[i]
		if c.Err != nil || len(c.Replaced) == 0 {
			continue
		}
		undo.Assign = append(undo.Assign, Assignment{IRQ: c.IRQ, Name: c.Name, CPUs: c.Replaced})
	}
	return fs.Apply(ctx, undo)
}
