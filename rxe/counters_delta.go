package rxe

import (
	"fmt"
	"time"

	"github.com/rocekit/rocekit/internal/counterword"
)

// PortCounterDelta is the growth of one port counter between two
// snapshots.
type PortCounterDelta struct {
	Source CounterSource `json:"source"`
	Name   string        `json:"name"`
	Class  CounterClass  `json:"class,omitempty"`
	Before uint64        `json:"before"`
	After  uint64        `json:"after"`
	Delta  uint64        `json:"delta"`
	// Reset is set when the counter went down (driver reload, counters
	// cleared, a 32-bit counter wrapped); Delta is then After.
	Reset bool `json:"reset,omitempty"`
	// Saturated is set when a PMA counter (counters/) stands at the top of
	// its InfiniBand width (port_xmit_data 2^32-1, symbol_error 2^16-1,
	// link_downed 2^8-1): the PMA stops counting there, so Delta is a
	// lower bound.
	Saturated bool `json:"saturated,omitempty"`
}

// PortCountersDelta is the change of every counter of a port between two
// snapshots.
type PortCountersDelta struct {
	Device   string             `json:"device"`
	Port     int                `json:"port"`
	Interval time.Duration      `json:"interval"`
	Counters []PortCounterDelta `json:"counters"` // hw_counters, then counters; by name
}

// Sub returns what the counters of one port grew by from before to after
// (this snapshot): after.Sub(before). Counters present in only one of them
// are left out.
//
// Similar to: rdma statistic show link rxe0/1 (twice, and subtract)
func (after PortCounters) Sub(before PortCounters) (PortCountersDelta, error) {
	if before.Device != after.Device || before.Port != after.Port {
		return PortCountersDelta{}, fmt.Errorf("rxe: counters of %s/%d and %s/%d cannot be compared", before.Device, before.Port, after.Device, after.Port)
	}
	if after.Time.Before(before.Time) {
		return PortCountersDelta{}, fmt.Errorf("rxe: counters of %s/%d: the second snapshot is older", before.Device, before.Port)
	}
	d := PortCountersDelta{Device: after.Device, Port: after.Port, Interval: after.Time.Sub(before.Time)}
	for _, src := range []struct {
		name CounterSource
		b, a map[string]uint64
	}{{SourceHW, before.HW, after.HW}, {SourcePMA, before.PMA, after.PMA}} {
		for _, x := range counterword.Deltas(src.b, src.a) {
			c := PortCounterDelta{Source: src.name, Name: x.Name, Class: ClassifyCounter(x.Name), Before: x.Before, After: x.After, Delta: x.Delta, Reset: x.Reset}
			if src.name == SourcePMA {
				if w, ok := pmaWidth[x.Name]; ok && x.After == 1<<w-1 {
					c.Saturated = true
				}
			}
			d.Counters = append(d.Counters, c)
		}
	}
	return d, nil
}

// pmaWidth is the width in bits of the PortCounters attribute fields (IB
// spec, PortCounters); the kernel shows the 64-bit PortCountersExtended
// values for data and packets when the device has them.
var pmaWidth = map[string]uint{
	"symbol_error": 16, "link_error_recovery": 8, "link_downed": 8,
	"port_rcv_errors": 16, "port_rcv_remote_physical_errors": 16,
	"port_rcv_switch_relay_errors": 16, "port_xmit_discards": 16,
	"port_xmit_constraint_errors": 8, "port_rcv_constraint_errors": 8,
	"local_link_integrity_errors": 4, "excessive_buffer_overrun_errors": 4,
	"VL15_dropped": 16, "port_xmit_wait": 32,
	"port_xmit_data": 32, "port_rcv_data": 32, "port_xmit_packets": 32, "port_rcv_packets": 32,
}

// Get returns one counter's delta; hw_counters wins when both directories
// have the name.
func (d PortCountersDelta) Get(name string) (PortCounterDelta, bool) {
	var pma PortCounterDelta
	found := false
	for _, c := range d.Counters {
		if c.Name != name {
			continue
		}
		if c.Source == SourceHW {
			return c, true
		}
		pma, found = c, true
	}
	return pma, found
}

// ByClass returns the counters of one class, whether they grew or not.
func (d PortCountersDelta) ByClass(class CounterClass) []PortCounterDelta {
	var out []PortCounterDelta
	for _, c := range d.Counters {
		if c.Class == class {
			out = append(out, c)
		}
	}
	return out
}

// Problems returns the retransmission, congestion and error counters that
// grew.
//
// Similar to: rdma statistic show link mlx5_0/1 | grep -E 'seq|retry|nak|cnp|ecn|err'
func (d PortCountersDelta) Problems() []PortCounterDelta {
	var out []PortCounterDelta
	for _, c := range d.Counters {
		switch c.Class {
		case ClassRetransmission, ClassCongestion, ClassError:
			if c.Delta > 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// DataBytes returns the growth of port_xmit_data and port_rcv_data in
// bytes (the PMA counts 4-byte words). ok is false when either is
// missing.
func (d PortCountersDelta) DataBytes() (xmit, rcv uint64, ok bool) {
	var okx, okr bool
	for _, c := range d.Counters {
		if c.Source != SourcePMA {
			continue
		}
		switch c.Name {
		case "port_xmit_data":
			xmit, okx = c.Delta*4, true
		case "port_rcv_data":
			rcv, okr = c.Delta*4, true
		}
	}
	return xmit, rcv, okx && okr
}
