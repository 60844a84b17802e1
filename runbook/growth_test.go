package runbook

import (
	"strings"
	"testing"

	"github.com/rocekit/rocekit/irq"
)

// TestGrowthHostLoad: the growth as report takes it; the NIC's local
// CPUs only where its NUMA node is known (a VM's -1 node lists every CPU
// as local, which says nothing).
func TestGrowthHostLoad(t *testing.T) {
	g := Growth{Load: irq.Load{CPUs: []irq.CPULoad{{CPU: 1, SysPct: 95, Ticks: 100}}},
		Threads: []irq.ThreadLoad{{PID: 2, TID: 9, Comm: "kworker/u4:1-rxe_wq", CPU: 1, SysTicks: 90}}}
	var dev Netdev
	dev.Snapshot.Device.NUMANode, dev.LocalCPUs = -1, irq.CPUList{0, 1}
	if l := g.HostLoad("far", dev); l.Host != "far" || l.LocalCPUs != nil || len(l.Threads) != 1 || len(l.Load.CPUs) != 1 {
		t.Errorf("%+v", l)
	}
	dev.Snapshot.Device.NUMANode = 0
	l := g.HostLoad("far", dev)
	if len(l.LocalCPUs) != 2 {
		t.Errorf("%+v", l)
	}
	if c := l.Cores(); len(c) != 1 || c[0].NUMALocal == nil || !*c[0].NUMALocal || !strings.HasPrefix(c[0].Thread, "kworker/u4:1-rxe_wq (pid 2, tid 9) 90 % system") {
		t.Errorf("%+v", c)
	}
}
