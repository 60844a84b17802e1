package irq

import "github.com/rocekit/rocekit/internal/sysfs"

// CPUList is a set of CPU ids, ascending and without duplicates, as the
// kernel prints it in cpulist files ("0-3,8,10-11"). The zero value is the
// empty set. It is a []int with these methods (go doc shows them on the
// internal type it aliases, which nic and rxe share):
//
//	String() string                  // "0-3,8", the kernel's form; "" when empty
//	Contains(cpu int) bool
//	Equal(o CPUList) bool
//	Intersect(o CPUList) CPUList     // the CPUs in both
//	Without(o CPUList) CPUList       // the CPUs of l not in o
type CPUList = sysfs.CPUList

// ParseCPUList parses the kernel's list format: comma-separated ids and
// inclusive ranges, optionally with a stride ("0-7:2"). An empty string is
// the empty list. Errors match ErrParse.
//
// Similar to: cat /sys/devices/system/node/node0/cpulist
func ParseCPUList(s string) (CPUList, error) {
	l, err := sysfs.ParseCPUList(s)
	return l, parseErr(err)
}

// ParseCPUMask parses the kernel's hexadecimal mask format
// ("ff,ffffffff" as in /proc/irq/N/smp_affinity), where bit n is CPU n and
// commas separate 32-bit words. Errors match ErrParse.
func ParseCPUMask(s string) (CPUList, error) {
	l, err := sysfs.ParseCPUMask(s)
	return l, parseErr(err)
}

// NewCPUList returns the given CPU ids as a CPUList: sorted, without
// duplicates and without negative ids.
func NewCPUList(cpus ...int) CPUList { return sysfs.NewCPUList(cpus...) }

// Node is a NUMA node and its CPUs: a struct with the fields ID int and
// CPUs CPUList, and no methods (an alias of an internal type that nic and
// rxe share).
type Node = sysfs.Node

// OnlineCPUs returns the online CPUs.
//
// Similar to: cat /sys/devices/system/cpu/online
func (fs Root) OnlineCPUs() (CPUList, error) {
	l, err := fs.root().OnlineCPUs()
	return l, parseErr(err)
}

// Nodes returns the NUMA nodes with their CPUs, by id. Nodes without CPUs
// (memory-only) are included with an empty list. A kernel built without
// NUMA has no node folder; the error then matches os.ErrNotExist.
//
// Similar to: lscpu | grep NUMA; numactl --hardware
func (fs Root) Nodes() ([]Node, error) {
	n, err := fs.root().Nodes()
	return n, parseErr(err)
}

// NodeCPUs returns the CPUs of NUMA node node.
//
// Similar to: cat /sys/devices/system/node/nodeN/cpulist
func (fs Root) NodeCPUs(node int) (CPUList, error) {
	l, err := fs.root().NodeCPUs(node)
	return l, parseErr(err)
}
