package limits

import (
	"errors"
	"fmt"
)

// Header and framing sizes in bytes (include/rdma/ib_pack.h, IEEE 802.3,
// RFC 791, RFC 8200, RFC 768, RFC 9293, RFC 7323).
const (
	L1Bytes           = 20 // preamble and SFD 8, inter-frame gap 12
	EthernetBytes     = 14
	FCSBytes          = 4
	VLANTagBytes      = 4
	IPv4Bytes         = 20
	IPv6Bytes         = 40
	UDPBytes          = 8
	TCPBytes          = 20
	TCPTimestampBytes = 12 // the timestamp option, padded
	BTHBytes          = 12
	ICRCBytes         = 4
	RETHBytes         = 16
	AETHBytes         = 4
	ImmDtBytes        = 4
)

// ErrInput is matched (errors.Is) by every error about a value the
// arithmetic cannot use: a non-positive MTU or size, an MTU below what the
// headers need.
var ErrInput = errors.New("limits: invalid input")

func inputError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInput}, args...)...)
}

// Encap says how packets are framed on the wire beyond the defaults
// (IPv4, no VLAN tag).
type Encap struct {
	IPv6     bool // IPv6 instead of IPv4 (RoCE v2 over IPv6: +20 B)
	VLANTags int  // 802.1Q tags on the frame (+4 B each)
}

// MaxVLANTags is the most tags Encap takes (802.1ad QinQ stacks two).
const MaxVLANTags = 2

// MaxMessageBytes is the largest RDMA message (2^31, ibv_devinfo's
// max_msg_sz on rdma_rxe and mlx5).
const MaxMessageBytes = 1 << 31

func (e Encap) check() error {
	if e.VLANTags < 0 || e.VLANTags > MaxVLANTags {
		return inputError("%d VLAN tags (want 0 to %d)", e.VLANTags, MaxVLANTags)
	}
	return nil
}

func (e Encap) ipBytes() int {
	if e.IPv6 {
		return IPv6Bytes
	}
	return IPv4Bytes
}

// frameBytes is what every Ethernet frame costs beyond its IP packet.
func (e Encap) frameBytes() int {
	return L1Bytes + EthernetBytes + FCSBytes + VLANTagBytes*e.VLANTags
}

// RoCEOverheadBytes is what every RoCE v2 packet costs on the wire beyond
// its payload: 82 B for IPv4 untagged.
func (e Encap) RoCEOverheadBytes() int {
	return e.frameBytes() + e.ipBytes() + UDPBytes + BTHBytes + ICRCBytes
}

// String names the encapsulation (IPv4 or IPv6, VLAN tags).
func (e Encap) String() string {
	s := "IPv4"
	if e.IPv6 {
		s = "IPv6"
	}
	if e.VLANTags > 0 {
		s += fmt.Sprintf(", %d VLAN tag(s)", e.VLANTags)
	}
	return s
}

// Stream is what goes over a link: it tells what fraction of the line rate
// reaches the application as payload, and the messages per second a line
// rate allows.
type Stream interface {
	// WireBytes returns the payload and the bytes on the wire (L1
	// included) of one message.
	WireBytes() (payload, wire int, err error)
	// String describes the stream for a Limit's basis ("RoCE v2 WRITE
	// 65536 B at path MTU 4096, IPv4").
	String() string
}

// Efficiency returns payload over wire bytes of s: the fraction of the
// line rate that is goodput.
func Efficiency(s Stream) (float64, error) {
	p, w, err := s.WireBytes()
	if err != nil {
		return 0, err
	}
	return float64(p) / float64(w), nil
}

// MessageRate returns the messages per second that s allows at lineMbps
// (Mbit/s, as ethtool prints it): the packet-rate ceiling of small
// messages.
func MessageRate(s Stream, lineMbps float64) (float64, error) {
	_, w, err := s.WireBytes()
	if err != nil {
		return 0, err
	}
	if lineMbps <= 0 {
		return 0, inputError("line rate %g Mbit/s", lineMbps)
	}
	return lineMbps * 1e6 / float64(8*w), nil
}

// Verb is the RDMA operation of a RoCE stream.
type Verb int

// The verbs perftest measures, and their with-immediate forms.
const (
	Send Verb = iota
	SendImm
	Write
	WriteImm
	Read
)

var verbNames = [...]string{"SEND", "SEND with immediate", "WRITE", "WRITE with immediate", "READ"}

// String is the verb's name.
func (v Verb) String() string {
	if v < 0 || int(v) >= len(verbNames) {
		return fmt.Sprintf("Verb(%d)", int(v))
	}
	return verbNames[v]
}

// RoCE is a stream of RoCE v2 messages of one size in one direction (READ:
// the responses, which carry the data).
type RoCE struct {
	Encap
	PathMTU      int // active path MTU in bytes: 256, 512, 1024, 2048 or 4096
	MessageBytes int // 0 means large messages (the limit P/(P+overhead))
	Verb         Verb
}

// Packets returns how many packets one message takes.
func (r RoCE) Packets() (int, error) {
	if err := r.check(); err != nil {
		return 0, err
	}
	if r.MessageBytes == 0 {
		return 1, nil
	}
	return (r.MessageBytes + r.PathMTU - 1) / r.PathMTU, nil
}

