package workflow

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseUDPRounds(t *testing.T) {
	for _, tc := range []struct {
		list    string
		want    []UDPRound
		wantErr string
	}{
		{list: "A,S,B,C,V", want: []UDPRound{{Letter: "A"}, {Letter: "S", Limits: true}, {Letter: "B", Limits: true, MTU: 9000},
			{Letter: "C", Limits: true, MTU: 9000, Spread: true}, {Letter: "V", Limits: true, MTU: 9000, Spread: true, Verify: true}}},
		// The runbook's groups: the second changes the MTU only (no
		// raised limits), the third adds IRQs and the governor.
		{list: "1,2,3", want: []UDPRound{{Letter: "1"}, {Letter: "2", MTU: 9000}, {Letter: "3", MTU: 9000, Spread: true}}},
		// T runs TCP_STREAM in the state of the round before it.
		{list: "1,2,3,T", want: []UDPRound{{Letter: "1"}, {Letter: "2", MTU: 9000}, {Letter: "3", MTU: 9000, Spread: true},
			{Letter: "T", TCP: true, MTU: 9000, Spread: true}}},
		{list: "t,a", want: []UDPRound{{Letter: "T", TCP: true}, {Letter: "A"}}},
		{list: "A,S,T,B", want: []UDPRound{{Letter: "A"}, {Letter: "S", Limits: true}, {Letter: "T", TCP: true, Limits: true}, {Letter: "B", Limits: true, MTU: 9000}}},
		{list: " a , c", want: []UDPRound{{Letter: "A"}, {Letter: "C", Limits: true, MTU: 9000, Spread: true}}},
		{list: "1,S,B", want: []UDPRound{{Letter: "1"}, {Letter: "S", Limits: true}, {Letter: "B", Limits: true, MTU: 9000}}},
		{list: "", wantErr: "empty"},
		{list: "A,D", wantErr: `unknown round "D"`},
		{list: "A,,B", wantErr: `unknown round ""`},
		{list: "AB", wantErr: `unknown round "AB"`},
		{list: "A,A", wantErr: "round A twice"},
		{list: "C,B", wantErr: "round B after C would undo the IRQ spread"},
		{list: "2,S", wantErr: "round S after 2 would undo MTU 9000"},
		{list: "S,2", wantErr: "round 2 after S would undo the raised socket buffer limits"},
		{list: "3,2", wantErr: "round 2 after 3 would undo the IRQ spread"},
	} {
		got, err := ParseUDPRounds(tc.list, 9000)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrRounds) {
				t.Errorf("ParseUDPRounds(%q) = %v, %v; want ErrRounds with %q", tc.list, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseUDPRounds(%q): %v", tc.list, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseUDPRounds(%q) (-want +got):\n%s", tc.list, diff)
		}
	}
	if _, err := ParseUDPRounds("A,B", 0); err == nil || !strings.Contains(err.Error(), "-mtu 0") {
		t.Errorf("round B with -mtu 0: %v, want an MTU error", err)
	}
	if _, err := ParseUDPRounds("A,S,T", 0); err != nil {
		t.Errorf("rounds A, S and T need no MTU: %v", err)
	}
	if _, err := ParseUDPRounds("V", 1500); err == nil || !strings.Contains(err.Error(), "at least 8028") {
		t.Errorf("round V at MTU 1500: %v, want an MTU error", err)
	}
}

// TestUDPRoundNames: names carry what a round changes, not the MTU (a
// parameter), so that a rerun at another -mtu is compared with the last.
func TestUDPRoundNames(t *testing.T) {
	var got []string
	for _, list := range []string{"A,S,B,C,V", "1,2,3,T"} {
		specs, err := ParseUDPRounds(list, 9000)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range specs {
			got = append(got, s.Name())
		}
	}
	want := []string{"udp_stream_A_default", "udp_stream_S_sockmax", "udp_stream_B_sockmax_mtu",
		"udp_stream_C_sockmax_mtu_irqspread", "udp_stream_V_sockmax_mtu_irqspread_verify",
		"udp_stream_1_default", "udp_stream_2_mtu", "udp_stream_3_mtu_irqspread", "tcp_stream_T"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	a, _ := ParseUDPRounds("B", 9000)
	b, _ := ParseUDPRounds("B", 4200)
	if a[0].Name() != b[0].Name() {
		t.Errorf("round B at MTU 9000 is %s, at 4200 %s: want one name", a[0].Name(), b[0].Name())
	}
	if c := (UDPRound{Letter: "2", MTU: 9000}).Change(); c != "MTU 9000 on both ends" {
		t.Errorf("round 2 change %q", c)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"2M": 2 << 20, "256K": 256 << 10, "1G": 1 << 30, "2m": 2000000, "64k": 64000, "65536": 65536} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "-1", "0", "2X", "1.5M", "4G"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}
