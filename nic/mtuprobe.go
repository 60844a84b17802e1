package nic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"
)

// MTUProbeOptions tunes Handle.ProbeMTU.
type MTUProbeOptions struct {
	// Timeout is how long a round of echoes waits for its replies; 0
	// means 500 ms. A frame a switch drops for its size gives no answer,
	// so a round with a failed size costs this much. The search sends 16
	// sizes a round: 9000 down to 1500 takes four rounds.
	Timeout time.Duration
	// Tries is how many echoes of each size a round sends; 0 means 2, so
	// that one lost packet does not lower the answer.
	Tries int
	// NoSearch skips the search down after a failure.
	NoSearch bool
}

// MTUProbe is what a don't-fragment probe of a path found.
type MTUProbe struct {
	Dst netip.Addr
	// MTU is the IP packet size asked for (the netdev MTU).
	MTU int
	// Carried reports whether an echo of MTU bytes with DF set came back.
	Carried bool
	// LargestMTU is the largest packet size that came back: MTU when
	// Carried, else what the search down found (0: none, not even 68 B,
	// or NoSearch).
	LargestMTU int
	// Evidence says why a size failed, in the terms a reader can check:
	// "no reply to a 9000-byte DF echo in 500ms (2 tries)", "198.18.3.1:
	// fragmentation needed, next-hop MTU 1500", "the local route's MTU is
	// smaller (EMSGSIZE)".
	Evidence []string
	// Probes counts the echoes sent.
	Probes int
}

// String says what the probe found, in one line.
func (p MTUProbe) String() string {
	if p.Carried {
		return fmt.Sprintf("%s carries %d-byte packets unfragmented", p.Dst, p.MTU)
	}
	s := fmt.Sprintf("%s does not carry %d-byte packets unfragmented", p.Dst, p.MTU)
	if p.LargestMTU > 0 {
		s += fmt.Sprintf(" (it carries %d)", p.LargestMTU)
	}
	return s
}

// ErrProbe is matched by ProbeMTU's errors other than a size the path
// does not carry (which is a result, not an error): an unreachable
// destination, a socket that cannot be made.
var ErrProbe = errors.New("nic: MTU probe failed")

const (
	icmpEchoReply   = 0
	icmpUnreachable = 3
	icmpEcho        = 8
	icmpFragNeeded  = 4 // code of icmpUnreachable
	ipv4HeaderBytes = 20
	icmpHeaderBytes = 8
	maxIPv4Packet   = 65535 // the IPv4 total length field
)

// echoRequest builds an ICMP echo request whose IP packet is size bytes
// (IPv4 header 20 + ICMP 8 + payload).
func echoRequest(id, seq uint16, size int) []byte {
	b := make([]byte, size-ipv4HeaderBytes)
	b[0] = icmpEcho
	binary.BigEndian.PutUint16(b[4:], id)
	binary.BigEndian.PutUint16(b[6:], seq)
	for i := icmpHeaderBytes; i < len(b); i++ {
		b[i] = byte(i)
	}
	binary.BigEndian.PutUint16(b[2:], checksum(b))
	return b
}

// checksum is the Internet checksum (RFC 1071).
func checksum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return ^uint16(s)
}

// icmpAnswer is a received ICMP message that concerns one of our echoes.
type icmpAnswer struct {
	From       netip.Addr
	Reply      bool // an echo reply
	Seq        uint16
	FragNeeded bool
	NextHopMTU int        // from a fragmentation-needed message; 0 if not given
	Code       int        // of an unreachable other than fragmentation needed
	Other      bool       // unreachable, not fragmentation needed
	Dst        netip.Addr // the destination of the echo an error is about
}

// errNotOurs is parseICMPv4's answer for a packet that is well formed but
// not about an echo of id.
var errNotOurs = errors.New("not an answer to our echo")

