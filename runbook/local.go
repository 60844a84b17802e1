package runbook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/sysroot"
	"github.com/rocekit/rocekit/tune"
)

// Local is a side on this host: the caller's network namespace, or the
// named one. Its changes go through a tune session journaled in Journal,
// begun at the first change; after a crash, tune.Recover(Journal) undoes
// them.
type Local struct {
	// Netns is a named network namespace (ip netns add); "" is the
	// caller's. IRQs and CPUs are the host's either way.
	Netns string
	// Journal is the tune journal's path.
	Journal string
	// Root is where /proc and /sys are, the same field as nic.Options,
	// rxe.Options and tune.Options take; the zero Root is the live
	// system. nic, irq, rxe and tune all read it, so a Local on fixture
	// trees reads placement, IRQs, governors and rxe counters from them.
	// Netlink, ethtool, and Host's hostname, kernel release and sysctls
	// (bound to the namespace) stay live.
	Root sysroot.Root

	mu     sync.Mutex
	sess   *tune.Session
	stamps []stamp // when each pending change was asked for, oldest first
}

// fs returns the side's root as irq reads it.
func (l *Local) fs() irq.Root { return irq.Root(l.Root) }

// openNIC opens a nic Handle in the side's namespace on its root.
func (l *Local) openNIC() (*nic.Handle, error) {
	return nic.Open(nic.Options{Netns: l.Netns, Root: l.Root})
}

// Name returns "local" or "netns NAME".
func (l *Local) Name() string {
	if l.Netns != "" {
		return "netns " + l.Netns
	}
	return "local"
}

// Runner returns host.Local or host.Netns.
func (l *Local) Runner() host.Runner {
	if l.Netns != "" {
		return host.Netns{Name: l.Netns}
	}
	return host.Local{}
}

// apply makes changes through the side's session, beginning it if needed.
func (l *Local) apply(ctx context.Context, changes ...tune.Change) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess == nil {
		if l.Journal == "" {
			return fmt.Errorf("runbook: %s: no journal path for changes", l.Name())
		}
		s, err := tune.Begin(l.Journal, tune.Options{Root: l.Root})
		if err != nil {
			return err
		}
		l.sess = s
	}
	at := time.Now()
	_, err := l.sess.Apply(ctx, changes...)
	l.stamp(at)
	return err
}

// Restore undoes the session's changes, newest first.
func (l *Local) Restore(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess == nil {
		return nil
	}
	_, err := l.sess.Restore(ctx)
	if err != nil {
		return fmt.Errorf("restore (journal %s): %w", l.Journal, err)
	}
	l.sess.Close()
	l.sess, l.stamps = nil, nil
	return nil
}

// Close leaves the journal as it is (Restore first to undo).
func (l *Local) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess != nil {
		err := l.sess.Close()
		l.sess, l.stamps = nil, nil
		return err
	}
	return nil
}

// PrepareRXE loads rdma_rxe if needed, reuses the netdev's rxe link (or one
// named c.Name) or creates it, sets the MTU, waits for the port and the
// RoCE v2 IPv4 GID of the netdev's address and selects it.
func (l *Local) PrepareRXE(ctx context.Context, c RXEConfig) (RXE, error) {
	info := RXE{Netdev: c.Netdev}
	if err := l.netdevUp(ctx, c.Netdev); err != nil {
		return info, err
	}
	root := rxe.Root(l.Root)
	mod, err := root.RXEModule()
	if err != nil {
		return info, err
	}
	if !mod.Loaded && !mod.BuiltIn {
		if !mod.Usable() {
			return info, fmt.Errorf("rdma_rxe is not usable here: %s: %w", mod.Diagnosis(), rxe.ErrModuleMissing)
		}
		if _, err := rxe.LoadModule(ctx, root, l.Runner()); err != nil {
			return info, err
		}
	}
	h, err := rxe.Open(rxe.Options{Netns: l.Netns, Root: l.Root})
	if err != nil {
		return info, err
	}
	defer h.Close()
	links, err := h.Links(ctx)
	if err != nil {
		return info, err
	}
	for _, k := range links {
		// The netdev of a link in another namespace reads "" (the kernel
		// names it only in its own), so a link is also known by its name.
		if k.Netdev() == c.Netdev || (k.Name == c.Name && k.Netdev() == "") {
			info.Device = k.Name
		}
	}
	if info.Device == "" {
		if c.Name == "" {
			c.Name = "rxe0"
		}
		if err := l.apply(ctx, tune.AddRXE(l.Netns, c.Name, c.Netdev)); err != nil {
			return info, err
		}
		info.Device, info.Created = c.Name, true
	}
	if c.MTU > 0 {
		if err := l.SetMTU(ctx, c.Netdev, c.MTU); err != nil {
			return info, err
		}
	}
	if _, err := h.WaitActive(ctx, info.Device); err != nil {
		return info, err
	}
	if info.Addr, err = l.IPv4(ctx, c.Netdev); err != nil {
		return info, err
	}
	if info.NetdevMTU, err = l.mtu(ctx, c.Netdev); err != nil {
		return info, err
	}
	// The RoCE v2 GID of the address appears a moment after the link.
	if _, err := root.WaitGID(ctx, info.Device, 1, func(e rxe.GIDEntry) bool {
		ip, ok := e.IPv4()
		return ok && ip.String() == info.Addr
	}); err != nil {
		return info, err
	}
	table, err := root.GIDTable(info.Device, 1)
	if err != nil {
		return info, err
	}
	info.GID, err = rxe.SelectGID(table, rxe.SelectOptions{})
	return info, err
}

