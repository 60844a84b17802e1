package sysfs

import (
	"fmt"
	"io/fs"
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
func (r Root) OnlineCPUs() (CPUList, error) {
	return r.ReadCPUList("sys/devices/system/cpu/online")
}

// Nodes returns the NUMA nodes with their CPUs, by id. Nodes without CPUs
// (memory-only) are included with an empty list. A kernel built without
// NUMA has no node folder; the error then matches os.ErrNotExist.
//
// Similar to: lscpu | grep NUMA; numactl --hardware
func (r Root) Nodes() ([]Node, error) {
	ents, err := fs.ReadDir(r.FS(), "sys/devices/system/node")
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
		cpus, err := r.NodeCPUs(n)
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
func (r Root) NodeCPUs(node int) (CPUList, error) {
	if node < 0 {
		return nil, fmt.Errorf("sysfs: NUMA node %d: no such node", node)
	}
	return r.ReadCPUList("sys/devices/system/node/node" + strconv.Itoa(node) + "/cpulist")
}
