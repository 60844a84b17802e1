package counterword

import (
	"maps"
	"slices"
)

// Delta is one counter read in two snapshots.
type Delta struct {
	Name                 string
	Before, After, Delta uint64
	// Reset: the counter went down (driver reset or wrap); Delta is then
	// its new value, the least it can have counted.
	Reset bool
}

// Deltas pairs the counters present in both snapshots, in name order.
func Deltas(before, after map[string]uint64) []Delta {
	var ds []Delta
	for _, name := range slices.Sorted(maps.Keys(after)) {
		b, ok := before[name]
		if !ok {
			continue
		}
		a := after[name]
		d := Delta{Name: name, Before: b, After: a, Delta: a - b}
		if a < b {
			d.Reset, d.Delta = true, a
		}
		ds = append(ds, d)
	}
	return ds
}
