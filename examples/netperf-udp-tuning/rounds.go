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
	Letter string // "A", "B", "C"
	// MTU is the netdev MTU of both ends; 0 leaves the MTU as it is.
	MTU int
	// Spread is true when the queue IRQs are spread over NUMA-local CPUs
	// and the governor is set, on both ends.
	Spread bool
}

// name is the round's name in the store and the archive's file name:
// "udp_stream_A_default", "udp_stream_B_mtu9000",
// "udp_stream_C_mtu9000_irqspread".
func (s roundSpec) name() string {
	n := "udp_stream_" + s.Letter
	if s.MTU == 0 && !s.Spread {
		return n + "_default"
	}
	if s.MTU > 0 {
		n += "_mtu" + strconv.Itoa(s.MTU)
	}
	if s.Spread {
		n += "_irqspread"
	}
	return n
}

// change says in words what the round changes against round A.
func (s roundSpec) change() string {
	var c []string
	if s.MTU > 0 {
		c = append(c, fmt.Sprintf("MTU %d on both ends", s.MTU))
	}
	if s.Spread {
		c = append(c, "queue IRQs spread over NUMA-local CPUs and the governor set, on both ends")
	}
	if len(c) == 0 {
		return "nothing changed (the baseline)"
	}
	return strings.Join(c, "; ")
}

// parseRounds reads -rounds: letters A, B, C (any case), comma-separated,
// each at most once and in that order, since each round keeps the changes
// of the ones before it. mtu is the MTU of rounds B and C.
func parseRounds(list string, mtu int) ([]roundSpec, error) {
	if strings.TrimSpace(list) == "" {
		return nil, errors.New("-rounds: empty; want letters of A,B,C")
	}
	order := "ABC"
	last := -1
	var specs []roundSpec
	for _, f := range strings.Split(list, ",") {
		l := strings.ToUpper(strings.TrimSpace(f))
		i := strings.Index(order, l)
		switch {
		case len(l) != 1 || i < 0:
			return nil, fmt.Errorf("-rounds: unknown round %q; want A (default), B (MTU), C (MTU + IRQ spread + governor)", f)
		case i == last:
			return nil, fmt.Errorf("-rounds: round %s twice", l)
		case i < last:
			return nil, fmt.Errorf("-rounds: round %s after %s: rounds are cumulative, give them in order A,B,C", l, order[last:last+1])
		}
		last = i
		s := roundSpec{Letter: l}
		if l != "A" {
			if mtu < 68 || mtu > 65535 {
				return nil, fmt.Errorf("-mtu %d: round %s needs an MTU from 68 to 65535", mtu, l)
			}
			s.MTU = mtu
		}
		s.Spread = l == "C"
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
