package irq

// Tier 2: tests on the running kernel of the machine. They only read its
// IRQ affinity and governor: nothing here writes /proc/irq or cpufreq on
// the host (writers are tested on fixture copies, and on real kernels in
// the lab).

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
)

func hostFS(t *testing.T) Root {
	t.Helper()
	fs, err := DefaultRoot()
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return fs
}

func TestHostInterrupts(t *testing.T) {
	fs := hostFS(t)
	in, err := fs.Interrupts()
	if err != nil {
		t.Fatal(err)
	}
	online, err := fs.OnlineCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if !CPUList(in.CPUs).Equal(online) {
		t.Errorf("/proc/interrupts CPUs %v, online %v", in.CPUs, online)
	}
	numbered := 0
	for _, l := range in.Lines {
		if l.IRQ >= 0 {
			numbered++
			if len(l.Counts) != len(in.CPUs) || l.Chip == "" {
				t.Errorf("IRQ %d: %d counts, chip %q", l.IRQ, len(l.Counts), l.Chip)
			}
		}
	}
	if numbered == 0 {
		t.Error("no numbered IRQ")
	}
	t.Logf("%d lines, %d IRQs, CPUs %v", len(in.Lines), numbered, online)
}

// TestHostNetdevs finds the IRQs of every netdev with a device and reads
// their affinity.
func TestHostNetdevs(t *testing.T) {
	fs := hostFS(t)
	ents, _ := os.ReadDir("/sys/class/net")
	found := 0
	for _, e := range ents {
		d, err := fs.Netdev(e.Name())
		if errors.Is(err, ErrNoDevice) {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		found++
		for _, q := range d.IRQs {
			a, err := fs.Affinity(q.IRQ)
			if err != nil {
				t.Errorf("%s IRQ %d: %v", d.Name, q.IRQ, err)
				continue
			}
			t.Logf("%s IRQ %d %-20s %-7s queue %2d %-4s affinity %s effective %s", d.Name, q.IRQ, q.Name, q.Role, q.Queue, q.Direction, a.CPUs, a.Effective)
		}
		if len(d.IRQs) > 0 && len(d.Queues()) == 0 {
			t.Errorf("%s: IRQs %v but no queue vector", d.Name, d.IRQs)
		}
	}
	if found == 0 {
		t.Skip("no netdev with a device")
	}
}

// TestHostReadOnlyIRQs: every IRQ whose smp_affinity_list is mode 0444
// reads as ReadOnly (managed or per-CPU interrupts, if the host has any).
func TestHostReadOnlyIRQs(t *testing.T) {
	fs := hostFS(t)
	dirs, _ := filepath.Glob("/proc/irq/[0-9]*")
	ro := 0
	for _, d := range dirs {
		n, _ := strconv.Atoi(filepath.Base(d))
		st, err := os.Stat(d + "/smp_affinity_list")
		if err != nil {
			continue
		}
		a, err := fs.Affinity(n)
		if err != nil {
			t.Errorf("IRQ %d: %v", n, err)
			continue
		}
		if want := st.Mode().Perm()&0o222 == 0; a.ReadOnly != want {
			t.Errorf("IRQ %d: ReadOnly %v, mode %v", n, a.ReadOnly, st.Mode())
		}
		if a.ReadOnly {
			ro++
			t.Logf("IRQ %d read-only, affinity %s effective %s", n, a.CPUs, a.Effective)
		}
	}
	t.Logf("%d IRQs, %d read-only", len(dirs), ro)
}

func TestHostGovernors(t *testing.T) {
	fs := hostFS(t)
	g, err := fs.Governors()
	_, statErr := os.Stat("/sys/devices/system/cpu/cpu0/cpufreq")
	switch {
	case statErr != nil:
		if !errors.Is(err, ErrNoCpufreq) {
			t.Errorf("no cpufreq folder, but Governors = %v, %v", g, err)
		}
		t.Logf("no cpufreq: %v", err)
	case err != nil:
		t.Errorf("Governors: %v", err)
	default:
		t.Logf("governors %v", g)
	}
}

// TestHostLoadSampler samples the real /proc while a goroutine spins, and
// checks mpstat's invariants: each interval's columns add up to 100.
func TestHostLoadSampler(t *testing.T) {
	fs := hostFS(t)
	s, err := fs.StartLoadSampler(context.Background(), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	go func() {
		runtime.LockOSThread()
		for !stop.Load() {
		}
	}()
	time.Sleep(time.Second) // the length of the measurement, not a wait for readiness
	stop.Store(true)
	r := s.Stop()
	if len(r.Intervals) < 3 || len(r.Errors) != 0 {
		t.Fatalf("%d intervals, errors %v", len(r.Intervals), r.Errors)
	}
	for _, l := range append(r.Intervals, r.Overall) {
		for _, c := range append(l.CPUs, l.All) {
			sum := c.UserPct + c.NicePct + c.SysPct + c.IOWaitPct + c.IRQPct + c.SoftPct + c.StealPct + c.GuestPct + c.GuestNicePct + c.IdlePct
			if sum != 0 && (sum < 99.99 || sum > 100.01) {
				t.Errorf("CPU%d sums to %f", c.CPU, sum)
			}
		}
	}
	if a := r.Overall.All; a.UserPct+a.SysPct+a.StealPct == 0 {
		t.Errorf("a spinning goroutine left no user time: %+v", a)
	}
	t.Logf("overall usr %.1f sys %.1f soft %.1f idle %.1f steal %.1f; hot %s", r.Overall.All.UserPct, r.Overall.All.SysPct, r.Overall.All.SoftPct, r.Overall.All.IdlePct, r.Overall.All.StealPct, r.Hot)
}

// TestHostRootSoftirqVeth (root): netperf across a veth pair between two
// namespaces; the sampler sees NET_RX softirqs and names a hot core. Veth
// has no IRQs, so nothing's affinity is touched.
func TestHostRootSoftirqVeth(t *testing.T) {
	labtest.Root(t)
	if _, err := exec.LookPath("netperf"); err != nil {
		t.Skip("netperf not installed")
	}
	fs := hostFS(t)
	ctx := context.Background()
	a, b := "irqtA"+strconv.Itoa(os.Getpid()), "irqtB"+strconv.Itoa(os.Getpid())
	addNetns(t, a)
	addNetns(t, b)
	run(t, "ip", "-n", a, "link", "add", "irqv0", "type", "veth", "peer", "name", "irqv1", "netns", b)
	run(t, "ip", "-n", a, "addr", "add", "198.18.32.1/24", "dev", "irqv0")
	run(t, "ip", "-n", b, "addr", "add", "198.18.32.2/24", "dev", "irqv1")
	run(t, "ip", "-n", a, "link", "set", "irqv0", "up")
	run(t, "ip", "-n", b, "link", "set", "irqv1", "up")
	port := 12900 + os.Getpid()%50
	startNetserver(t, ctx, b, port)
	s, err := fs.StartLoadSampler(ctx, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	out := netperf(t, ctx, a, "198.18.32.2", port, 2)
	r := s.Stop()
	t.Logf("netperf:\n%s", out)
	if r.Overall.All.NetRX == 0 {
		t.Errorf("no NET_RX softirqs during netperf over veth: %+v", r.Overall.All)
	}
	if r.Hot.CPU < 0 {
		t.Errorf("no hot core named: %+v", r.Overall.CPUs)
	}
	for _, c := range r.Overall.CPUs {
		t.Logf("CPU%d usr %5.1f sys %5.1f soft %5.1f idle %5.1f NET_RX %d", c.CPU, c.UserPct, c.SysPct, c.SoftPct, c.IdlePct, c.NetRX)
	}
	t.Logf("hot core %s, peak %s", r.Hot, r.Peak)
}
