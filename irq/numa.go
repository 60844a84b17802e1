package irq

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Node is a NUMA node and its CPUs.
type Node struct {
	ID   int
	CPUs CPUList
}

// OnlineCPUs returns the online CPUs.
//
// Similar to: cat /sys/devices/system/cpu/online
func (fs FS) OnlineCPUs() (CPUList, error) {
	return readCPUList(fs.sysPath("devices", "system", "cpu", "online"))
}

// Nodes returns the NUMA nodes with their CPUs, by id. Nodes without CPUs
// (memory-only) are included with an empty list. A kernel built without
// NUMA has no node folder; the error then matches os.ErrNotExist.
//
// Similar to: lscpu | grep NUMA; numactl --hardware
func (fs FS) Nodes() ([]Node, error) {
	dir := fs.sysPath("devices", "system", "node")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, e := range ents {
		id, ok := strings.CutPrefix(e.Name(), "node")
		n, err := strconv.Atoi(id)
		if !ok || err != nil || n < 0 {
			continue
		}
		cpus, err := fs.NodeCPUs(n)
		if err != nil {
			return nil, err
		}
		out = append(out, Node{ID: n, CPUs: cpus})
	}
	slices.SortFunc(out, func(a, b Node) int { return a.ID - b.ID })
	return out, nil
}

// NodeCPUs returns the CPUs of NUMA node node.
//
// Similar to: cat /sys/devices/system/node/nodeN/cpulist
func (fs FS) NodeCPUs(node int) (CPUList, error) {
	if node < 0 {
		return nil, fmt.Errorf("irq: NUMA node %d: no such node", node)
	}
	return readCPUList(fs.sysPath("devices", "system", "node", "node"+strconv.Itoa(node), "cpulist"))
}