func (r RoCE) check() error {
	switch r.PathMTU {
	case 256, 512, 1024, 2048, 4096:
	default:
		return inputError("RoCE path MTU %d (want 256, 512, 1024, 2048 or 4096)", r.PathMTU)
	}
	if r.MessageBytes < 0 || r.MessageBytes > MaxMessageBytes {
		return inputError("message size %d B (want 0 to %d)", r.MessageBytes, MaxMessageBytes)
	}
	if err := r.Encap.check(); err != nil {
		return err
	}
	if r.Verb < Send || r.Verb > Read {
		return inputError("verb %d", int(r.Verb))
	}
	return nil
}

// WireBytes returns one message's payload and wire bytes. With
// MessageBytes 0 it is one full middle packet: the large-message limit.
func (r RoCE) WireBytes() (payload, wire int, err error) {
	n, err := r.Packets()
	if err != nil {
		return 0, 0, err
	}
	if r.MessageBytes == 0 {
		return r.PathMTU, r.PathMTU + r.RoCEOverheadBytes(), nil
	}
	wire = r.MessageBytes + n*r.RoCEOverheadBytes()
	switch r.Verb {
	case Write:
		wire += RETHBytes
	case WriteImm:
		wire += RETHBytes + ImmDtBytes
	case SendImm:
		wire += ImmDtBytes
	case Read:
		wire += AETHBytes // the only, or the last response
		if n > 1 {
			wire += AETHBytes // the first response
		}
	}
	return r.MessageBytes, wire, nil
}

// String is the stream as its wire arithmetic sees it.
func (r RoCE) String() string {
	size := "large messages"
	if r.MessageBytes > 0 {
		size = fmt.Sprintf("%d B messages", r.MessageBytes)
	}
	return fmt.Sprintf("RoCE v2 %s, %s at path MTU %d, %s", r.Verb, size, r.PathMTU, r.Encap)
}

// Transport is the L4 protocol of an IP stream.
type Transport int

// UDP (netperf UDP_STREAM) and TCP (TCP_STREAM).
const (
	UDP Transport = iota
	TCP
)

// IPStream is a UDP or TCP stream over Ethernet at a netdev MTU.
type IPStream struct {
	Encap
	Transport Transport
	MTU       int // netdev MTU in bytes
	// MessageBytes is the UDP datagram size (netperf -m); 0 means the
	// largest that needs no fragmentation (MTU−28 for IPv4). Larger
	// datagrams are sent as IP fragments. TCP ignores it.
	MessageBytes int
	// NoTimestamps is for TCP without the timestamp option
	// (net.ipv4.tcp_timestamps=0); Linux sends it by default.
	NoTimestamps bool
}

// MaxUDPPayload returns the largest datagram that fits the MTU unfragmented.
func (s IPStream) MaxUDPPayload() int { return s.MTU - s.ipBytes() - UDPBytes }

// MSS returns the TCP payload per segment.
func (s IPStream) MSS() int {
	mss := s.MTU - s.ipBytes() - TCPBytes
	if !s.NoTimestamps {
		mss -= TCPTimestampBytes
	}
	return mss
}

// Fragments returns the frames one UDP datagram takes (1 when it fits).
func (s IPStream) Fragments() (int, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	return len(s.fragmentPayloads()), nil
}

// fragmentPayloads splits the datagram's IP payload (UDP header and data)
// as the kernel does: every fragment but the last carries a multiple of 8.
func (s IPStream) fragmentPayloads() []int {
	total := s.datagram() + UDPBytes
	room := s.MTU - s.ipBytes()
	if total <= room {
		return []int{total}
	}
	room -= room % 8
	if room <= 0 { // check refuses such MTUs; never loop on them
		return []int{total}
	}
	var out []int
	for total > room {
		out = append(out, room)
		total -= room
	}
	return append(out, total)
}

func (s IPStream) datagram() int {
	if s.MessageBytes > 0 {
		return s.MessageBytes
	}
	return s.MaxUDPPayload()
}

func (s IPStream) check() error {
	if s.Transport != UDP && s.Transport != TCP {
		return inputError("transport %d", int(s.Transport))
	}
	if err := s.Encap.check(); err != nil {
		return err
	}
	minMTU := 68
	if s.IPv6 {
		minMTU = 1280
	}
	if s.MTU < minMTU || s.MTU > 65535 {
		return inputError("MTU %d (want %d to 65535)", s.MTU, minMTU)
	}
	if s.MessageBytes < 0 || s.MessageBytes > 65507 {
		return inputError("UDP message size %d B (want 0 to 65507)", s.MessageBytes)
	}
	return nil
}

// WireBytes returns one datagram's (or TCP segment's) payload and wire bytes.
func (s IPStream) WireBytes() (payload, wire int, err error) {
	if err := s.check(); err != nil {
		return 0, 0, err
	}
	if s.Transport == TCP {
		mss := s.MSS()
		return mss, s.MTU + s.frameBytes(), nil
	}
	for _, f := range s.fragmentPayloads() {
		wire += f + s.ipBytes() + s.frameBytes()
	}
	return s.datagram(), wire, nil
}

// String is the stream as its wire arithmetic sees it.
func (s IPStream) String() string {
	if err := s.check(); err != nil {
		return fmt.Sprintf("invalid IP stream (%v)", err)
	}
	if s.Transport == TCP {
		return fmt.Sprintf("TCP (MSS %d) at MTU %d, %s", s.MSS(), s.MTU, s.Encap)
	}
	frag := ""
	if n := len(s.fragmentPayloads()); n > 1 {
		frag = fmt.Sprintf(" in %d IP fragments", n)
	}
	return fmt.Sprintf("UDP %d B datagrams%s at MTU %d, %s", s.datagram(), frag, s.MTU, s.Encap)
}
