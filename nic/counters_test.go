package nic

import (
	"testing"
)

func TestClassifyCounter(t *testing.T) {
	for name, want := range map[string]CounterClass{
		// virtio_net, kernel 6.1 and 6.12 (testdata ethtool-S)
		"rx_queue_0_packets": ClassOther, "rx_queue_0_drops": ClassDrop, "rx_queue_0_xdp_drops": ClassDrop,
		"rx_drops": ClassDrop, "rx0_drops": ClassDrop, "tx_queue_0_kicks": ClassOther, "tx_tx_timeouts": ClassError,
		"tx_queue_0_tx_timeouts": ClassError, "tx_xdp_tx_drops": ClassDrop,
		// veth (testdata ethtool-S-veth)
		"peer_ifindex": ClassOther, "rx_queue_0_xdp_tx_errors": ClassError, "tx_queue_0_xdp_xmit_errors": ClassError,
		// kernel netdev counters (Stats.Link, /proc/net/dev)
		"rx_dropped": ClassDrop, "rx_errors": ClassError, "rx_missed_errors": ClassMissed, "rx_crc_errors": ClassError,
		"rx_fifo_errors": ClassError, "collisions": ClassOther, "multicast": ClassOther,
		// /proc/net/snmp Udp
		"RcvbufErrors": ClassOutOfBuffer, "SndbufErrors": ClassOutOfBuffer, "InCsumErrors": ClassError, "InDatagrams": ClassOther,
		// names mlx5 and others use (not captured here: no such hardware)
		"rx_out_of_buffer": ClassOutOfBuffer, "rx_discards_phy": ClassDiscard, "tx_discards_phy": ClassDiscard,
		"rx_buff_alloc_err": ClassOutOfBuffer, "rx_no_buffer_count": ClassOutOfBuffer, "rx_missed": ClassMissed,
		"interrupts": ClassOther, "rx_vport_unicast_packets": ClassOther, "tx_timeout_count": ClassError,
	} {
		if got := ClassifyCounter(name); got != want {
			t.Errorf("ClassifyCounter(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestClassifyCapturedCounters classifies every counter the lab's virtio
// and veth drivers report: none may be mistaken for traffic when its name
// says loss, and every name must classify the same way twice.
func TestClassifyCapturedCounters(t *testing.T) {
	for _, s := range suites {
		cmds := suiteCapture(t, s)["virtio-veth"].cmds
		for _, out := range []string{cmds["ethtool-S"], cmds["ethtool-S-veth"]} {
			stats := ethtoolStats(t, out)
			if len(stats) < 10 {
				t.Fatalf("%s: %d counters", s, len(stats))
			}
			for name := range stats {
				c := ClassifyCounter(name)
				lossy := false
				for _, w := range counterWords(name) {
					switch w {
					case "drops", "drop", "errors", "timeouts":
						lossy = true
					}
				}
				if lossy != (c != ClassOther) {
					t.Errorf("%s: %s classified %q", s, name, c)
				}
			}
		}
	}
}

func FuzzClassifyCounter(f *testing.F) {
	for _, s := range []string{"rx_out_of_buffer", "RcvbufErrors", "rx_queue_0_drops", "", "__", "ÄÖErr"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := ClassifyCounter(s)
		if c != ClassifyCounter(s) {
			t.Fatal("not deterministic")
		}
		switch c {
		case ClassOther, ClassDrop, ClassDiscard, ClassError, ClassMissed, ClassOutOfBuffer:
		default:
			t.Fatalf("class %q", c)
		}
	})
}

func BenchmarkClassifyCounter(b *testing.B) {
	name := "rx_queue_17_xdp_drops"
	b.SetBytes(int64(len(name)))
	for b.Loop() {
		ClassifyCounter(name)
	}
}