// netdevUp returns at once with an *rxe.NetdevDownError for a netdev that
// is administratively down, and after rxe.CarrierGrace for one that is up
// without a carrier: its rxe port would wait for ACTIVE until ctx ends.
func (l *Local) netdevUp(ctx context.Context, netdev string) error {
	h, err := l.openNIC()
	if err != nil {
		return err
	}
	defer h.Close()
	since := time.Now()
	for {
		st, err := h.State(ctx, netdev)
		if errors.Is(err, nic.ErrNetdevNotFound) {
			return nil // the rxe link's creation says so, as before
		}
		if err != nil {
			return err
		}
		ready, err := rxe.NetdevUp(l.Netns, netdev, st.AdminUp, st.OperState, since, time.Now())
		if ready || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("runbook: netdev %s has no carrier (operstate %s): %w", netdev, st.OperState, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (l *Local) mtu(ctx context.Context, netdev string) (int, error) {
	h, err := l.openNIC()
	if err != nil {
		return 0, err
	}
	defer h.Close()
	return h.MTU(ctx, netdev)
}

// SetMTU sets the netdev's MTU through the journal.
func (l *Local) SetMTU(ctx context.Context, netdev string, mtu int) error {
	return l.apply(ctx, tune.MTU(l.Netns, netdev, mtu))
}

// Netdev snapshots the netdev and finds its IRQs.
func (l *Local) Netdev(ctx context.Context, netdev string) (Netdev, error) {
	var info Netdev
	h, err := l.openNIC()
	if err != nil {
		return info, err
	}
	defer h.Close()
	if info.Snapshot, err = h.Snapshot(ctx, netdev); err != nil {
		return info, err
	}
	if a, err := l.IPv4(ctx, netdev); err == nil {
		info.Addr = a
	} else {
		info.Warnings = append(info.Warnings, err)
	}
	dev, err := l.irqNetdev(ctx, h, netdev)
	if err != nil {
		info.Warnings = append(info.Warnings, err)
		return info, nil
	}
	info.LocalCPUs, info.IRQs = dev.LocalCPUs, dev.IRQs
	info.Warnings = append(info.Warnings, dev.Warnings...)
	fs := l.fs()
	for _, q := range dev.IRQs {
		a, err := fs.Affinity(q.IRQ)
		if err != nil {
			info.Warnings = append(info.Warnings, err)
			continue
		}
		info.Affinity = append(info.Affinity, a)
	}
	return info, nil
}

// irqNetdev finds the netdev's IRQs: by name in this namespace; in
// another, /sys here does not show it, so by its PCI function.
func (l *Local) irqNetdev(ctx context.Context, h *nic.Handle, netdev string) (irq.Netdev, error) {
	fs := l.fs()
	if l.Netns == "" {
		return fs.Netdev(netdev)
	}
	d, err := h.Driver(ctx, netdev)
	if err != nil {
		return irq.Netdev{}, err
	}
	return fs.NetdevOnBus(netdev, d.BusInfo)
}

// Counters reads the netdev's counters, the namespace's UDP counters, and
// the host's interrupts, CPU load and threads' CPU time.
func (l *Local) Counters(ctx context.Context, netdev string) (Counters, error) {
	var c Counters
	h, err := l.openNIC()
	if err != nil {
		return c, err
	}
	defer h.Close()
	fs := l.fs()
	var errs [5]error
	c.Stats, errs[0] = h.Stats(ctx, netdev)
	c.UDP, errs[1] = h.UDP(ctx)
	c.Interrupts, errs[2] = fs.Interrupts()
	c.Load, errs[3] = fs.LoadSnapshot()
	// A thread's stat that does not parse costs its name in a verdict,
	// not the round: an error only when no thread could be read.
	if c.Threads, errs[4] = fs.Threads(); len(c.Threads.Threads) > 0 {
		errs[4] = nil
	}
	c.AER = l.aer(netdev)
	c.Time = c.Stats.Time
	return c, errors.Join(errs[:]...)
}

// aer reads the AER counters of netdev's PCI function, nil when it has
// none (virtual netdevs, VMs, a netdev in another namespace).
func (l *Local) aer(netdev string) *nic.AERCounts {
	root := nic.Root(l.Root)
	d, err := root.Device(netdev)
	if err != nil || d.PCI == nil {
		return nil
	}
	a, err := root.AER(d.PCI.Address)
	if err != nil {
		return nil
	}
	return &a
}

// SpreadIRQs applies irq.Root.ByNode through the journal.
func (l *Local) SpreadIRQs(ctx context.Context, netdev string) (Spread, error) {
	h, err := l.openNIC()
	if err != nil {
		return Spread{}, err
	}
	defer h.Close()
	dev, err := l.irqNetdev(ctx, h, netdev)
	if err != nil {
		return Spread{}, err
	}
	fs := l.fs()
	plan, err := fs.ByNode(dev, -1)
	if err != nil {
		return Spread{}, err
	}
	s := Spread{Policy: plan.Policy, Assign: plan.Assign, Skipped: plan.Skipped,
		Warnings: append(dev.Warnings, plan.Warnings...)}
	if len(plan.Assign) == 0 {
		return s, nil
	}
	return s, l.apply(ctx, tune.Spread(plan)...)
}

// SetSysctl sets a kernel parameter in the side's namespace through the
// journal. A value the parameter has already is not journaled (as SetGovernor
// leaves CPUs that run the governor): with both ends on one kernel, the
// later end would journal the value the earlier one set, and write it
// back after the earlier one restored (after a crash too, when each
// journal is recovered alone).
//
// Similar to: sysctl -w KEY=VALUE
func (l *Local) SetSysctl(ctx context.Context, key, value string) error {
	if cur, err := tune.ReadSysctl(l.Netns, key); err == nil && cur == strings.Join(strings.Fields(value), " ") {
		return nil
	}
	return l.apply(ctx, tune.Sysctl(l.Netns, key, value))
}

// SetGovernor sets every CPU's governor through the journal; without
// cpufreq it changes nothing and says so.
func (l *Local) SetGovernor(ctx context.Context, governor string) (GovernorResult, error) {
	gs, err := l.fs().Governors()
	if errors.Is(err, irq.ErrNoCpufreq) || (err == nil && len(gs) == 0) {
		return GovernorResult{Reason: "no cpufreq on this host (usual in VMs): governor left alone"}, nil
	}
	if err != nil {
		return GovernorResult{}, err
	}
	var changes []tune.Change
	for _, g := range gs {
		if g.Governor != governor {
			changes = append(changes, tune.Governor(g.CPU, governor))
		}
	}
	r := GovernorResult{Set: true, Replaced: gs}
	if len(changes) == 0 {
		r.Reason = "every CPU already runs " + governor
		return r, nil
	}
	return r, l.apply(ctx, changes...)
}

// output runs a command that ends by itself and returns its stdout.
func output(ctx context.Context, r host.Runner, argv ...string) ([]byte, error) {
	p, err := host.Run(ctx, r, host.Cmd{Argv: argv})
	if err != nil {
		return nil, err
	}
	return p.Stdout().Bytes(), nil
}
