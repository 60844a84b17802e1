package nic

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNetDevFixtures(t *testing.T) {
	for _, s := range suites {
		caps := suiteCapture(t, s)
		before, err := caps["virtio-veth"].root().NetDev()
		if err != nil {
			t.Fatal(err)
		}
		after, err := caps["after-udp-loss"].root().NetDev()
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"lo", "eth0", "eth1", "v0", "v1"} {
			if _, ok := before[n]; !ok {
				t.Errorf("%s: no %s in /proc/net/dev", s, n)
			}
		}
		// eth0 sent one frame (90 bytes) when it came up.
		if got := before["eth0"]; got["tx_packets"] != 1 || got["tx_bytes"] != 90 || got["rx_packets"] != 0 {
			t.Errorf("%s: eth0 = %v", s, got)
		}
		// The netperf run between two local addresses went over lo.
		d, err := Delta(Stats{Netdev: "lo", Link: before["lo"]}, Stats{Netdev: "lo", Time: time.Unix(3, 0), Link: after["lo"]})
		if err != nil {
			t.Fatal(err)
		}
		rx, _ := d.Get(SourceLink, "rx_packets")
		if rx.Delta < 10000 || len(d.Losses()) != 0 {
			t.Errorf("%s: lo rx_packets delta %d, losses %v", s, rx.Delta, d.Losses())
		}
	}
}

func TestParseNetDevErrors(t *testing.T) {
	head := "Inter-|   Receive\n face |bytes\n"
	for name, in := range map[string]string{
		"columns":   head + "  lo: 1 2 3\n",
		"no name":   head + "   : 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		"no colon":  head + "  lo 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		"not count": head + "  lo: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -1\n",
	} {
		if _, err := ParseNetDev(strings.NewReader(in)); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 3") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func FuzzParseNetDev(f *testing.F) {
	f.Add("Inter-|\n face |\n  lo: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n")
	f.Add("a\nb\nc:\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseNetDev(strings.NewReader(s))
		if err != nil {
			return
		}
		for name, c := range m {
			if name == "" || len(c) != len(netDevColumns) {
				t.Fatalf("bad entry %q: %v", name, c)
			}
		}
	})
}

func BenchmarkParseNetDev(b *testing.B) {
	data := suiteCapture(b, "trixie")["after-udp-loss"].files["proc/net/dev"].Data
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseNetDev(strings.NewReader(string(data))); err != nil {
			b.Fatal(err)
		}
	}
}
