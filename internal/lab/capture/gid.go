package capture

import (
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"path"
	"sort"
	"strconv"
	"strings"
)

// ErrParse is wrapped by every parse error of this package.
var ErrParse = errors.New("capture: cannot parse file")

// ErrNoGID means the GID table holds no RoCE v2 entry for the address (yet).
var ErrNoGID = errors.New("capture: no RoCE v2 GID for the address")

// RoCEv2GIDType is the content of gid_attrs/types/N for a RoCE v2 GID.
const RoCEv2GIDType = "RoCE v2"

// RoCEv2GIDIndex returns the index N of the GID table of port on dev whose gids/N is addr
// (IPv4 as an IPv4-mapped IPv6 GID) and whose gid_attrs/types/N is "RoCE v2". sysfs is the
// root of /sys, e.g. os.DirFS("/sys"). Empty slots, whose gid_attrs files fail with EINVAL,
// are skipped. It wraps ErrNoGID when no entry matches.
//
// Similar to: show_gids | grep 'v2' | grep ADDR.
func RoCEv2GIDIndex(sysfs fs.FS, dev string, port int, addr netip.Addr) (int, error) {
	dir := path.Join("class/infiniband", dev, "ports", strconv.Itoa(port))
	entries, err := fs.ReadDir(sysfs, path.Join(dir, "gids"))
	if err != nil {
		return -1, err
	}
	indexes := make([]int, 0, len(entries))
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			indexes = append(indexes, n)
		}
	}
	sort.Ints(indexes)
	want := netip.AddrFrom16(addr.As16())
	for _, n := range indexes {
		gid, err := readGID(sysfs, path.Join(dir, "gids", strconv.Itoa(n)))
		if err != nil || gid != want {
			continue
		}
		typ, err := fs.ReadFile(sysfs, path.Join(dir, "gid_attrs/types", strconv.Itoa(n)))
		if err == nil && strings.TrimSpace(string(typ)) == RoCEv2GIDType {
			return n, nil
		}
	}
	return -1, fmt.Errorf("%w: %s port %d, %s", ErrNoGID, dev, port, addr)
}

// readGID reads a GID file such as "0000:0000:0000:0000:0000:ffff:c612:0001\n".
func readGID(sysfs fs.FS, name string) (netip.Addr, error) {
	data, err := fs.ReadFile(sysfs, name)
	if err != nil {
		return netip.Addr{}, err
	}
	a, err := netip.ParseAddr(strings.TrimSpace(string(data)))
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%w: %s: %v", ErrParse, name, err)
	}
	return a, nil
}
