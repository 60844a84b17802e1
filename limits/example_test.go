package limits_test

import (
	"fmt"

	"github.com/rocekit/rocekit/limits"
)

// A 100G NIC in a Gen4 x16 slot: RoCE WRITE at path MTU 4096 is bound by
// the link at 98.0 Gbit/s, so 92.6 Gbit/s measured is 94 % of the ceiling.
func ExamplePath_Ceiling() {
	r := limits.RoCE{PathMTU: 4096, MessageBytes: 65536, Verb: limits.Write}
	c := limits.Path{LinkMbps: 100000, PCIe: limits.PCIe{GTps: 16, Width: 16}}.Ceiling(r)
	for _, l := range c.Limits {
		fmt.Printf("%s: %.1f Gbit/s\n", l.Resource, l.Gbps)
	}
	frac, low, _ := c.Fraction(92.6)
	fmt.Printf("%.0f %% of %.1f Gbit/s (%s)\n", frac*100, low.Gbps, low.Resource)
	// Output:
	// link: 98.0 Gbit/s
	// pcie: 218.9 Gbit/s
	// 94 % of 98.0 Gbit/s (link)
}

// netperf's -m 1400 at MTU 9000 sends 1400-byte datagrams: the jumbo MTU
// buys nothing until the message size grows.
func ExampleIPStream() {
	for _, s := range []limits.IPStream{{MTU: 1500}, {MTU: 9000, MessageBytes: 1400}, {MTU: 9000}} {
		e, _ := limits.Efficiency(s)
		fmt.Printf("%s: %.2f %%\n", s, e*100)
	}
	// Output:
	// UDP 1472 B datagrams at MTU 1500, IPv4: 95.71 %
	// UDP 1400 B datagrams at MTU 9000, IPv4: 95.50 %
	// UDP 8972 B datagrams at MTU 9000, IPv4: 99.27 %
}
