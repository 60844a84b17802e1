// Package sysfs is the one reader of the system topology that nic, irq and
// rxe share: CPU lists and masks, online CPUs, NUMA nodes and their CPUs,
// and the device behind a netdev (its PCI function or virtio parent,
// numa_node, local_cpulist, msi_irqs), all below one injectable Root.
//
// A Root wraps the exported sysroot.Root, the one root type that nic.Root,
// rxe.Root and irq.Root are under their packages' names; Of(r) reads r.
// NewRoot (a directory), NewRootFS (an fs.FS such as a lab capture) and
// NewProcSys (separate /proc and /sys folders) are this package's
// shorthands for sysroot.Dir, FromFS and ProcSys:
//
//	r := sysfs.NewRoot("testdata/mlx5")
//	d, err := r.NetdevDevice("ens1f0np0")
//	node, err := r.NUMANode(d.PCI) // -1: unknown
//	cpus, err := r.NodeCPUs(node)
package sysfs
