// Package irq finds a NIC's interrupts, places them on CPUs, judges how they
// spread, samples per-CPU softirq load and sets the CPU governor: what
// `cat /proc/interrupts | grep mlx5`, set_irq_affinity_bynode.sh,
// `echo N > /proc/irq/X/smp_affinity_list`, `mpstat -P ALL 1` and
// `cpupower frequency-set -g performance` do in the runbooks.
//
// Everything reads and writes through a Root on the live /proc and /sys
// (DefaultRoot, or the zero Root) or on fixture trees
// (irq.Root(sysroot.ProcSys(proc, sys))). Root is a sysroot.Root, as
// nic.Root and rxe.Root are, so one value serves all three; the topology it
// reads (CPU lists, NUMA nodes, a netdev's PCI function, numa_node,
// local_cpulist, msi_irqs) is read by one internal package for all of them. Every kernel file has a pure
// parser (ParseInterrupts, ParseSoftirqs, ParseStat, ParseSoftnet,
// ParseCPUList) that never panics. Outputs captured elsewhere parse too:
// ParseInterruptLines takes "grep mlx5 /proc/interrupts" lines with the CPU
// list, ParseSoftnetOnline maps an old softnet_stat through the online
// CPUs, and SinceBoot judges one sample. Every change returns what it
// replaced:
//
//	fs, err := irq.DefaultRoot()
//	dev, err := fs.Netdev("eth0")                // IRQs from msi_irqs, classified by name
//	plan, err := fs.ByNode(dev, -1)              // queue IRQs round-robin over the NIC's node
//	done, err := fs.Apply(ctx, plan)             // done.Changes[i].Replaced is the old list
//	defer fs.Restore(ctx, done)
//
//	s, err := fs.StartLoadSampler(ctx, time.Second) // mpstat -P ALL 1
//	// ... run traffic ...
//	fmt.Println(s.Stop().Hot)                       // "CPU3 92% soft"
//
// IRQs that user space cannot move (managed or per-CPU: mode 0444, EIO or
// EPERM) give errors matching ErrNotWritable, and policies skip control
// vectors (the mlx5 async EQ, virtio config). irqbalance rewrites affinity
// behind your back; Apply warns when it runs.
//
// The kernel's files: Documentation/core-api/irq/irq-affinity.rst,
// Documentation/filesystems/proc.rst, Documentation/networking/scaling.rst.
package irq
