package nic

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"testing"
)

func TestChecksumRFC1071(t *testing.T) {
	// RFC 1071 section 3's example: the sum of 0001 f203 f4f5 f6f7 is
	// ddf2; its complement is 220d.
	if got := checksum([]byte{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7}); got != 0x220d {
		t.Errorf("checksum %#x, want 0x220d", got)
	}
	// A packet with its checksum in place sums to zero.
	if c := checksum(echoRequest(7, 9, 1500)); c != 0 {
		t.Errorf("echo request checksum check %#x", c)
	}
}

// ipv4 wraps an ICMP message in an IPv4 header from src to dst.
func ipv4(src, dst string, icmp []byte) []byte {
	h := make([]byte, 20, 20+len(icmp))
	h[0], h[9] = 0x45, 1
	binary.BigEndian.PutUint16(h[2:], uint16(20+len(icmp)))
	s, d := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	copy(h[12:], s[:])
	copy(h[16:], d[:])
	return append(h, icmp...)
}

func TestParseICMPv4(t *testing.T) {
	req := echoRequest(0x1234, 5, 9000)
	reply := append([]byte{}, req...)
	reply[0] = icmpEchoReply
	a, err := parseICMPv4(ipv4("198.18.0.2", "198.18.0.1", reply), 0x1234)
	if err != nil || !a.Reply || a.Seq != 5 || a.From.String() != "198.18.0.2" {
		t.Errorf("reply: %+v %v", a, err)
	}
	if _, err := parseICMPv4(ipv4("198.18.0.2", "198.18.0.1", reply), 0x4321); err != errNotOurs {
		t.Errorf("other id: %v", err)
	}
	// Fragmentation needed quotes our echo's IP header and 8 bytes.
	quoted := ipv4("198.18.0.1", "198.18.9.9", req)[:28]
	fn := append([]byte{icmpUnreachable, icmpFragNeeded, 0, 0, 0, 0, 0x05, 0xdc}, quoted...)
	a, err = parseICMPv4(ipv4("198.18.0.254", "198.18.0.1", fn), 0x1234)
	if err != nil || !a.FragNeeded || a.NextHopMTU != 1500 || a.Dst.String() != "198.18.9.9" || a.Seq != 5 {
		t.Errorf("frag needed: %+v %v", a, err)
	}
	// Port unreachable (code 3) is another kind of answer.
	fn[1] = 3
	if a, err := parseICMPv4(ipv4("198.18.0.254", "198.18.0.1", fn), 0x1234); err != nil || !a.Other || a.Code != 3 {
		t.Errorf("unreachable: %+v %v", a, err)
	}
	for _, bad := range [][]byte{nil, {0x45}, {0x4f, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, ipv4("1.1.1.1", "2.2.2.2", []byte{0})} {
		if _, err := parseICMPv4(bad, 1); err == nil {
			t.Errorf("%x parsed", bad)
		}
	}
}

func TestSearchDown(t *testing.T) {
	for _, limit := range []int{85, 1000, 1499, 1500, 1501, 4200, 8999} {
		rounds := 0
		got, err := searchDown(84, 9000, func() []int { return []int{1500} }, func(sizes []int) (map[int]bool, error) {
			rounds++
			if !slices.IsSorted(sizes) || len(sizes) == 0 || sizes[0] <= 84 || sizes[len(sizes)-1] >= 9000 {
				t.Fatalf("sizes %v", sizes)
			}
			ok := map[int]bool{}
			for _, n := range sizes {
				ok[n] = n <= limit
			}
			return ok, nil
		})
		if err != nil || got != limit {
			t.Errorf("limit %d: found %d %v", limit, got, err)
		}
		if rounds > 4 {
			t.Errorf("limit %d took %d rounds", limit, rounds)
		}
	}
	got, _ := searchDown(84, 9000, func() []int { return nil }, func([]int) (map[int]bool, error) { return nil, nil })
	if got != 84 {
		t.Errorf("nothing carried: %d", got)
	}
}

func TestSweepSizes(t *testing.T) {
	s := sweepSizes(84, 9000, []int{1500, 1500, 20000})
	if len(s) != sweepWidth+1 || s[len(s)-1] != 8999 || !slices.Contains(s, 1500) {
		t.Errorf("sizes %v", s)
	}
	if s := sweepSizes(1500, 1503, nil); !slices.Equal(s, []int{1501, 1502}) {
		t.Errorf("narrow: %v", s)
	}
}

func FuzzParseICMPv4(f *testing.F) {
	req := echoRequest(1, 1, 100)
	f.Add(ipv4("198.18.0.2", "198.18.0.1", req))
	f.Add(ipv4("198.18.0.254", "198.18.0.1", append([]byte{3, 4, 0, 0, 0, 0, 5, 220}, ipv4("198.18.0.1", "198.18.0.2", req)[:28]...)))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := parseICMPv4(b, 1)
		if err == nil && !a.Reply && !a.FragNeeded && !a.Other {
			t.Errorf("an answer that says nothing: %+v", a)
		}
	})
}
