package workflow

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// UDPRound is one round of the UDP tuning runbook: the state of both
// ends it runs in, counting the earlier rounds' changes (changes stay
// until the run ends, so rounds are cumulative), and what it runs.
type UDPRound struct {
	// Letter names the round: A, S, B, C, V (rocekit's one change per
	// round), 1, 2, 3 (the runbook's three groups) or T (TCP_STREAM).
	Letter string `json:"letter"`
	// Limits raises net.core.rmem_max and wmem_max to the socket buffers
	// the round asks for (Linux caps SO_RCVBUF at rmem_max, so -S is
	// clamped until they are).
	Limits bool `json:"limits,omitempty"`
	// MTU is the netdev MTU of both ends; 0 leaves it as it is.
	MTU int `json:"mtu,omitempty"`
	// Spread spreads the queue IRQs over NUMA-local CPUs, pauses
	// irqbalance (which would move them back) and sets the governor, on
	// both ends.
	Spread bool `json:"spread,omitempty"`
	// Verify is the runbook's verification run: -m 8000 -s 4M -S 4M.
	Verify bool `json:"verify,omitempty"`
	// TCP runs TCP_STREAM instead of UDP_STREAM: the runbook's reference
	// ("UDP on par with TCP"), in the state of the round before it.
	TCP bool `json:"tcp,omitempty"`
}

// Verification round parameters (the runbook's last step).
const (
	VerifyMessageSize  = 8000
	VerifySocketBuffer = 4 << 20
)

// udpHeaders are the IPv4 and UDP headers in each datagram's frame: the
// largest unfragmented message at MTU m is m-28.
const udpHeaders = 28

// Name is the round's name in the store and its archive's file name. It
// does not carry the MTU or the sizes (they are parameters), so that a
// rerun with another -mtu is compared with the last one.
func (s UDPRound) Name() string {
	if s.TCP {
		return "tcp_stream_" + s.Letter
	}
	n := "udp_stream_" + s.Letter
	var parts []string
	if s.Limits {
		parts = append(parts, "sockmax")
	}
	if s.MTU > 0 {
		parts = append(parts, "mtu")
	}
	if s.Spread {
		parts = append(parts, "irqspread")
	}
	if s.Verify {
		parts = append(parts, "verify")
	}
	if len(parts) == 0 {
		return n + "_default"
	}
	return n + "_" + strings.Join(parts, "_")
}

// Change says in words what state the round runs in, against a host left
// as it was.
func (s UDPRound) Change() string {
	var c []string
	if s.TCP {
		c = append(c, "TCP_STREAM instead of UDP_STREAM (the reference UDP is held against)")
	}
	if s.Limits {
		c = append(c, "net.core.rmem_max and wmem_max raised to the socket buffers asked, on both ends")
	}
	if s.MTU > 0 {
		c = append(c, fmt.Sprintf("MTU %d on both ends", s.MTU))
	}
	if s.Spread {
		c = append(c, "queue IRQs spread over NUMA-local CPUs, irqbalance paused and the governor set, on both ends")
	}
	if s.Verify {
		c = append(c, "the runbook's verification run: -m 8000 -s 4M -S 4M")
	}
	if len(c) == 0 {
		return "nothing changed (the baseline)"
	}
	return strings.Join(c, "; ")
}

// UDPRoundLetters are the rounds ParseUDPRounds knows, each with the
// state it runs in: A S B C V change one thing each, 1 2 3 are the
// runbook's groups as written (1 default; 2 the MTU only; 3 the MTU, the
// IRQs and the governor), T is a TCP_STREAM reference round.
const UDPRoundLetters = "A,S,B,C,V,1,2,3,T"

