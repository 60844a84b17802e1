package runbook

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/sysroot"
)

// fixtureSys makes a /sys whose netdev "lo" is the given device of the
// irq/testdata tree: the netlink half of Local.Netdev needs a netdev that
// exists in the test's namespace, and lo is the one every namespace has.
// Everything below sys/devices is the fixture's own.
func fixtureSys(t *testing.T, tree, device string) (procRoot, sysRoot string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "irq", "testdata", tree))
	if err != nil {
		t.Fatal(err)
	}
	sys := filepath.Join(t.TempDir(), "sys")
	if err := os.MkdirAll(filepath.Join(sys, "class", "net"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sys", "devices"), filepath.Join(sys, "devices")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../devices/"+device, filepath.Join(sys, "class", "net", "lo")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "proc"), sys
}

// TestLocalNetdevOnFixtureTree reads a netdev's placement and IRQs through
// Local's roots: the NUMA node, local CPUs, IRQs and their affinity come
// from the fixture, not from the host (whose lo has none of them).
func TestLocalNetdevOnFixtureTree(t *testing.T) {
	tests := []struct {
		tree, device string
		numaNode     int
		localCPUs    string
		nodeCPUs     string
		irqs         int
		firstIRQName string
		affinity     int // IRQs whose proc/irq/N the fixture has
	}{
		// A two-node host with a ConnectX-5 port on node 1 (see
		// irq/testdata/README.md).
		{"mlx5-2node", "pci0000:ae/0000:ae:00.0/0000:af:00.1/net/ens1f1np1", 1, "24-47,72-95", "24-47,72-95",
			49, "mlx5_async0@pci:0000:af:00.1", 49},
		// A bookworm lab guest's virtio-net NIC: no NUMA information.
		{"bookworm", "pci0000:00/0000:00:03.0/virtio1/net/eth0", -1, "0-3", "",
			3, "virtio1-config", 3},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			proc, sys := fixtureSys(t, tt.tree, tt.device)
			l := &Local{Root: sysroot.ProcSys(proc, sys)}
			info, err := l.Netdev(context.Background(), "lo")
			if err != nil {
				t.Fatal(err)
			}
			dev := info.Snapshot.Device
			if dev.NUMANode != tt.numaNode || dev.Virtual {
				t.Errorf("Snapshot.Device = %+v, want NUMA node %d, not virtual", dev, tt.numaNode)
			}
			if got := info.LocalCPUs.String(); got != tt.localCPUs {
				t.Errorf("LocalCPUs = %q, want %q", got, tt.localCPUs)
			}
			if got := info.IRQNetdev().NUMANode; got != tt.numaNode {
				t.Errorf("IRQNetdev().NUMANode = %d, want %d", got, tt.numaNode)
			}
			if got := irq.NewCPUList(dev.NodeCPUs...).String(); got != tt.nodeCPUs {
				t.Errorf("Snapshot.Device.NodeCPUs = %q, want %q", got, tt.nodeCPUs)
			}
			if len(info.IRQs) != tt.irqs {
				t.Fatalf("%d IRQs, want %d (warnings %q)", len(info.IRQs), tt.irqs, info.Warnings)
			}
			if got := info.IRQs[0].Name; got != tt.firstIRQName {
				t.Errorf("first IRQ %q, want %q", got, tt.firstIRQName)
			}
			if len(info.Affinity) != tt.affinity {
				t.Errorf("Affinity of %d IRQs, want %d", len(info.Affinity), tt.affinity)
			}
		})
	}
}

// TestLocalHostOnFixtureTree reads governors and irqbalance through
// Local's roots: the two-node fixture runs intel_pstate's powersave on 96
// CPUs and irqbalance as pid 4242.
func TestLocalHostOnFixtureTree(t *testing.T) {
	proc, sys := fixtureSys(t, "mlx5-2node", "pci0000:ae/0000:ae:00.0/0000:af:00.1/net/ens1f1np1")
	l := &Local{Root: sysroot.ProcSys(proc, sys)}
	h, err := l.Host(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.IRQBalance) != 1 || h.IRQBalance[0] != 4242 {
		t.Errorf("IRQBalance = %v, want [4242]", h.IRQBalance)
	}
	if len(h.Governors) != 96 || h.Governors[95].CPU != 95 || h.Governors[95].Governor != "powersave" {
		t.Errorf("%d governors, last %+v; want 96, CPU 95 powersave", len(h.Governors), h.Governors[len(h.Governors)-1:])
	}
}
