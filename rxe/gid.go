package rxe

import (
	"encoding/hex"
	"net/netip"
	"strings"
)

// GID is a 128-bit InfiniBand/RoCE global identifier. For RoCE it is an IPv6
// address, or an IPv4 address mapped into IPv6 (::ffff:a.b.c.d).
type GID [16]byte

// ParseGID parses a GID as the kernel prints it in
// /sys/class/infiniband/DEV/ports/N/gids/I: eight groups of four hex digits
// ("fe80:0000:0000:0000:6c6a:e5ff:fe00:f29c"). A trailing newline is allowed.
func ParseGID(s string) (GID, error) {
	var g GID
	err := parseHexGroups("GID", s, g[:]) // before g is read: a return's operands have no set order
	return g, err
}

// GIDFromAddr returns the GID of an IP address: IPv6 as is, IPv4 mapped
// (198.18.20.1 → ::ffff:198.18.20.1), as the kernel adds them for RoCE.
func GIDFromAddr(a netip.Addr) GID {
	return GID(a.As16())
}

// String formats g as the kernel does in sysfs.
func (g GID) String() string {
	var b strings.Builder
	b.Grow(39)
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(hex.EncodeToString(g[i : i+2]))
	}
	return b.String()
}

// MarshalText formats g as String does.
func (g GID) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText parses the sysfs form or any IPv4 or IPv6 address.
func (g *GID) UnmarshalText(b []byte) error {
	if v, err := ParseGID(string(b)); err == nil {
		*g = v
		return nil
	}
	a, err := netip.ParseAddr(string(b))
	if err != nil {
		return parseError("GID", string(b), err)
	}
	*g = GIDFromAddr(a)
	return nil
}

// Addr returns g as an IPv6 address (an IPv4-mapped one prints as
// ::ffff:198.18.20.1).
func (g GID) Addr() netip.Addr { return netip.AddrFrom16(g) }

// IPv4 returns the IPv4 address of an IPv4-mapped GID.
func (g GID) IPv4() (netip.Addr, bool) {
	if !g.IsIPv4Mapped() {
		return netip.Addr{}, false
	}
	return g.Addr().Unmap(), true
}

// IsZero reports whether g is all zeros: the content of an empty GID slot.
func (g GID) IsZero() bool { return g == GID{} }

// IsIPv4Mapped reports whether g is ::ffff:a.b.c.d, the RoCE GID of an IPv4
// address (show_gids prints its IPv4 column for these).
func (g GID) IsIPv4Mapped() bool { return g.Addr().Is4In6() }

// IsLinkLocal reports whether g is in fe80::/10, like the default GID the
// kernel derives from the netdev's MAC address.
func (g GID) IsLinkLocal() bool { return g[0] == 0xfe && g[1]&0xc0 == 0x80 }

// perftestIPv4 mirrors perftest's ipv6_addr_v4mapped(): ::ffff:0:0/96 or the
// IPv4-encoded multicast ff0e::ffff:a.b.c.d.
func (g GID) perftestIPv4() bool {
	if g.IsIPv4Mapped() {
		return true
	}
	mc := GID{0xff, 0x0e, 10: 0xff, 11: 0xff}
	return [12]byte(g[:12]) == [12]byte(mc[:12])
}
