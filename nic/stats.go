package nic

import (
	"fmt"
	"time"

	"github.com/rocekit/rocekit/internal/counterword"
)

// Counter sources in Stats and CounterDelta.
const (
	SourceEthtool = "ethtool" // driver counters, ethtool -S
	SourceLink    = "link"    // the kernel's netdev counters, ip -s link (rtnl_link_stats64)
)

// Stats is a snapshot of a netdev's counters. Ethtool holds the driver's
// counters (nil when the driver has none); Link the kernel's, named as in
// /sys/class/net/NAME/statistics (rx_packets, rx_dropped, ...). veth's
// driver counters only count XDP, so traffic shows in Link.
type Stats struct {
	Netdev  string            `json:"netdev"`
	Time    time.Time         `json:"time"`
	Ethtool map[string]uint64 `json:"ethtool,omitempty"`
	Link    map[string]uint64 `json:"link"`
}

// CounterDelta is the growth of one counter between two snapshots.
type CounterDelta struct {
	Source string       `json:"source"` // SourceEthtool or SourceLink
	Name   string       `json:"name"`
	Class  CounterClass `json:"class,omitempty"`
	Before uint64       `json:"before"`
	After  uint64       `json:"after"`
	Delta  uint64       `json:"delta"`
	// Reset is set when the counter went down (driver reload, link
	// reset); Delta is then After.
	Reset bool `json:"reset,omitempty"`
}

// StatsDelta is the change of every counter between two Stats.
type StatsDelta struct {
	Netdev   string         `json:"netdev"`
	Interval time.Duration  `json:"interval"`
	Counters []CounterDelta `json:"counters"` // by source, then name
}

// Sub returns what the counters grew by from before to after (this
// snapshot), of the same netdev: after.Sub(before), the one shape of every
// "after − before" in the module. Counters present in only one of them are
// left out.
func (after Stats) Sub(before Stats) (StatsDelta, error) {
	if before.Netdev != after.Netdev {
		return StatsDelta{}, fmt.Errorf("nic: stats of %s and %s cannot be compared", before.Netdev, after.Netdev)
	}
	if after.Time.Before(before.Time) {
		return StatsDelta{}, fmt.Errorf("nic: stats of %s: the second snapshot is older", before.Netdev)
	}
	d := StatsDelta{Netdev: after.Netdev, Interval: after.Time.Sub(before.Time)}
	for _, src := range []struct {
		name string
		b, a map[string]uint64
	}{{SourceEthtool, before.Ethtool, after.Ethtool}, {SourceLink, before.Link, after.Link}} {
		for _, x := range counterword.Deltas(src.b, src.a) {
			d.Counters = append(d.Counters, CounterDelta{Source: src.name, Name: x.Name, Class: ClassifyCounter(x.Name),
				Before: x.Before, After: x.After, Delta: x.Delta, Reset: x.Reset})
		}
	}
	return d, nil
}

// Get returns one counter's delta.
func (d StatsDelta) Get(source, name string) (CounterDelta, bool) {
	for _, c := range d.Counters {
		if c.Source == source && c.Name == name {
			return c, true
		}
	}
	return CounterDelta{}, false
}

// Losses returns the counters of a loss class (drop, discard, error,
// missed, out of buffer) that grew; pause counters are not losses (see
// Pauses).
//
// Similar to: ethtool -S eth0 | grep -E 'drop|discard|err|miss|buffer' (twice, and subtract)
func (d StatsDelta) Losses() []CounterDelta {
	var out []CounterDelta
	for _, c := range d.Counters {
		if c.Class.IsLoss() && c.Delta > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Pauses returns the flow-control counters (ClassPause) that grew: pause
// frames and PFC frames sent or received, and pause durations.
//
// Similar to: ethtool -S eth0 | grep -E 'pause|pfc|xon|xoff' (twice, and subtract)
func (d StatsDelta) Pauses() []CounterDelta {
	var out []CounterDelta
	for _, c := range d.Counters {
		if c.Class == ClassPause && c.Delta > 0 {
			out = append(out, c)
		}
	}
	return out
}
