// Package sysroot says where the kernel's files are read: the one root
// that nic, rxe, irq, tune and runbook take, so that a test points every
// one of them at the same fixture tree.
//
// The zero Root (sysroot.Host) is the live system. Dir reads a directory
// tree as if it were "/", FromFS an fs.FS (a lab capture), ProcSys separate
// /proc and /sys folders. Each package takes it the same way: an Options
// or struct field named Root, and a reader type of the package's own
// converted from it:
//
//	root := sysroot.Dir("testdata/mlx5")
//	dev, err := nic.Root(root).Device("ens1f0np0")
//	irqs, err := irq.Root(root).Netdev("ens1f0np0")
//	names, err := rxe.Root(root).DeviceNames()
//	h, err := nic.Open(nic.Options{Netns: "ns1", Root: root})
//	s, err := tune.Begin("journal.jsonl", tune.Options{Root: root})
//	side := &runbook.Local{Netns: "ns1", Journal: "j.jsonl", Root: root}
//
// A network namespace is not part of a Root: it is where netlink acts,
// named by the Netns field beside Root.
package sysroot
