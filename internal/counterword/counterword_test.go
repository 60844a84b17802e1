package counterword

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for in, want := range map[string]string{
		"RcvbufErrors": "rcvbuf errors", "rx0_drops": "rx0 drops", "ip4RxDiscards": "ip4rx discards", "rxDiscards": "rx discards",
		"port.rx_oversize": "port rx oversize", "[0]: rx_ucast_packets": "0 rx ucast packets", "": "",
	} {
		if got := strings.Join(Split(in), " "); got != want {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}
