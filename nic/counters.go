package nic

import (
	"strings"

	"github.com/rocekit/rocekit/internal/counterword"
)

// CounterClass says what kind of loss a counter counts.
type CounterClass string

// Counter classes, from the counter's name (drivers name them freely:
// rx_dropped, rx_queue_0_drops, rx_discards_phy, rx_missed_errors,
// rx_out_of_buffer, tx_timeout_count, port.rx_oversize, rx_prio3_pause,
// ...). Drop, discard, missed and out of buffer count packets lost; error
// counts frames that were malformed or failed (CRC, length, jabber,
// timeouts), also lost; pause is flow control, not a loss.
const (
	ClassOther       CounterClass = ""              // traffic, not loss (packets, bytes, kicks)
	ClassDrop        CounterClass = "drop"          // dropped by the driver or stack (rx_if_down_packets, rx_xdp_tx_full)
	ClassDiscard     CounterClass = "discard"       // discarded by the hardware (mlx5 rx_discards_phy, rx_steer_missed_packets)
	ClassError       CounterClass = "error"         // malformed or failed: CRC, length, runts, jabbers, timeouts
	ClassMissed      CounterClass = "missed"        // missed by the hardware (rx_missed_errors)
	ClassOutOfBuffer CounterClass = "out_of_buffer" // no receive buffer (mlx5 rx_out_of_buffer, alloc failures, UDP RcvbufErrors)
	// ClassPause counts flow-control frames and time: 802.3x pause and
	// PFC (rx_prio3_pause, tx_pause_ctrl_phy, tx_prio0_pause_duration,
	// port.tx_priority_3_xoff, rx_flow_control_xon). Pause prevents loss
	// and costs bandwidth; it is not a loss, and Losses leaves it out.
	ClassPause CounterClass = "pause"
)

// IsLoss reports whether the class counts lost packets: drop, discard,
// error, missed and out of buffer; not other or pause.
func (c CounterClass) IsLoss() bool {
	return c != ClassOther && c != ClassPause
}

// ClassifyCounter classifies a counter by the words of its name
// (rx_missed_errors, RcvbufErrors, port.rx_oversize, [3]: rx_discards).
// The most specific class wins: rx_missed_errors is missed,
// rx_out_of_buffer and rx_queue_0_alloc_failed out of buffer,
// rx_prio3_pause pause, rx_xdp_drops a drop, tx_xdp_tx_errors an error.
// Counters of events that lose no packet are other, whatever their words
// say: PTP timestamps (tx_hwtstamp_timeouts), aRFS rules (rx0_arfs_err),
// Flow Director (fdir_miss), interrupts (missed_irqs), admin queues
// (ena admin_q_pause).
//
// Similar to: ethtool -S eth0 | grep -E 'drop|discard|err|miss|buffer|pause'
func ClassifyCounter(name string) CounterClass {
	w := counterNameWords(counterWords(name))
	switch {
	case w.notLoss():
		return ClassOther
	case w.any("pause", "pfc", "xon", "xoff", "pxon", "pxoff") || w.seq("flow", "control"):
		return ClassPause
	case w.outOfBuffer():
		return ClassOutOfBuffer
	case w.seq("steer", "miss") || w.seq("unknown", "proto"):
		return ClassDiscard
	case w.seq("missed", "tx"):
		return ClassError // ena queue_N_tx_missed_tx: completions that never came
	case w.any("miss"):
		return ClassMissed
	case w.any("discard"):
		return ClassDiscard
	case w.any("drop", "lost") || w.seq("if", "down") || w.seq("allowance", "exceeded") ||
		(w.any("xdp") && w.any("full", "abort")):
		return ClassDrop
	case w.malformed():
		return ClassError
	}
	return ClassOther
}

// counterNameWords is the words of a counter name, matched by prefix.
type counterNameWords []string

// seq reports whether the words hold the prefixes one after the other.
func (w counterNameWords) seq(prefixes ...string) bool {
	for i := 0; i+len(prefixes) <= len(w); i++ {
		ok := true
		for j, p := range prefixes {
			if !strings.HasPrefix(w[i+j], p) {
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

// any reports whether a word starts with one of the prefixes.
func (w counterNameWords) any(prefixes ...string) bool {
	for _, s := range w {
		for _, p := range prefixes {
			if strings.HasPrefix(s, p) {
				return true
			}
		}
	}
	return false
}

// exact reports whether a word is one of the words.
func (w counterNameWords) exact(words ...string) bool {
	for _, s := range w {
		for _, x := range words {
			if s == x {
				return true
			}
		}
	}
	return false
}

// notLoss: events whose names carry loss words but lose no packet.
func (w counterNameWords) notLoss() bool {
	return w.any("hwtstamp", "fdir", "irq", "interrupt", "admin") || w.exact("arfs") ||
		w.seq("buffer", "passed")
}

// outOfBuffer: no receive buffer, descriptor, memory or DMA resource.
func (w counterNameWords) outOfBuffer() bool {
	switch {
	case w.seq("out", "of", "buf"), w.seq("no", "buf"), w.seq("buf", "alloc"), w.seq("buf", "discard"),
		w.seq("no", "dma"), w.seq("no", "wqe"), w.seq("no", "mem"), w.seq("no", "space"),
		w.any("nobuf", "rcvbuf", "sndbuf", "oom"):
		return true
	case w.any("alloc") && w.any("fail", "err", "discard"):
		return true // rx_alloc_fail, alloc_rx_buff_failed, rx_skb_alloc_discard
	case w.any("buf", "page", "skb") && w.any("fail"):
		return true // ice rx_buf_failed, rx_page_failed
	}
	return false
}

// malformed: frames with errors (CRC, length, runts, jabbers, collisions)
// and failures (timeouts, bad descriptors, mapping errors).
func (w counterNameWords) malformed() bool {
	return w.any("err", "crc", "timeout", "fifo", "bad", "fail", "invalid", "illegal", "fault",
		"overrun", "underrun", "undersize", "undrsz", "undermin", "oversize", "ovrsz",
		"fragment", "jabber", "jbr", "uncorrectable", "latecol", "exesscol", "aborted") ||
		w.exact("runt", "runts") ||
		w.seq("late", "coll") || w.seq("excess", "coll") || w.seq("out", "of", "range") ||
		w.seq("too", "long") || w.seq("too", "big")
}

// counterWords splits a counter name into lower-case words
// (counterword.Split).
func counterWords(name string) []string { return counterword.Split(name) }
