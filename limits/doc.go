// Package limits computes what a network path can carry at best, from
// first principles: the goodput ceiling of a RoCE v2 or UDP/TCP stream on
// an Ethernet link at the MTU in use, and what a NIC's PCIe link can move.
// A measured result is then judged against the lowest of those ceilings,
// each named, instead of against the raw link speed or a hand-kept per-SKU
// number.
//
//	r := limits.RoCE{PathMTU: 4096, MessageBytes: 65536, Verb: limits.Write}
//	c := limits.Path{LinkMbps: 100000, PCIe: limits.PCIe{GTps: 16, Width: 16}}.Ceiling(r)
//	low, _ := c.Lowest()
//	fmt.Printf("%.1f Gbit/s (%s)\n", low.Gbps, low.Resource) // 98.0 Gbit/s (link)
//
// # Wire arithmetic (RoCE v2)
//
// Every RoCE v2 packet on an Ethernet link costs, beyond its payload:
// preamble+SFD 8 and inter-frame gap 12 (L1, 20 B), Ethernet header 14,
// FCS 4, IPv4 20 (IPv6 40), UDP 8, BTH 12 and ICRC 4: 82 B for IPv4 without
// a VLAN tag, +4 B per 802.1Q tag, +20 B for IPv6. Header sizes are those of
// include/rdma/ib_pack.h; L1 and FCS those of IEEE 802.3. A message of S
// bytes at path MTU P travels in ceil(S/P) packets; the first (or only)
// packet of an RDMA WRITE adds RETH 16 B, a READ response's first and last
// (or only) packet AETH 4 B, a message with immediate data ImmDt 4 B on its
// last packet. Goodput efficiency is S over S plus all of that, which for
// large messages tends to P/(P+82): 98.04 % at 4096, 92.59 % at 1024.
// The message rate a link allows is its rate over the wire bits of one
// message (85.6 M messages/s of 64 B at 100 Gbit/s). The path MTU comes
// from the netdev MTU as nic.RoCEPathMTU (hardware, MTU−96) and
// nic.RXEPathMTU (rdma_rxe, MTU−80) compute it.
//
// # Wire arithmetic (UDP and TCP)
//
// A netperf UDP_STREAM datagram of m bytes is m+8 bytes of IP payload; if
// that exceeds MTU−20 (−40 for IPv6) the kernel sends IP fragments whose
// payloads are multiples of 8 bytes, each with its own IP header. Every
// frame adds L1 20, Ethernet 14 and FCS 4 (and 4 per VLAN tag). Without
// fragmentation at m = MTU−28: (MTU−28)/(MTU+38), 95.71 % at 1500 and
// 99.27 % at 9000. TCP segments carry MSS = MTU−40 (−12 more with
// timestamps, Linux's default): (MTU−52)/(MTU+38), 94.15 % at 1500.
// ACKs on the reverse path are not counted.
//
// # PCIe
//
// A PCIe link moves GT/s × width raw bits, less its line encoding: 8b/10b
// at 2.5 and 5 GT/s (Gen1, Gen2), 128b/130b at 8, 16 and 32 GT/s (Gen3 to
// Gen5). Gen6 (64 GT/s, FLIT mode) is not modelled and gives
// ErrPCIeSpeed. Of the data rate, transaction layer packets carry payload
// in units of the Max Payload Size (256 B unless set) with 24 B each
// (a 4-DW header 16, framing and sequence number 4, LCRC 4); data link
// layer packets (ACKs, flow-control updates) are assumed to take 5 % of the
// link. That gives 256/280 × 0.95 ≈ 86.9 % of the data rate: Gen3 x16 about
// 109 Gbit/s of payload, Gen4 x16 about 219. Descriptor and doorbell
// traffic, and read-request latency for a NIC's transmit path, are not
// counted: the PCIe figure is a ceiling, not an estimate.
//
// # Ceilings
//
// Path.Ceiling lists every limit that applies (the link at the stream's
// efficiency, the PCIe link), says which figures are unknown (virtio
// reports no speed; rdma_rxe reports "1X, speed 1", which means nothing),
// and Lowest returns the limit that binds. Fraction holds a measured rate
// against it.
package limits
