package nic_test

import (
	"fmt"
	"time"

	"github.com/rocekit/rocekit/nic"
)

func ExampleRoCEPathMTU() {
	for _, mtu := range []int{1500, 4200, 9000} {
		fmt.Printf("netdev MTU %d: RoCE %d, rxe %d\n", mtu, nic.RoCEPathMTU(mtu), nic.RXEPathMTU(mtu))
	}
	// perftest ran between an end at 9000 and one still at 1500:
	fmt.Println(nic.CheckPerftestMTU(4096, nic.RXEPathMTU(9000), nic.RXEPathMTU(1500)))
	// Output:
	// netdev MTU 1500: RoCE 1024, rxe 1024
	// netdev MTU 4200: RoCE 4096, rxe 4096
	// netdev MTU 9000: RoCE 4096, rxe 4096
	// nic: perftest reported MTU 4096, the ends' path MTUs (4096, 1024) give 1024
}

func ExampleStats_Sub() {
	t0 := time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)
	before := nic.Stats{Netdev: "eth0", Time: t0,
		Ethtool: map[string]uint64{"rx_queue_0_packets": 10, "rx_queue_0_drops": 0, "rx_out_of_buffer": 3},
		Link:    map[string]uint64{"rx_packets": 10, "rx_dropped": 0}}
	after := nic.Stats{Netdev: "eth0", Time: t0.Add(30 * time.Second),
		Ethtool: map[string]uint64{"rx_queue_0_packets": 90010, "rx_queue_0_drops": 12, "rx_out_of_buffer": 803},
		Link:    map[string]uint64{"rx_packets": 90010, "rx_dropped": 12}}
	d, _ := after.Sub(before)
	for _, c := range d.Losses() {
		fmt.Printf("%s %s (%s) +%d\n", c.Source, c.Name, c.Class, c.Delta)
	}
	// Output:
	// ethtool rx_out_of_buffer (out_of_buffer) +800
	// ethtool rx_queue_0_drops (drop) +12
	// link rx_dropped (drop) +12
}
