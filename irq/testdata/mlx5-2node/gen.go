//go:build ignore

// gen writes a /proc and /sys tree of a two-socket host with a dual-port
// ConnectX-5 on NUMA node 1, in the kernel's documented formats (not
// captured from a machine):
//
//	cd irq/testdata/mlx5-2node && go run gen.go
//
// Host: 2 nodes × 24 cores × 2 threads = 96 CPUs, numbered as Intel
// enumerates them (node0 0-23,48-71; node1 24-47,72-95); Linux 6.x x86
// /proc/interrupts layout with interrupt remapping ("IR-PCI-MSIX-<BDF>
// <hwirq>-edge"); mlx5 names "mlx5_async0@pci:<BDF>" (first vector) and
// "mlx5_comp<N>@pci:<BDF>"; an NVMe drive with managed queue IRQs (mode
// 0444); cpufreq with intel_pstate; irqbalance running as pid 4242.
//
// It writes proc/ and sys/ (the state before a test, irqbalance's spread),
// and two later samples of /proc/interrupts after a 10 s UDP test:
// after-concentrated/interrupts (8 queues fired, all on CPU0) and
// after-spread/interrupts (8 queues on 8 node-1 CPUs).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const ncpu = 96

var node = [2]string{"0-23,48-71", "24-47,72-95"}

type irqLine struct {
	irq    int
	chip   string
	hwirq  int
	typ    string
	action string
	counts map[int]uint64 // cpu → count
	aff    string
	eff    string
	ro     bool
}

func main() {
	irqs := hostIRQs()
	writeProc(irqs)
	writeSamples(irqs)
	writeSys()
}

// nodeCPUs are node 1's CPUs, where the mlx5 ports are.
var nodeCPUs = expand(node[1])

// hostIRQs are the host's interrupts: legacy, NVMe on node 0, and two
// mlx5 ports on node 1.
func hostIRQs() []irqLine {
	var irqs []irqLine
	legacy := []struct {
		n      int
		action string
	}{{0, "timer"}, {8, "rtc0"}, {9, "acpi"}}
	for _, l := range legacy {
		irqs = append(irqs, irqLine{irq: l.n, chip: "IR-IO-APIC", hwirq: l.n, typ: "edge", action: l.action,
			counts: map[int]uint64{0: uint64(40 + l.n)}, aff: "0-95", eff: "0", ro: l.n == 0})
	}
	if irqs[2].action == "acpi" {
		irqs[2].typ = "fasteoi"
	}
	n := 24
	// NVMe on node 0: managed queues, one per 12 CPUs, read-only affinity.
	irqs = append(irqs, irqLine{irq: n, chip: "IR-PCI-MSIX-0000:5e:00.0", hwirq: 0, typ: "edge", action: "nvme0q0",
		counts: map[int]uint64{3: 1201}, aff: "0-95", eff: "3"})
	n++
	for q := 1; q <= 8; q++ {
		lo := (q - 1) * 12
		irqs = append(irqs, irqLine{irq: n, chip: "IR-PCI-MSIX-0000:5e:00.0", hwirq: q, typ: "edge", action: fmt.Sprintf("nvme0q%d", q),
			counts: map[int]uint64{lo: uint64(1000 * q)}, aff: fmt.Sprintf("%d-%d", lo, lo+11), eff: fmt.Sprint(lo), ro: true})
		n++
	}
	// Two mlx5 ports on node 1: async EQ + 48 completion EQs each;
	// irqbalance has spread them over node 1.
	n = 120
	for port, bdf := range []string{"0000:af:00.0", "0000:af:00.1"} {
		irqs = append(irqs, irqLine{irq: n, chip: "IR-PCI-MSIX-" + bdf, hwirq: 0, typ: "edge", action: "mlx5_async0@pci:" + bdf,
			counts: map[int]uint64{24: 5321}, aff: node[1], eff: "24"})
		n++
		for c := 0; c < 48; c++ {
			cpu := nodeCPUs[c%len(nodeCPUs)]
			cnt := map[int]uint64{}
			if port == 0 && c < 8 {
				cnt[cpu] = uint64(100000 + c)
			}
			irqs = append(irqs, irqLine{irq: n, chip: "IR-PCI-MSIX-" + bdf, hwirq: c + 1, typ: "edge",
				action: fmt.Sprintf("mlx5_comp%d@pci:%s", c, bdf), counts: cnt, aff: fmt.Sprint(cpu), eff: fmt.Sprint(cpu)})
			n++
		}
	}

	return irqs
}

// writeProc writes /proc/interrupts, each IRQ's affinity (the managed
// ones read-only), and the processes irq looks for.
func writeProc(irqs []irqLine) {
	write("proc/interrupts", interrupts(irqs, nil))
	var ro []string
	for _, l := range irqs {
		d := fmt.Sprintf("proc/irq/%d/", l.irq)
		write(d+"smp_affinity_list", l.aff+"\n")
		write(d+"effective_affinity_list", l.eff+"\n")
		if l.ro {
			must(os.Chmod(d+"smp_affinity_list", 0o444))
			ro = append(ro, d+"smp_affinity_list\n")
		}
	}
	// Git keeps no modes but the executable bit: tests apply readonly.txt.
	write("readonly.txt", strings.Join(ro, ""))
	write("proc/1/comm", "systemd\n")
	write("proc/4242/comm", "irqbalance\n")
	write("proc/4300/comm", "netserver\n")
}

