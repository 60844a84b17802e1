package workflow

import (
	"strings"
	"testing"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// TestBusyCoreFindings judges both ends' busiest core on softirq, irq
// and system time (rdma_rxe's work queue runs in system time), naming the
// step, the end and the thread.
func TestBusyCoreFindings(t *testing.T) {
	idle := report.HostLoad{Host: "client", Load: irq.Load{CPUs: []irq.CPULoad{{CPU: 0, SysPct: 5, Ticks: 1000}}}}
	busy := report.HostLoad{Host: "server", Load: irq.Load{CPUs: []irq.CPULoad{{CPU: 0, Ticks: 1000}, {CPU: 1, SoftPct: 4, SysPct: 93, Ticks: 1000}}},
		Threads: []irq.ThreadLoad{{PID: 2, TID: 311, Comm: "kworker/u8:2-rxe_wq", CPU: 1, SysTicks: 900}}}
	fs := busyCoreFindings("1 QPs", []report.HostLoad{idle, busy})
	if len(fs) != 1 || fs[0].Rule != report.RuleBusyCore || !strings.HasPrefix(fs[0].Summary, "1 QPs: server CPU1 97 % busy") ||
		!strings.Contains(fs[0].Summary, "kworker/u8:2-rxe_wq") {
		t.Errorf("%+v", fs)
	}
	if fs := busyCoreFindings("1 QPs", []report.HostLoad{idle}); fs != nil {
		t.Errorf("idle: %+v", fs)
	}
}

// TestPerftestSideArgv: a side in a namespace runs its command through ip netns
// exec, pinned through taskset, with the netdev MTU for rerun.sh.
func TestPerftestSideArgv(t *testing.T) {
	far := &runbook.Local{Netns: "peer"}
	sides := &runbook.Sides{Mode: runbook.TwoNetns, Near: &runbook.Local{}, Far: far}
	a := sideArgv(sides, far, perftest.Process{Role: perftest.Server, Argv: []string{"ib_send_bw", "-d", "rxe0p"}, CPUs: []int{2, 3}},
		runbook.RXE{Netdev: "veth1", NetdevMTU: 9000})
	want := []string{"ip", "netns", "exec", "peer", "taskset", "-c", "2,3", "ib_send_bw", "-d", "rxe0p"}
	if a.Role != "server" || a.Netns != "peer" || a.Host != "" || strings.Join(a.Argv, " ") != strings.Join(want, " ") ||
		len(a.MTUs) != 1 || a.MTUs[0].MTU != 9000 || a.MTUs[0].Netdev != "veth1" {
		t.Errorf("sideArgv = %+v", a)
	}
}
