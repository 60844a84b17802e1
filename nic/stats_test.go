package nic

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDelta(t *testing.T) {
	t0 := time.Unix(100, 0)
	before := Stats{Netdev: "eth0", Time: t0,
		Ethtool: map[string]uint64{"rx_queue_0_drops": 5, "rx_queue_0_packets": 100, "gone": 1},
		Link:    map[string]uint64{"rx_dropped": 2, "rx_packets": 100}}
	after := Stats{Netdev: "eth0", Time: t0.Add(30 * time.Second),
		Ethtool: map[string]uint64{"rx_queue_0_drops": 9, "rx_queue_0_packets": 1100, "new": 3},
		Link:    map[string]uint64{"rx_dropped": 1, "rx_packets": 1100}}
	d, err := after.Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	want := StatsDelta{Netdev: "eth0", Interval: 30 * time.Second, Counters: []CounterDelta{
		{Source: SourceEthtool, Name: "rx_queue_0_drops", Class: ClassDrop, Before: 5, After: 9, Delta: 4},
		{Source: SourceEthtool, Name: "rx_queue_0_packets", Before: 100, After: 1100, Delta: 1000},
		{Source: SourceLink, Name: "rx_dropped", Class: ClassDrop, Before: 2, After: 1, Delta: 1, Reset: true},
		{Source: SourceLink, Name: "rx_packets", Before: 100, After: 1100, Delta: 1000},
	}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Delta (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]CounterDelta{want.Counters[0], want.Counters[2]}, d.Losses()); diff != "" {
		t.Errorf("Losses (-want +got):\n%s", diff)
	}
	if _, ok := d.Get(SourceEthtool, "gone"); ok {
		t.Error("a counter missing after was kept")
	}
	if _, err := (Stats{Netdev: "eth1"}).Sub(before); err == nil {
		t.Error("different netdevs: no error")
	}
	if _, err := before.Sub(after); err == nil {
		t.Error("reversed snapshots: no error")
	}
}