// writeSamples writes the two later samples of /proc/interrupts.
func writeSamples(irqs []irqLine) {
	// Port 0's first 8 completion IRQs (121-128; 120 is its async EQ)
	// fire during the test.
	conc := map[int]map[int]uint64{}
	spread := map[int]map[int]uint64{}
	for i := 0; i < 8; i++ {
		irq := 121 + i
		conc[irq] = map[int]uint64{0: uint64(250000 + 1000*i)}
		spread[irq] = map[int]uint64{nodeCPUs[i]: uint64(250000 + 1000*i)}
	}
	write("after-concentrated/interrupts", interrupts(irqs, conc))
	write("after-spread/interrupts", interrupts(irqs, spread))
}

// writeSys writes the CPUs, nodes, cpufreq and the two mlx5 netdevs and
// lo under sys/.
func writeSys() {
	write("sys/devices/system/cpu/online", "0-95\n")
	write("sys/devices/system/cpu/possible", "0-95\n")
	write("sys/devices/system/node/online", "0-1\n")
	for i, l := range node {
		write(fmt.Sprintf("sys/devices/system/node/node%d/cpulist", i), l+"\n")
	}
	for c := 0; c < ncpu; c++ {
		d := fmt.Sprintf("sys/devices/system/cpu/cpu%d/cpufreq/", c)
		write(d+"scaling_governor", "powersave\n")
		write(d+"scaling_available_governors", "performance powersave\n")
		write(d+"scaling_driver", "intel_pstate\n")
	}
	for port, ifname := range []string{"ens1f0np0", "ens1f1np1"} {
		bdf := fmt.Sprintf("0000:af:00.%d", port)
		dev := "sys/devices/pci0000:ae/0000:ae:00.0/" + bdf
		write(dev+"/numa_node", "1\n")
		write(dev+"/local_cpulist", node[1]+"\n")
		write(dev+"/uevent", "DRIVER=mlx5_core\nPCI_SLOT_NAME="+bdf+"\n")
		link("../../../../bus/pci/drivers/mlx5_core", dev+"/driver")
		first := 120 + 49*port
		for i := 0; i < 49; i++ {
			write(fmt.Sprintf("%s/msi_irqs/%d", dev, first+i), "msix\n")
		}
		link("../../../"+bdf, dev+"/net/"+ifname+"/device")
		link("../../devices/pci0000:ae/0000:ae:00.0/"+bdf+"/net/"+ifname, "sys/class/net/"+ifname)
	}
	link("../../devices/virtual/net/lo", "sys/class/net/lo")
	must(os.MkdirAll("sys/devices/virtual/net/lo", 0o755))
	write("sys/devices/virtual/net/lo/mtu", "65536\n")
}

func interrupts(irqs []irqLine, extra map[int]map[int]uint64) string {
	var b strings.Builder
	b.WriteString("      ")
	for c := 0; c < ncpu; c++ {
		fmt.Fprintf(&b, "%-11s", fmt.Sprintf("CPU%d", c))
	}
	b.WriteString("\n")
	for _, l := range irqs {
		fmt.Fprintf(&b, "%4d: ", l.irq)
		for c := 0; c < ncpu; c++ {
			fmt.Fprintf(&b, "%10d ", l.counts[c]+extra[l.irq][c])
		}
		fmt.Fprintf(&b, " %s %4d-%s      %s\n", l.chip, l.hwirq, l.typ, l.action)
	}
	named := []struct{ label, desc string }{
		{"NMI", "Non-maskable interrupts"}, {"LOC", "Local timer interrupts"}, {"RES", "Rescheduling interrupts"},
	}
	for _, r := range named {
		fmt.Fprintf(&b, "%4s: ", r.label)
		for c := 0; c < ncpu; c++ {
			fmt.Fprintf(&b, "%10d ", 1000+c)
		}
		fmt.Fprintf(&b, "  %s\n", r.desc)
	}
	b.WriteString(" ERR:          0\n MIS:          0\n")
	return b.String()
}

func expand(list string) []int {
	var out []int
	for _, r := range strings.Split(list, ",") {
		var a, z int
		fmt.Sscanf(r, "%d-%d", &a, &z)
		for c := a; c <= z; c++ {
			out = append(out, c)
		}
	}
	return out
}

func write(p, s string) {
	must(os.MkdirAll(filepath.Dir(p), 0o755))
	if _, err := os.Stat(p); err == nil {
		must(os.Chmod(p, 0o644))
	}
	must(os.WriteFile(p, []byte(s), 0o644))
}

func link(target, p string) {
	must(os.MkdirAll(filepath.Dir(p), 0o755))
	os.Remove(p)
	must(os.Symlink(target, p))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
