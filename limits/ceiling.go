package limits

import (
	"fmt"
	"math"
)

// Resource names what a limit comes from.
type Resource string

// The resources a path's ceiling is made of.
const (
	Link Resource = "link" // the Ethernet link at the stream's efficiency
	Bus  Resource = "pcie" // the NIC's PCIe link
)

// Limit is one ceiling of a path, with how it was computed.
type Limit struct {
	Resource Resource
	Gbps     float64 // goodput ceiling, 10^9 bit/s
	Basis    string  // "100000 Mb/s × 98.04 % (RoCE v2 WRITE ... )"
}

// String is the limit with its resource and how it was computed.
func (l Limit) String() string {
	return fmt.Sprintf("%s %.1f Gbit/s: %s", l.Resource, l.Gbps, l.Basis)
}

// Path is what lies between a tool and the wire on one host: the link
// speed ethtool reports and the NIC's PCIe link. Zero fields are unknown.
type Path struct {
	LinkMbps int  // ethtool speed in Mb/s; 0 or less: unknown (virtio, veth without speed)
	PCIe     PCIe // the NIC function's current PCIe link
	PCIeMax  PCIe // its maximum (max_link_speed, max_link_width); zero: unknown
}

// Ceiling is every limit that applies to a stream on a path, and what
// could not be computed.
type Ceiling struct {
	Stream  string
	Limits  []Limit
	Unknown []string // "link speed unknown (the driver reports none)"
	Notes   []string // "PCIe 8 GT/s x8 is below its maximum 8 GT/s x16"
}

// Ceiling computes the limits of s on p: the link goodput and the PCIe
// payload rate, each named; an unknown figure goes to Unknown instead of
// being guessed. An invalid stream gives a Ceiling with no limits and the
// reason in Unknown.
func (p Path) Ceiling(s Stream) Ceiling {
	c := Ceiling{Stream: s.String()}
	eff, err := Efficiency(s)
	switch {
	case err != nil:
		c.Unknown = append(c.Unknown, "link goodput: "+err.Error())
	case p.LinkMbps <= 0:
		c.Unknown = append(c.Unknown, "link speed unknown (the driver reports none)")
	default:
		c.Limits = append(c.Limits, Limit{
			Resource: Link,
			Gbps:     float64(p.LinkMbps) / 1000 * eff,
			Basis:    fmt.Sprintf("%d Mb/s × %.2f %% (%s)", p.LinkMbps, eff*100, s),
		})
	}
	if !p.PCIe.Known() {
		c.Unknown = append(c.Unknown, "PCIe link unknown (no PCI function, e.g. virtio or veth)")
	} else if g, err := p.PCIe.PayloadGbps(); err != nil {
		c.Unknown = append(c.Unknown, err.Error())
	} else {
		c.Limits = append(c.Limits, Limit{
			Resource: Bus,
			Gbps:     g,
			Basis:    fmt.Sprintf("%s after encoding, TLP and DLLP overhead", p.PCIe),
		})
	}
	if p.PCIe.Below(p.PCIeMax) {
		c.Notes = append(c.Notes, fmt.Sprintf("%s is below its maximum %g GT/s x%d", p.PCIe, p.PCIeMax.GTps, p.PCIeMax.Width))
	}
	return c
}

// Lowest returns the limit that binds; false when none is known.
func (c Ceiling) Lowest() (Limit, bool) {
	var low Limit
	found := false
	for _, l := range c.Limits {
		if !found || l.Gbps < low.Gbps {
			low, found = l, true
		}
	}
	return low, found
}

// Fraction returns measured over the lowest limit (0.94 for 94 %); false
// when no limit is known or measured is not a finite non-negative rate.
func (c Ceiling) Fraction(measuredGbps float64) (float64, Limit, bool) {
	low, ok := c.Lowest()
	if !ok || low.Gbps <= 0 || measuredGbps < 0 || math.IsNaN(measuredGbps) || math.IsInf(measuredGbps, 0) {
		return 0, low, false
	}
	return measuredGbps / low.Gbps, low, true
}

// Lower returns the lower of two ceilings' binding limits, for a pair of
// hosts: a path is as fast as its slower end. ok is false when neither
// end has a known limit.
func Lower(a, b Ceiling) (Limit, bool) {
	la, oka := a.Lowest()
	lb, okb := b.Lowest()
	switch {
	case oka && okb:
		if lb.Gbps < la.Gbps {
			return lb, true
		}
		return la, true
	case oka:
		return la, true
	default:
		return lb, okb
	}
}
