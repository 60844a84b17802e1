//go:build lab

package runbook

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/bottleneck"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/perftest"
)

// TestLabBusyCoreThreads: an ib_send_bw pair over rdma_rxe in loopback
// (server and client on one rxe link: between two namespaces of one
// kernel rxe's RoCE does not flow, see topo.Spec.RXE), with the
// Counters before and after. The tool's processes have ended by the
// second snapshot; the kernel threads that did rxe's work are in it
// (rxe_wq's kworkers where rxe moved off tasklets, ksoftirqd otherwise),
// and on 6.12 the verdict on the cores and threads is CPU: rxe's work
// for one QP is serialised on one worker thread.
func TestLabBusyCoreThreads(t *testing.T) {
	labtest.Guest(t)
	labtest.Veth(t, "blr0", "blr1", "198.18.98.1/24")
	dir := t.TempDir()
	local := &Local{Journal: filepath.Join(dir, "journal.jsonl")}
	s := &Sides{Mode: Loopback, Near: local, Far: local, NearNetdev: "blr0", FarNetdev: "blr0"}
	defer func() {
		if err := s.Restore(); err != nil {
			t.Errorf("restore: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := s.PrepareRXE(ctx, "rxebl0", 0, nil); err != nil {
		t.Fatalf("PrepareRXE: %v", err)
	}
	nearDev, err := s.Near.Netdev(ctx, "blr0")
	if err != nil {
		t.Fatal(err)
	}
	nb, err := s.Near.Counters(ctx, "blr0")
	if err != nil {
		t.Fatal(err)
	}
	opts := s.PerftestOptions(perftest.Options{Test: perftest.SendBW, Iterations: 5000, Size: 65536, ReportGbits: true, QPTimeout: 22, NoFreqCheck: true})
	if _, err := RepeatPair(ctx, s, s.FarRXE, opts, 1, nil, "send_bw"); err != nil {
		t.Fatal(err)
	}
	na, err := s.Near.Counters(ctx, "blr0")
	if err != nil {
		t.Fatal(err)
	}
	ng, err := na.Sub(nb, nearDev)
	if err != nil {
		t.Fatal(err)
	}
	// The tool's processes ended before the second snapshot, so their
	// threads are not in it; the kernel's that did rxe's work are.
	workers := 0
	for _, th := range ng.Threads {
		if r := th.Role(); r != "" {
			t.Logf("kernel thread %s (tid %d) CPU%d: %d ticks system [%s]", th.Comm, th.TID, th.CPU, th.SysTicks, r)
			if strings.Contains(th.Comm, "rxe") || strings.HasPrefix(th.Comm, "ksoftirqd/") {
				workers++
			}
		}
	}
	if workers == 0 {
		t.Errorf("no rxe_wq worker or ksoftirqd thread used CPU time: %+v", ng.Threads[:min(len(ng.Threads), 10)])
	}
	load := ng.HostLoad("this host", nearDev)
	for _, c := range load.Cores() {
		t.Logf("%s CPU%d soft %.0f%% irq %.0f%% sys %.0f%% user %.0f%%: %s", c.Host, c.CPU, c.SoftPct, c.IRQPct, c.SysPct, c.UserPct, c.Thread)
	}
	ev := bottleneck.Evidence{Gbps: math.NaN(), Cores: load.Cores(), Threads: load.KernelThreads()}
	v := bottleneck.Judge(ev, bottleneck.Thresholds{})
	t.Logf("kernel %s: verdict %s; evidence %q", labtest.Suite(), v, v.Evidence)
	// Where rxe's work lands depends on how many cores the guest really
	// has: with 2 vCPUs on this 2-core host the rxe_wq worker held one
	// core (100-109 %) and the verdict was CPU; on CI's larger host, with
	// 4 vCPUs running in parallel, the requester's and responder's tasks
	// ran on two workers (48 % and 80 %) and no core reached 90 %. So the
	// test holds the verdict to the evidence, not to one outcome.
	busiest, ok := bottleneck.Busiest(load.Cores())
	if !ok || busiest.SysPct < 20 {
		t.Errorf("busiest core %+v: want rxe's system time on one core", busiest)
	}
	kernel := busiest.BusyPct()
	switch {
	case kernel >= 90 && v.Bound != bottleneck.CPU:
		t.Errorf("verdict %s, want cpu: CPU%d is %.0f %% busy in the kernel", v, busiest.CPU, kernel)
	case v.Bound == bottleneck.None && !strings.Contains(v.Summary, fmt.Sprintf("CPU%d", busiest.CPU)):
		t.Errorf("verdict %q does not name the busiest core CPU%d", v.Summary, busiest.CPU)
	case v.Bound != bottleneck.CPU && v.Bound != bottleneck.None:
		t.Errorf("verdict %s: with no rate measured only cpu or none-found can hold", v)
	}
	// 6.12 moved rxe's work to a workqueue: a worker named after it
	// (its last work item's queue) used CPU time in the run.
	if labtest.Suite() == "trixie" && !slices.ContainsFunc(ng.Threads, func(th irq.ThreadLoad) bool { return strings.Contains(th.Comm, "rxe_wq") && th.SysTicks > 0 }) {
		t.Errorf("no rxe_wq worker among the threads that used CPU time: %+v", ng.Threads[:min(len(ng.Threads), 10)])
	}
}
