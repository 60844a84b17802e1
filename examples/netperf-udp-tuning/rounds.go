package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/runbook"
)

// roundSpec is one round of the tuning: what it has changed, counting the
// earlier rounds' changes (rounds are cumulative).
type roundSpec struct {
	Letter string // "A", "S", "B", "C", "V"
	// Limits is true when net.core.rmem_max and wmem_max are raised to
	// the socket buffers the round asks for (else -S is clamped).
	Limits bool
	// MTU is the netdev MTU of both ends; 0 leaves the MTU as it is.
	MTU int
	// Spread is true when the queue IRQs are spread over NUMA-local CPUs
	// and the governor is set, on both ends.
	Spread bool
	// Verify is the runbook's verification round: -m 8000 -s 4M -S 4M.
	Verify bool
}

// Verification round parameters (the runbook's last step).
const (
	verifyMsgSize = 8000
	verifySockBuf = 4 << 20
)

// name is the round's name in the store and the archive's file name:
// "udp_stream_A_default", "udp_stream_B_mtu9000",
// "udp_stream_C_mtu9000_irqspread".
func (s roundSpec) name() string {
	n := "udp_stream_" + s.Letter
	if !s.Limits && s.MTU == 0 && !s.Spread && !s.Verify {
		return n + "_default"
	}
	if s.Limits {
		n += "_sockmax"
	}
	if s.MTU > 0 {
		n += "_mtu" + strconv.Itoa(s.MTU)
	}
	if s.Spread {
		n += "_irqspread"
	}
	if s.Verify {
		n += "_m8000_s4M"
	}
	return n
}

// change says in words what the round changes against round A.
func (s roundSpec) change() string {
	var c []string
	if s.Limits {
		c = append(c, "net.core.rmem_max and wmem_max raised to the socket buffers asked, on both ends")
	}
	if s.MTU > 0 {
		c = append(c, fmt.Sprintf("MTU %d on both ends", s.MTU))
	}
	if s.Spread {
		c = append(c, "queue IRQs spread over NUMA-local CPUs and the governor set, on both ends")
	}
	if s.Verify {
		c = append(c, "the runbook's verification run: -m 8000 -s 4M -S 4M")
	}
	if len(c) == 0 {
		return "nothing changed (the baseline)"
	}
	return strings.Join(c, "; ")
}

// roundOrder is the rounds in the order they build on each other, each
// changing one thing: A baseline, S socket buffer limits, B MTU, C IRQs
// spread and governor, V the verification run.
const roundOrder = "ASBCV"

// parseRounds reads -rounds: letters of A, S, B, C, V (any case),
// comma-separated, each at most once and in that order, since each round
// keeps the changes of the ones before it (V needs an MTU of at least
// 8028 for its 8000-byte datagrams: it sets -mtu too). mtu is the MTU of
// rounds B, C and V.
func parseRounds(list string, mtu int) ([]roundSpec, error) {
	if strings.TrimSpace(list) == "" {
		return nil, errors.New("-rounds: empty; want letters of A,S,B,C,V")
	}
	last := -1
	var specs []roundSpec
	for _, f := range strings.Split(list, ",") {
		l := strings.ToUpper(strings.TrimSpace(f))
		i := strings.Index(roundOrder, l)
		switch {
		case len(l) != 1 || i < 0:
			return nil, fmt.Errorf("-rounds: unknown round %q; want A (default), S (socket buffer limits), B (MTU), C (IRQ spread + governor), V (verification: -m 8000 -s 4M -S 4M)", f)
		case i == last:
			return nil, fmt.Errorf("-rounds: round %s twice", l)
		case i < last:
			return nil, fmt.Errorf("-rounds: round %s after %s: rounds are cumulative, give them in order %s", l, roundOrder[last:last+1], strings.Join(strings.Split(roundOrder, ""), ","))
		}
		last = i
		s := roundSpec{Letter: l, Limits: i >= 1, Spread: i >= 3, Verify: i == 4}
		if i >= 2 {
			if mtu < 68 || mtu > 65535 {
				return nil, fmt.Errorf("-mtu %d: round %s needs an MTU from 68 to 65535", mtu, l)
			}
			if s.Verify && mtu < verifyMsgSize+28 {
				return nil, fmt.Errorf("-mtu %d: round V sends %d-byte datagrams, which need an MTU of at least %d", mtu, verifyMsgSize, verifyMsgSize+28)
			}
			s.MTU = mtu
		}
		specs = append(specs, s)
	}
	return specs, nil
}

// parseSize reads a socket buffer size as netperf does: a number with an
// optional suffix, K, M, G for 1024^n and k, m, g for 1000^n ("2M" is
// 2097152 bytes).
func parseSize(s string) (int, error) {
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

// spreadText says what SpreadIRQs did: "IRQs of eth0 (local) spread by
// node: 25→0, 26→1; left alone: 24 (control vector)".
func spreadText(netdev, where string, sp runbook.Spread) string {
	var a []string
	for _, x := range sp.Assign {
		a = append(a, fmt.Sprintf("%d→%s", x.IRQ, x.CPUs))
	}
	t := fmt.Sprintf("IRQs of %s (%s) spread (%s): %s", netdev, where, sp.Policy, orNone(strings.Join(a, ", ")))
	if len(sp.Skipped) > 0 {
		var s []string
		for _, x := range sp.Skipped {
			s = append(s, fmt.Sprintf("%d (%s)", x.IRQ, x.Reason))
		}
		t += "; left alone: " + strings.Join(s, ", ")
	}
	return t
}

// role names a side for file names: "near" (the sender) or "far".
func role(sides *runbook.Sides, s runbook.Side) string {
	if s == sides.Far {
		return "far"
	}
	return "near"
}

// orNone gives "none" for an empty string.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
