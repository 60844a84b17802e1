package nic

import (
	"strings"
	"unicode"
)

// CounterClass says what kind of loss a counter counts.
type CounterClass string

// Counter classes, from the counter's name (drivers name them freely:
// rx_dropped, rx_queue_0_drops, rx_discards_phy, rx_missed_errors,
// rx_out_of_buffer, tx_timeout_count, ...).
const (
	ClassOther       CounterClass = ""              // traffic, not loss (packets, bytes, kicks)
	ClassDrop        CounterClass = "drop"          // dropped by the driver or stack
	ClassDiscard     CounterClass = "discard"       // discarded by the hardware (mlx5 rx_discards_phy)
	ClassError       CounterClass = "error"         // errors: CRC, frame, FIFO, timeouts
	ClassMissed      CounterClass = "missed"        // missed by the hardware (rx_missed_errors)
	ClassOutOfBuffer CounterClass = "out_of_buffer" // no receive buffer (mlx5 rx_out_of_buffer, UDP RcvbufErrors)
)

// ClassifyCounter classifies a counter by the words of its name
// (rx_missed_errors, RcvbufErrors). The most specific class wins:
// rx_missed_errors is missed, rx_out_of_buffer out of buffer, rx_xdp_drops
// a drop, tx_xdp_tx_errors an error; rx_packets and interrupts are other.
func ClassifyCounter(name string) CounterClass {
	w := counterWords(name)
	seq := func(words ...string) bool {
		for i := 0; i+len(words) <= len(w); i++ {
			ok := true
			for j, s := range words {
				if !strings.HasPrefix(w[i+j], s) {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		return false
	}
	any := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if seq(p) {
				return true
			}
		}
		return false
	}
	switch {
	case seq("out", "of", "buf"), seq("no", "buf"), seq("buf", "alloc"), any("nobuf", "rcvbuf", "sndbuf"):
		return ClassOutOfBuffer
	case any("miss"):
		return ClassMissed
	case any("discard"):
		return ClassDiscard
	case any("drop"):
		return ClassDrop
	case any("err", "crc", "timeout", "fifo"):
		return ClassError
	}
	return ClassOther
}

// counterWords splits a counter name into lower-case words at every
// non-letter and at each lower-to-upper case change ("RcvbufErrors" →
// rcvbuf, errors; "rx0_drops" → rx0, drops).
func counterWords(name string) []string {
	var words []string
	var cur strings.Builder
	prevLower := false
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range name {
		switch {
		case unicode.IsUpper(r):
			if prevLower {
				flush()
			}
			cur.WriteRune(unicode.ToLower(r))
			prevLower = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur.WriteRune(r)
			prevLower = unicode.IsLower(r)
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}