// udpRoundOf is the state of a letter's round at MTU mtu.
func udpRoundOf(l string, mtu int) (UDPRound, bool) {
	switch l {
	case "A", "1":
		return UDPRound{Letter: l}, true
	case "S":
		return UDPRound{Letter: l, Limits: true}, true
	case "B":
		return UDPRound{Letter: l, Limits: true, MTU: mtu}, true
	case "C":
		return UDPRound{Letter: l, Limits: true, MTU: mtu, Spread: true}, true
	case "V":
		return UDPRound{Letter: l, Limits: true, MTU: mtu, Spread: true, Verify: true}, true
	case "2":
		return UDPRound{Letter: l, MTU: mtu}, true
	case "3":
		return UDPRound{Letter: l, MTU: mtu, Spread: true}, true
	case "T":
		return UDPRound{Letter: l, TCP: true}, true
	}
	return UDPRound{}, false
}

// ErrRounds means a list of rounds cannot be run as given.
var ErrRounds = errors.New("workflow: bad rounds")

// ParseUDPRounds reads a list of rounds ("A,S,B,C,V", "1,2,3,T"; any
// case, comma-separated, each at most once). A change stays made until
// the run ends, so a round may not drop one an earlier round made: "2,S"
// is refused (S would run at round 2's MTU), "1,2,3" and "A,S,B" are not.
// T runs TCP_STREAM in the state of the round before it. mtu is the MTU
// of the rounds that set one; V needs one of at least 8028 for its
// 8000-byte datagrams. Errors wrap ErrRounds.
func ParseUDPRounds(list string, mtu int) ([]UDPRound, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrRounds, fmt.Sprintf(format, args...))
	}
	if strings.TrimSpace(list) == "" {
		return nil, bad("-rounds: empty; want letters of %s", UDPRoundLetters)
	}
	var specs []UDPRound
	var state UDPRound
	seen := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		l := strings.ToUpper(strings.TrimSpace(f))
		s, ok := udpRoundOf(l, mtu)
		switch {
		case !ok:
			return nil, bad("-rounds: unknown round %q; want A (default), S (socket buffer limits), B (S + MTU), C (B + IRQ spread + governor), V (C + -m 8000 -s 4M -S 4M), "+
				"the runbook's groups 1 (default), 2 (MTU only), 3 (MTU + IRQs + governor), or T (TCP_STREAM reference)", f)
		case seen[l]:
			return nil, bad("-rounds: round %s twice", l)
		}
		seen[l] = true
		if s.TCP {
			s.Limits, s.MTU, s.Spread = state.Limits, state.MTU, state.Spread
		}
		if strings.Contains("BCV23", l) && (mtu < 68 || mtu > 65535) {
			return nil, bad("-mtu %d: round %s needs an MTU from 68 to 65535", mtu, l)
		}
		if s.Verify && mtu < VerifyMessageSize+udpHeaders {
			return nil, bad("-mtu %d: round V sends %d-byte datagrams, which need an MTU of at least %d", mtu, VerifyMessageSize, VerifyMessageSize+udpHeaders)
		}
		if len(specs) > 0 {
			if lost := undone(state, s); lost != "" {
				return nil, bad("-rounds: round %s after %s would undo %s, which stays until the run ends: order the rounds so that each keeps the changes before it (A,S,B,C,V or 1,2,3)",
					l, specs[len(specs)-1].Letter, lost)
			}
		}
		state = s
		specs = append(specs, s)
	}
	return specs, nil
}

// undone names a change of prev that next would not have.
func undone(prev, next UDPRound) string {
	switch {
	case prev.Limits && !next.Limits:
		return "the raised socket buffer limits"
	case prev.MTU > 0 && next.MTU != prev.MTU:
		return "MTU " + strconv.Itoa(prev.MTU)
	case prev.Spread && !next.Spread:
		return "the IRQ spread and the governor"
	}
	return ""
}

// ParseSize reads a socket buffer size as netperf does: a number with an
// optional suffix, K, M, G for 1024^n and k, m, g for 1000^n ("2M" is
// 2097152 bytes).
func ParseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	mult := 1
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'k':
			mult = 1e3
		case 'm':
			mult = 1e6
		case 'g':
			mult = 1e9
		}
		if mult != 1 {
			s = s[:n-1]
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("size %q: want a positive number with an optional K, M, G (binary) or k, m, g (decimal) suffix", s)
	}
	if v > (1<<31-1)/mult {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return v * mult, nil
}
