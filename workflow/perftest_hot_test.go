package workflow

import (
	"strings"
	"testing"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// TestHotFindings judges both ends' busiest core, naming the end, and
// this host once in loopback, where both ends are one host.
func TestHotFindings(t *testing.T) {
	hot := &irq.HotCore{CPU: 2, SoftPct: 95}
	cold := &irq.HotCore{CPU: -1}
	fs := hotFindings("1 QPs", &runbook.Sides{Mode: runbook.TwoHosts}, cold, hot)
	if len(fs) != 1 || fs[0].Rule != report.RuleHotSoftirq || !strings.HasPrefix(fs[0].Summary, "1 QPs, server: ") {
		t.Errorf("two hosts: %+v", fs)
	}
	fs = hotFindings("1 QPs", &runbook.Sides{Mode: runbook.Loopback}, hot, hot)
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Summary, "1 QPs, this host: ") {
		t.Errorf("loopback: %+v", fs)
	}
}

// TestPerftestSideArgv: a side in a namespace runs its command through ip netns
// exec, pinned through taskset, with the netdev MTU for rerun.sh.
func TestPerftestSideArgv(t *testing.T) {
	far := &runbook.Local{Netns: "peer"}
	sides := &runbook.Sides{Mode: runbook.TwoNetns, Near: &runbook.Local{}, Far: far}
	a := sideArgv(sides, far, perftest.Side{Role: perftest.Server, Argv: []string{"ib_send_bw", "-d", "rxe0p"}, CPUs: []int{2, 3}},
		runbook.RXEInfo{Netdev: "veth1", NetdevMTU: 9000})
	want := []string{"ip", "netns", "exec", "peer", "taskset", "-c", "2,3", "ib_send_bw", "-d", "rxe0p"}
	if a.Role != "server" || a.Netns != "peer" || a.Host != "" || strings.Join(a.Argv, " ") != strings.Join(want, " ") ||
		len(a.MTUs) != 1 || a.MTUs[0].MTU != 9000 || a.MTUs[0].Netdev != "veth1" {
		t.Errorf("sideArgv = %+v", a)
	}
}
