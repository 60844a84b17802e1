//go:build lab

package irq

// Tier 3: lab tests in QEMU guests with real kernels (Debian 6.1 and
// 6.12), -smp 4 and two virtio-net NICs eth0 and eth1 on one QEMU hub. Run
// them with: go run ./internal/lab/cmd/lab test -v

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
)

// TestLabSpreadVirtioIRQs is the acceptance test: discover each
// NIC's IRQs, spread the queue vectors over CPUs 0-3, read back the
// effective affinity, run traffic between two namespaces, show from the
// counters that the interrupts moved to the CPUs they were given and that
// the sampler saw the softirq load, then restore the original affinity.
func TestLabSpreadVirtioIRQs(t *testing.T) {
	labtest.Guest(t)
	ctx := context.Background()
	fs, err := DefaultRoot()
	if err != nil {
		t.Fatal(err)
	}
	online, err := fs.OnlineCPUs()
	if err != nil || online.String() != "0-3" {
		t.Fatalf("online CPUs %v, %v; the lab runs -smp 4", online, err)
	}
	if pids, _ := fs.IRQBalance(); len(pids) > 0 {
		t.Fatalf("irqbalance runs in the guest (pid %v)", pids)
	}

	// Discover before moving the NICs: sysfs shows the netdevs of the
	// namespace it was mounted in.
	devs, orig := labDiscover(t, fs, "eth0", "eth1")
	const nsA, nsB = "irqlabA", "irqlabB"
	labNamespaces(t, nsA, nsB)

	plan := labPlan(append(append([]QueueIRQ{}, devs[0].IRQs...), devs[1].IRQs...), online, orig)
	t.Logf("plan: %s", plan)
	applied, err := fs.Apply(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	restored := false
	t.Cleanup(func() {
		if !restored {
			fs.Restore(context.Background(), applied)
		}
	})
	given := labCheckApplied(t, applied, orig)

	// x86 without interrupt remapping moves an MSI when it next fires:
	// a short warm-up run makes every vector fire, then the effective
	// affinity must follow.
	port := 12870
	startNetserver(t, ctx, nsB, port)
	netperf(t, ctx, nsA, "198.18.31.2", port, 1)
	for _, c := range applied.Changes {
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		a, err := fs.WaitEffective(wctx, c.IRQ, c.Requested)
		cancel()
		if err != nil || !a.Effective.Equal(c.Requested) {
			t.Errorf("IRQ %d: requested %s, effective %s after warm-up: %v", c.IRQ, c.Requested, a.Effective, err)
		}
		t.Logf("after warm-up: IRQ %d effective %s", c.IRQ, a.Effective)
	}

	// Traffic from A to B while the sampler runs.
	before, err := fs.Interrupts()
	if err != nil {
		t.Fatal(err)
	}
	sampler, err := fs.StartLoadSampler(ctx, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	out := netperf(t, ctx, nsA, "198.18.31.2", port, 3)
	rep := sampler.Stop()
	after, err := fs.Interrupts()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("netperf (TCG-emulated, the number means nothing):\n%s", lastLine(out))

	labCheckCounters(t, devs, given, online, before, after)
	labCheckLoad(t, devs, given, rep)

	undo, err := fs.Restore(ctx, applied)
	restored = true
	if err != nil {
		t.Fatal(err)
	}
	if len(undo.Changes) != 4 {
		t.Errorf("restored %d IRQs", len(undo.Changes))
	}
	labCheckRestored(t, fs, orig)
}

// labDiscover finds the NICs' IRQs and their current affinity.
func labDiscover(t *testing.T, fs Root, names ...string) ([]Netdev, map[int]Affinity) {
	t.Helper()
	var devs []Netdev
	orig := map[int]Affinity{}
	for _, name := range names {
		d, err := fs.Netdev(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Warnings) > 0 {
			t.Errorf("%s: warnings %v", name, d.Warnings)
		}
		var roles []string
		for _, q := range d.IRQs {
			roles = append(roles, fmt.Sprintf("%s/%d/%s", q.Role, q.Queue, q.Direction))
		}
		// Hub backends are single-queue: config, input.0, output.0.
		if got := strings.Join(roles, " "); got != "control/-1/ queue/0/rx queue/0/tx" {
			t.Fatalf("%s (%s, %s): IRQ roles %q", name, d.PCI, d.Driver, got)
		}
		t.Logf("%s: %s driver %s numa %d local CPUs %s IRQs %v", name, d.PCI, d.Driver, d.NUMANode, d.LocalCPUs, d.IRQs)
		devs = append(devs, d)
		for _, q := range d.IRQs {
			a, err := fs.Affinity(q.IRQ)
			if err != nil {
				t.Fatal(err)
			}
			orig[q.IRQ] = a
			t.Logf("before: IRQ %d %-18s affinity %s effective %s read-only %v", q.IRQ, q.Name, a.CPUs, a.Effective, a.ReadOnly)
		}
	}
	return devs, orig
}

// labNamespaces moves eth0 into nsA and eth1 into nsB with addresses from
// 198.18.31.0/24.
func labNamespaces(t *testing.T, nsA, nsB string) {
	t.Helper()
	addNetns(t, nsA)
	addNetns(t, nsB)
	run(t, "ip", "link", "set", "eth0", "netns", nsA)
	run(t, "ip", "link", "set", "eth1", "netns", nsB)
	run(t, "ip", "-n", nsA, "addr", "add", "198.18.31.1/24", "dev", "eth0")
	run(t, "ip", "-n", nsB, "addr", "add", "198.18.31.2/24", "dev", "eth1")
	run(t, "ip", "-n", nsA, "link", "set", "eth0", "up")
	run(t, "ip", "-n", nsB, "link", "set", "eth1", "up")
}

// labPlan spreads the queue vectors round-robin over cpus, rotating the
// list so that each lands on a CPU other than the one it is on now.
func labPlan(queues []QueueIRQ, cpus CPUList, orig map[int]Affinity) Plan {
	plan := RoundRobin(queues, cpus)
	for r := 0; r < len(cpus); r++ {
		rot := append(append(CPUList{}, cpus[r:]...), cpus[:r]...)
		p := RoundRobin(queues, rot)
		moves := true
		for _, a := range p.Assign {
			if orig[a.IRQ].Effective.Equal(a.CPUs) {
				moves = false
			}
		}
		if moves {
			return p
		}
	}
	return plan
}

// labCheckApplied checks what Apply replaced and returns each IRQ's CPUs.
func labCheckApplied(t *testing.T, applied Applied, orig map[int]Affinity) map[int]CPUList {
	t.Helper()
	if len(applied.Changes) != 4 || len(applied.Skipped) != 2 || len(applied.Warnings) > 0 {
		t.Errorf("Apply: %d changes, skipped %v, warnings %v", len(applied.Changes), applied.Skipped, applied.Warnings)
	}
	given := map[int]CPUList{}
	for _, c := range applied.Changes {
		if c.Err != nil {
			t.Errorf("IRQ %d: %v", c.IRQ, c.Err)
		}
		if !c.Replaced.Equal(orig[c.IRQ].CPUs) {
			t.Errorf("IRQ %d: replaced %s, was %s", c.IRQ, c.Replaced, orig[c.IRQ].CPUs)
		}
		given[c.IRQ] = c.Requested
		t.Logf("set: IRQ %d %-18s %s -> %s, effective right after the write %s (was %s), pending %v",
			c.IRQ, c.Name, c.Replaced, c.Requested, c.Effective, orig[c.IRQ].Effective, c.Pending)
	}
	return given
}

// labCheckCounters: every queue IRQ counted only on the CPU it was given,
// each NIC's input vector fired, and the verdict is a spread.
func labCheckCounters(t *testing.T, devs []Netdev, given map[int]CPUList, online CPUList, before, after Interrupts) {
	t.Helper()
	for _, x := range after.Sub(before) {
		want, ok := given[x.IRQ]
		if !ok {
			continue
		}
		var cells []string
		for k, cpu := range x.CPUs {
			cells = append(cells, fmt.Sprintf("CPU%d:%d", cpu, x.Counts[k]))
			if x.Counts[k] > 0 && !want.Contains(cpu) {
				t.Errorf("IRQ %d (%s) fired %d times on CPU%d, given %s", x.IRQ, x.Name(), x.Counts[k], cpu, want)
			}
		}
		t.Logf("during traffic: IRQ %d %-18s given %s: %s", x.IRQ, x.Name(), want, strings.Join(cells, " "))
		if strings.Contains(x.Name(), "-input.") && x.Total() == 0 {
			t.Errorf("IRQ %d (%s) did not fire during netperf", x.IRQ, x.Name())
		}
	}
	for _, d := range devs {
		dist := Distribute(d, before, after, online, Thresholds{})
		t.Logf("%s distribution: OK %v, %s", d.Name, dist.OK, strings.Join(dist.Reasons, "; "))
		if !dist.OK {
			t.Errorf("%s: %v", d.Name, dist.Reasons)
		}
	}
}

// labCheckLoad: the sampler saw softirq load during the traffic, NET_RX
// on the CPUs of the input vectors, and named a hot core.
func labCheckLoad(t *testing.T, devs []Netdev, given map[int]CPUList, rep LoadReport) {
	t.Helper()
	for _, c := range rep.Overall.CPUs {
		t.Logf("load: CPU%d usr %5.1f sys %5.1f irq %4.1f soft %5.1f idle %5.1f NET_RX %5d NET_TX %4d drops %d squeeze %d",
			c.CPU, c.UserPct, c.SysPct, c.IRQPct, c.SoftPct, c.IdlePct, c.NetRX, c.NetTX, c.Dropped, c.TimeSqueeze)
	}
	t.Logf("hot core over the run: %s; peak interval: %s; %d intervals", rep.Hot, rep.Peak, len(rep.Intervals))
	if rep.Hot.CPU < 0 || rep.Overall.All.SoftPct <= 0 {
		t.Errorf("no softirq load seen during netperf: %+v", rep.Overall.All)
	}
	for _, d := range devs {
		for _, q := range d.IRQs {
			if q.Direction != DirRX {
				continue
			}
			cpu := given[q.IRQ][0]
			for _, c := range rep.Overall.CPUs {
				if c.CPU == cpu && c.NetRX == 0 {
					t.Errorf("no NET_RX on CPU%d, where %s's input IRQ %d was put", cpu, d.Name, q.IRQ)
				}
			}
		}
	}
	if len(rep.Errors) > 0 {
		t.Errorf("sampler errors: %v", rep.Errors)
	}
}

// labCheckRestored: each IRQ has its original affinity back, and its
// effective CPUs are within it.
func labCheckRestored(t *testing.T, fs Root, orig map[int]Affinity) {
	t.Helper()
	for irq, o := range orig {
		a, err := fs.Affinity(irq)
		if err != nil {
			t.Fatal(err)
		}
		if !a.CPUs.Equal(o.CPUs) || len(a.Effective.Without(o.CPUs)) > 0 {
			t.Errorf("IRQ %d after restore: affinity %s effective %s, want %s", irq, a.CPUs, a.Effective, o.CPUs)
		}
		t.Logf("restored: IRQ %d affinity %s effective %s", irq, a.CPUs, a.Effective)
	}
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}

// TestLabReadOnlyIRQ asks the real kernel to move IRQs that user space
// cannot move (mode 0444, or no affinity support such as the cascade IRQ
// 2), bypassing the mode check, and checks that its errno maps to
// ErrNotWritable; SetAffinity itself refuses mode 0444 without writing.
func TestLabReadOnlyIRQ(t *testing.T) {
	labtest.Guest(t)
	fs, err := DefaultRoot()
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, irq := range []int{0, 2} {
		a, err := fs.Affinity(irq)
		if err != nil {
			t.Logf("IRQ %d: %v", irq, err)
			continue
		}
		werr := fs.writeKernelFile(fs.affinityPath(irq, "smp_affinity_list"), a.CPUs.String())
		aerr := &AffinityError{IRQ: irq, CPUs: a.CPUs, Err: werr}
		t.Logf("%s: IRQ %d mode read-only %v, effective %q: raw write of %q: %v (ErrNotWritable %v)",
			labtest.Suite(), irq, a.ReadOnly, a.Effective, a.CPUs, werr, errors.Is(aerr, ErrNotWritable))
		if a.ReadOnly {
			tried++
			if werr == nil || !errors.Is(aerr, ErrNotWritable) {
				t.Errorf("IRQ %d is mode 0444 but the kernel said %v", irq, werr)
			}
			if _, err := fs.SetAffinity(irq, a.CPUs); !errors.Is(err, ErrNotWritable) {
				t.Errorf("SetAffinity(%d) = %v, want ErrNotWritable", irq, err)
			}
		} else if werr != nil && !errors.Is(aerr, ErrNotWritable) && !errors.Is(aerr, ErrInvalidCPUs) {
			t.Errorf("IRQ %d: unclassified kernel error %v", irq, werr)
		}
	}
	t.Logf("%d read-only IRQs tried", tried)
}

// TestLabGovernorAbsent: the guests have no cpufreq.
func TestLabGovernorAbsent(t *testing.T) {
	labtest.Guest(t)
	fs, err := DefaultRoot()
	if err != nil {
		t.Fatal(err)
	}
	g, err := fs.Governors()
	if !errors.Is(err, ErrNoCpufreq) || len(g) != 0 {
		t.Errorf("Governors = %v, %v; want ErrNoCpufreq", g, err)
	}
	if _, err := fs.SetGovernor(CPUList{0}, "performance"); !errors.Is(err, ErrNoCpufreq) {
		t.Errorf("SetGovernor: %v", err)
	}
}
