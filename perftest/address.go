package perftest

import (
	"bytes"
	"net/netip"
	"strconv"
)

// Address is one "local address" or "remote address" line with the GID
// line under it (ctx_print_pingpong_data), one per QP:
//
//	local address: LID 0000 QPN 0x0011 PSN 0xf3dcc7 RKey 0x000d54 VAddr 0x007f2d7c5c7000
//	GID: 00:00:00:00:00:00:00:00:00:00:255:255:198:18:00:01
//
// Fields the line does not print are 0 (RKey and VAddr only for RDMA
// verbs, OutReads for read, SRQN for XRC and DC).
type Address struct {
	LID      uint32 // 0 on RoCE (printed "0000")
	QPN      uint32 // queue pair number
	PSN      uint32 // initial packet sequence number
	OutReads uint32 // OUT, outstanding reads (read tests)
	RKey     uint32 // remote key of the buffer (write and read tests)
	VAddr    uint64 // virtual address of the buffer (write and read tests)
	SRQN     uint32 // SRQ number (XRC, DC)
	// GID is the 16 bytes perftest prints in decimal, as an IPv6
	// address; GID.Unmap() gives the IPv4 address of a RoCE v2 IPv4 GID
	// (::ffff:198.18.0.1 → 198.18.0.1). Invalid when no GID line follows
	// (IB without -x).
	GID netip.Addr
	// MGID marks a multicast GID line ("MGID:", -g).
	MGID bool
}

// parseAddress parses the part of an address line after "address:".
// A line that ends in a key without its value (a page wrapped the line
// before "VAddr"'s value) parses, and the key is returned so that the
// value can be taken from the next line.
func parseAddress(rest []byte) (a Address, dangling string, ok bool) {
	var f [maxFields][]byte
	n := splitFields(rest, &f)
	if n == 0 || n > maxFields {
		return a, "", false
	}
	if n%2 != 0 {
		dangling = string(f[n-1])
		if !a.set(dangling, 0) {
			return a, "", false
		}
		n--
	}
	for i := 0; i < n; i += 2 {
		v, ok := parseHex(f[i+1])
		if !ok || !a.set(string(f[i]), v) {
			return a, "", false
		}
	}
	return a, dangling, true
}

// set stores the value of one key of an address line; it reports false
// for an unknown key or a value out of range.
func (a *Address) set(key string, v uint64) bool {
	if v > 0xffffffff && key != "VAddr" {
		return false
	}
	switch key {
	case "LID":
		a.LID = uint32(v)
	case "QPN":
		a.QPN = uint32(v)
	case "PSN":
		a.PSN = uint32(v)
	case "OUT":
		a.OutReads = uint32(v)
	case "RKey":
		a.RKey = uint32(v)
	case "VAddr":
		a.VAddr = v
	case "SRQn":
		a.SRQN = uint32(v)
	default:
		return false
	}
	return true
}

// parseHex parses "0x1907" or "0000" (C's %#04x prints 0 without 0x).
func parseHex(b []byte) (uint64, bool) {
	b = bytes.TrimPrefix(bytes.TrimPrefix(b, []byte("0x")), []byte("0X"))
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b), 16, 64)
	return v, err == nil
}

// parseGID parses 16 decimal bytes separated by colons:
// "254:128:00:00:00:00:00:00:148:109:174:03:00:50:07:120".
func parseGID(b []byte) (netip.Addr, bool) {
	var raw [16]byte
	n := 0
	for part := range bytes.SplitSeq(bytes.TrimSpace(b), []byte(":")) {
		if n == 16 {
			return netip.Addr{}, false
		}
		v, ok := parseUint(part)
		if !ok || v > 255 {
			return netip.Addr{}, false
		}
		raw[n] = byte(v)
		n++
	}
	if n != 16 {
		return netip.Addr{}, false
	}
	return netip.AddrFrom16(raw), true
}
