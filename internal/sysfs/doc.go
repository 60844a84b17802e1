// Package sysfs is the one reader of the system topology that nic, irq and
// rxe share: CPU lists and masks, online CPUs, NUMA nodes and their CPUs,
// and the device behind a netdev (its PCI function or virtio parent,
// numa_node, local_cpulist, msi_irqs), all below one injectable Root.
//
// The zero Root is the live system; NewRoot (a directory), NewRootFS (an
// fs.FS such as a lab capture) and NewProcSys (separate /proc and /sys
// folders) point it at fixture trees. nic.Root, rxe.Root and irq.FS are
// Root under their packages' names, so one value serves all three:
//
//	root := nic.NewRoot("testdata/mlx5")
//	fs := irq.FS(root) // the same tree, seen by irq
//	names, err := rxe.Root(root).DeviceNames()
//
// Inside the module:
//
//	r := sysfs.NewRoot("testdata/mlx5")
//	d, err := r.NetdevDevice("ens1f0np0")
//	node, err := r.NUMANode(d.PCI) // -1: unknown
//	cpus, err := r.NodeCPUs(node)
package sysfs
