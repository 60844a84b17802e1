package sysroot_test

import (
	"fmt"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/sysroot"
)

// Where each kind of Root reads /proc/interrupts from.
func ExampleRoot_OSPath() {
	for _, r := range []sysroot.Root{
		sysroot.Host,
		sysroot.Dir("testdata/mlx5"),
		sysroot.ProcSys("/tmp/fixture/proc", ""),
	} {
		p, _ := r.OSPath("proc/interrupts")
		fmt.Println(r, "→", p)
	}
	// Output:
	// host → /proc/interrupts
	// dir testdata/mlx5 → testdata/mlx5/proc/interrupts
	// proc /tmp/fixture/proc sys /sys → /tmp/fixture/proc/interrupts
}

// One Root, read by nic and irq: a NIC's placement and its IRQs from a
// tree captured on a two-node mlx5 host, and the same Root handed to a
// tune session or a runbook.Local through their Root fields.
func Example() {
	root := sysroot.ProcSys("../irq/testdata/mlx5-2node/proc", "../irq/testdata/mlx5-2node/sys")
	dev, err := nic.Root(root).Device("ens1f1np1")
	if err != nil {
		fmt.Println(err)
		return
	}
	irqs, err := irq.Root(root).Netdev("ens1f1np1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dev.Driver, "node", dev.NUMANode, "local CPUs", dev.LocalCPUs[0], "to", dev.LocalCPUs[len(dev.LocalCPUs)-1])
	fmt.Println(irqs.PCI, "node", irqs.NUMANode, irqs.LocalCPUs, len(irqs.IRQs), "IRQs")
	// Output:
	// mlx5_core node 1 local CPUs 24 to 95
	// 0000:af:00.1 node 1 24-47,72-95 49 IRQs
}