// parseICMPv4 reads a packet from a raw IPv4 ICMP socket (IP header
// included) and returns what it says about echo id: a reply, or an
// unreachable error quoting one of our echoes.
func parseICMPv4(pkt []byte, id uint16) (icmpAnswer, error) {
	ip, body, err := splitIPv4(pkt)
	if err != nil {
		return icmpAnswer{}, err
	}
	if ip.proto != 1 {
		return icmpAnswer{}, errNotOurs
	}
	if len(body) < icmpHeaderBytes {
		return icmpAnswer{}, fmt.Errorf("ICMP message of %d bytes", len(body))
	}
	a := icmpAnswer{From: ip.src}
	switch body[0] {
	case icmpEchoReply:
		if binary.BigEndian.Uint16(body[4:]) != id {
			return a, errNotOurs
		}
		a.Reply, a.Seq = true, binary.BigEndian.Uint16(body[6:])
		return a, nil
	case icmpUnreachable:
		// The quoted packet: its IP header and at least 8 bytes of ICMP.
		qip, qbody, err := splitIPv4(body[icmpHeaderBytes:])
		if err != nil || qip.proto != 1 || len(qbody) < icmpHeaderBytes || qbody[0] != icmpEcho ||
			binary.BigEndian.Uint16(qbody[4:]) != id {
			return a, errNotOurs
		}
		a.Seq, a.Dst = binary.BigEndian.Uint16(qbody[6:]), qip.dst
		if body[1] == icmpFragNeeded {
			a.FragNeeded, a.NextHopMTU = true, int(binary.BigEndian.Uint16(body[6:]))
		} else {
			a.Other, a.Code = true, int(body[1])
		}
		return a, nil
	}
	return a, errNotOurs
}

type ipv4Header struct {
	proto    byte
	src, dst netip.Addr
}

// splitIPv4 returns an IPv4 header and what follows it. A quoted header
// may be followed by fewer bytes than its total length says.
func splitIPv4(b []byte) (ipv4Header, []byte, error) {
	if len(b) < ipv4HeaderBytes || b[0]>>4 != 4 {
		return ipv4Header{}, nil, fmt.Errorf("not an IPv4 packet (%d bytes)", len(b))
	}
	ihl := int(b[0]&0x0f) * 4
	if ihl < ipv4HeaderBytes || ihl > len(b) {
		return ipv4Header{}, nil, fmt.Errorf("IPv4 header length %d of %d bytes", ihl, len(b))
	}
	h := ipv4Header{proto: b[9], src: netip.AddrFrom4([4]byte(b[12:16])), dst: netip.AddrFrom4([4]byte(b[16:20]))}
	return h, b[ihl:], nil
}

// sweepSizes are the sizes one round probes at once: (best, fail) split
// into at most sweepWidth steps, plus the hints (a router's next-hop MTU,
// 1500) that fall inside. Every size is in (best, fail), ascending.
func sweepSizes(best, fail int, hints []int) []int {
	var out []int
	add := func(n int) {
		if n > best && n < fail && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, h := range hints {
		add(h)
	}
	step := max((fail-best)/sweepWidth, 1)
	for i, n := 0, fail-1; i < sweepWidth && n > best; i, n = i+1, n-step {
		add(n)
	}
	slices.Sort(out)
	return out
}

// sweepWidth is how many sizes a round sends at once: 9000 → 1500 takes
// four rounds of one timeout each, where a binary search waits thirteen.
const sweepWidth = 15

// searchDown narrows (best, fail) — best carried, fail not — to adjacent
// sizes, a round at a time, and returns the largest carried size. round
// probes sizes together and says which came back; hints adds sizes worth
// trying (what routers said so far).
func searchDown(best, fail int, hints func() []int, round func([]int) (map[int]bool, error)) (int, error) {
	for fail-best > 1 {
		sizes := sweepSizes(best, fail, hints())
		ok, err := round(sizes)
		if err != nil {
			return best, err
		}
		for _, n := range sizes {
			if ok[n] {
				best = max(best, n)
			}
		}
		for _, n := range sizes {
			if !ok[n] && n > best && n < fail {
				fail = n
			}
		}
	}
	return best, nil
}
