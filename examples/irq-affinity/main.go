// Command irq-affinity shows a NIC's IRQs and where they fire, and spreads
// its queue interrupts over CPUs the way set_irq_affinity_bynode.sh and
// set_irq_affinity_cpulist.sh do, then puts everything back.
//
//	irq-affinity -if eth0                      # IRQs, affinity, the plan (changes nothing)
//	irq-affinity -if eth0 -cpus 0-3 -apply     # spread, watch 10 s of traffic, restore
//	irq-affinity -if eth0 -node 1 -apply -keep # spread over node 1's CPUs and keep it
//	irq-affinity -restore                      # undo what -keep left (from -journal)
//
// While it watches it also samples per-CPU load (mpstat -P ALL 1) and names
// the hot core. Applying needs root; nothing is written without -apply.
// Every change goes through a tune journal (-journal), so a run killed
// before it restores is undone by -restore.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/tune"
)

func main() {
	ifname := flag.String("if", "eth0", "network interface")
	cpus := flag.String("cpus", "", "CPU list to spread over (default: the NIC's NUMA node)")
	node := flag.Int("node", -1, "NUMA node to spread over (default: the NIC's)")
	pin := flag.Int("pin", -1, "pin all queue IRQs to this CPU instead")
	apply := flag.Bool("apply", false, "write the plan (root)")
	keep := flag.Bool("keep", false, "keep the new affinity instead of restoring it (tune.Recover on -journal undoes it later)")
	journal := flag.String("journal", "irq-affinity-journal.jsonl", "journal of the affinity changes")
	restore := flag.Bool("restore", false, "undo what the journal holds (a -keep run, or a crash) and exit")
	watch := flag.Duration("watch", 10*time.Second, "how long to watch interrupts and load")
	cli.Parse("irq-affinity")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *restore {
		rep, err := tune.Recover(ctx, *journal)
		for _, e := range rep.Undone {
			fmt.Println("restored", e.UndoString())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "irq-affinity:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, os.Stdout, *journal, *ifname, *cpus, *node, *pin, *apply, *keep, *watch); err != nil {
		fmt.Fprintln(os.Stderr, "irq-affinity:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, journal, ifname, cpus string, node, pin int, apply, keep bool, watch time.Duration) error {
	fs, err := irq.DefaultRoot()
	if err != nil {
		return err
	}
	dev, err := fs.Netdev(ifname)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: PCI %s, driver %s, NUMA node %d, local CPUs %s\n", dev.Name, dev.PCI, dev.Driver, dev.NUMANode, dev.LocalCPUs)
	for _, q := range dev.IRQs {
		a, err := fs.Affinity(q.IRQ)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  IRQ %-4d %-32s %-7s queue %2d %-4s affinity %-8s effective %-4s%s\n",
			q.IRQ, q.Name, q.Role, q.Queue, q.Direction, a.CPUs, a.Effective, map[bool]string{true: " (read-only)"}[a.ReadOnly])
	}
	for _, w := range dev.Warnings {
		fmt.Fprintln(out, "  warning:", w)
	}

	var plan irq.Plan
	switch {
	case pin >= 0:
		plan = irq.PinAll(dev.IRQs, pin)
	case cpus != "":
		l, err := irq.ParseCPUList(cpus)
		if err != nil {
			return err
		}
		plan = irq.RoundRobin(dev.IRQs, l)
	default:
		if plan, err = fs.ByNode(dev, node); err != nil {
			return err
		}
	}
	fmt.Fprint(out, "plan: ", plan)
	for _, w := range plan.Warnings {
		fmt.Fprintln(out, "  warning:", w)
	}
	if !apply {
		return watchOnce(ctx, out, fs, dev, watch)
	}

	// Through a journal: what a -keep run, or one killed before it
	// restored, left is undone by -restore (tune.Recover).
	sess, err := tune.Begin(journal, tune.Options{})
	if errors.Is(err, tune.ErrPending) {
		return fmt.Errorf("%w: journal %s holds changes not restored (-keep, or a crash): run with -restore first", err, journal)
	}
	if err != nil {
		return err
	}
	defer sess.Close()
	if !keep {
		defer func() {
			rep, err := sess.Restore(context.Background())
			fmt.Fprintf(out, "restored %d IRQs %v\n", len(rep.Undone), errOrEmpty(err))
		}()
	}
	entries, err := sess.Apply(ctx, tune.Spread(plan)...)
	for _, e := range entries {
		a, aerr := fs.Affinity(e.Target.IRQ)
		fmt.Fprintf(out, "  IRQ %d: %s -> %s (effective %s) %v\n", e.Target.IRQ, e.Old.CPUs, e.New.CPUs, a.Effective, errOrEmpty(aerr))
	}
	if err != nil {
		return err
	}
	return watchOnce(ctx, out, fs, dev, watch)
}

// watchOnce samples interrupts and load for d and prints the verdict and
// the hot core.
func watchOnce(ctx context.Context, out io.Writer, fs irq.Root, dev irq.Netdev, d time.Duration) error {
	fmt.Fprintf(out, "watching %s for %s (run traffic now)...\n", dev.Name, d)
	s, err := fs.StartLoadSampler(ctx, time.Second)
	if err != nil {
		return err
	}
	dist, err := fs.SampleDistribution(ctx, dev, d, irq.Thresholds{})
	rep := s.Stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "distribution OK %v: %s\n", dist.OK, strings.Join(dist.Reasons, "; "))
	for _, c := range rep.Overall.CPUs {
		fmt.Fprintf(out, "  CPU%-3d usr %5.1f sys %5.1f irq %4.1f soft %5.1f idle %5.1f NET_RX %d drops %d squeeze %d\n",
			c.CPU, c.UserPct, c.SysPct, c.IRQPct, c.SoftPct, c.IdlePct, c.NetRX, c.Dropped, c.TimeSqueeze)
	}
	fmt.Fprintf(out, "hot core: %s (peak %s)\n", rep.Hot, rep.Peak)
	return nil
}

func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
