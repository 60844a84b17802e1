package rxe

import (
	"encoding/hex"
	"fmt"
	"net"
	"slices"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// GUID is an 8-byte InfiniBand node or port GUID, printed by the kernel as
// four groups of four hex digits ("6c6a:e5ff:fe00:f29c").
type GUID [8]byte

// ParseGUID parses a GUID in the form of sysfs node_guid and sys_image_guid.
func ParseGUID(s string) (GUID, error) {
	var g GUID
	err := parseHexGroups("GUID", s, g[:]) // before g is read: a return's operands have no set order
	return g, err
}

// parseHexGroups fills dst from len(dst)/2 groups of four hex digits
// joined by ':', the form sysfs prints GIDs and GUIDs in. On an error dst
// keeps the groups decoded so far.
func parseHexGroups(what, s string, dst []byte) error {
	n := len(dst) / 2
	t := sysfs.TrimNewline(s)
	if len(t) != n*5-1 {
		return parseError(what, s, fmt.Errorf("want %d groups of 4 hex digits", n))
	}
	for i := 0; i < n; i++ {
		if i < n-1 && t[i*5+4] != ':' {
			return parseError(what, s, fmt.Errorf("no ':' after group %d", i+1))
		}
		if _, err := hex.Decode(dst[i*2:i*2+2], []byte(t[i*5:i*5+4])); err != nil {
			return parseError(what, s, err)
		}
	}
	return nil
}

// String formats g as sysfs and `rdma dev show` do.
func (g GUID) String() string {
	return fmt.Sprintf("%x:%x:%x:%x", g[0:2], g[2:4], g[4:6], g[6:8])
}

// MarshalText formats g as String does.
func (g GUID) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText parses what MarshalText wrote (ParseGUID), so a Device
// crosses JSON both ways.
func (g *GUID) UnmarshalText(b []byte) error {
	v, err := ParseGUID(string(b))
	if err == nil {
		*g = v
	}
	return err
}

// guidFromNetlink converts vishvananda/netlink's NodeGuid and SysImageGuid
// strings, which are byte-reversed ("9c:f2:00:fe:ff:e5:6a:6c" for sysfs
// "6c6a:e5ff:fe00:f29c": the kernel sends the big-endian GUID as a host
// integer and the library prints it little-endian).
func guidFromNetlink(s string) (GUID, error) {
	var g GUID
	mac, err := net.ParseMAC(s)
	if err != nil || len(mac) != 8 {
		return g, parseError("netlink GUID", s, err)
	}
	copy(g[:], slices.Clone(mac))
	slices.Reverse(g[:])
	return g, nil
}
