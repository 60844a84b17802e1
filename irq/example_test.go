package irq_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/sysroot"
)

// Find a NIC's IRQs in a captured tree and plan to spread its queues,
// leaving the control vector alone.
func ExampleRoundRobin() {
	fs := irq.Root(sysroot.ProcSys("testdata/bookworm/proc", "testdata/bookworm/sys"))
	eth0, err := fs.Netdev("eth0")
	if err != nil {
		fmt.Println(err)
		return
	}
	eth1, _ := fs.Netdev("eth1")
	plan := irq.RoundRobin(append(eth0.IRQs, eth1.IRQs...), irq.CPUList{0, 1, 2, 3})
	fmt.Print(plan)
	// Output:
	// round-robin over CPUs 0-3
	// IRQ 27 (virtio1-input.0) -> 0
	// IRQ 28 (virtio1-output.0) -> 1
	// IRQ 30 (virtio2-input.0) -> 2
	// IRQ 31 (virtio2-output.0) -> 3
	// IRQ 26 (virtio1-config) skipped: control vector
	// IRQ 29 (virtio2-config) skipped: control vector
}

// Judge where a ConnectX-5's queue interrupts went during a test.
func ExampleDistribute() {
	fs := irq.Root(sysroot.ProcSys("testdata/mlx5-2node/proc", "testdata/mlx5-2node/sys"))
	dev, _ := fs.Netdev("ens1f0np0")
	node, _ := fs.NodeCPUs(dev.NUMANode)
	before, _ := fs.Interrupts()
	after, _ := irq.Root(sysroot.ProcSys("testdata/mlx5-2node/after-concentrated", "")).Interrupts()
	d := irq.Distribute(dev, before, after, node, irq.Thresholds{})
	fmt.Println(d.OK)
	fmt.Println(strings.Join(d.Reasons, "\n"))
	// Output:
	// false
	// 8 queue IRQs fired, all on CPU0
	// 8 of 48 queue IRQs fired on CPUs off the NIC's NUMA node (CPUs 24-47,72-95): IRQ 121,122,123,124,125,126,127,128
}

// Name the hot core between two snapshots, as mpstat -P ALL would show it.
func ExampleLoadSnapshot_Sub() {
	before, _ := irq.Root(sysroot.ProcSys("testdata/trixie/traffic/before/proc", "")).LoadSnapshot()
	after, _ := irq.Root(sysroot.ProcSys("testdata/trixie/traffic/after/proc", "")).LoadSnapshot()
	l := after.Sub(before)
	for _, c := range l.CPUs {
		fmt.Printf("CPU%d usr %4.1f sys %4.1f soft %4.1f idle %4.1f NET_RX %d\n", c.CPU, c.UserPct, c.SysPct, c.SoftPct, c.IdlePct, c.NetRX)
	}
	fmt.Println(l.Hot())
	// Output:
	// CPU0 usr  0.0 sys 15.7 soft  9.1 idle 75.2 NET_RX 399
	// CPU1 usr 11.3 sys 13.9 soft 12.1 idle 62.7 NET_RX 335
	// CPU2 usr  5.9 sys  9.4 soft  6.8 idle 77.9 NET_RX 454
	// CPU3 usr  6.3 sys 11.2 soft  0.8 idle 81.7 NET_RX 0
	// CPU1 12% soft
}

func ExampleParseCPUList() {
	l, _ := irq.ParseCPUList("24-47,72-95")
	fmt.Println(len(l), l.Contains(72), l)
	// Output: 48 true 24-47,72-95
}

// Judge a NIC from lines a user pasted ("grep mlx5 /proc/interrupts" on an
// Azure VM with 2 vCPUs): no header, so the CPU list is given.
func ExampleParseInterruptLines() {
	f, err := os.Open("../testdata/realworld/proc/interrupts-azure-mlx5-hyperv-fixture/output.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	in, err := irq.ParseInterruptLines(f, irq.CPUList{0, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	var dev irq.Netdev
	for _, l := range in.Lines {
		role, q, _ := irq.ClassifyAction(l.Actions[0], "")
		fmt.Printf("IRQ %d %s %s queue %d\n", l.IRQ, l.Chip, role, q)
		dev.IRQs = append(dev.IRQs, irq.QueueIRQ{IRQ: l.IRQ, Name: l.Name(), Role: role, Queue: q})
	}
	fmt.Println(irq.SinceBoot(dev, in, nil, irq.Thresholds{}).Reasons[0])
	// Output:
	// IRQ 33 Hyper-V PCIe MSI control queue -1
	// IRQ 34 Hyper-V PCIe MSI queue queue 0
	// IRQ 35 Hyper-V PCIe MSI queue queue 1
	// 2 queue IRQs fired, all mostly on CPU1 (98% of 9887)
}
