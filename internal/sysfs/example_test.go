package sysfs_test

import (
	"fmt"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// A NIC's placement in a tree captured on a two-node mlx5 host: its PCI
// function, NUMA node, the CPUs local to it and the IRQs it owns.
func Example() {
	r := sysfs.NewProcSys("../../irq/testdata/mlx5-2node/proc", "../../irq/testdata/mlx5-2node/sys")
	d, err := r.NetdevDevice("ens1f1np1")
	if err != nil {
		fmt.Println(err)
		return
	}
	node, err := r.NUMANode(d.PCI) // -1: unknown
	if err != nil {
		fmt.Println(err)
		return
	}
	cpus, err := r.NodeCPUs(node)
	if err != nil {
		fmt.Println(err)
		return
	}
	local, _ := r.LocalCPUs(d.PCI)
	msi, _ := r.MSIIRQs(d.PCI)
	fmt.Println(d.PCIAddress(), d.Driver, "node", node)
	fmt.Println("node CPUs", cpus, "local CPUs", local)
	fmt.Println(len(msi), "MSI-X IRQs from", msi[0])
	// Output:
	// 0000:af:00.1 mlx5_core node 1
	// node CPUs 24-47,72-95 local CPUs 24-47,72-95
	// 49 MSI-X IRQs from 169
}
