package rxe

import (
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"path"
	"slices"
	"strconv"
	"syscall"
)

// GIDEntry is one used slot of a port's GID table: a row of show_gids.
type GIDEntry struct {
	Device string  `json:"device"`
	Port   int     `json:"port"`
	Index  int     `json:"index"`
	GID    GID     `json:"gid"`
	Type   GIDType `json:"type"`
	Netdev string  `json:"netdev,omitempty"` // "" on InfiniBand ports
}

// IPv4 returns the IPv4 address of an IPv4-mapped entry.
func (e GIDEntry) IPv4() (netip.Addr, bool) { return e.GID.IPv4() }

// GIDTable is the GID table of one port. Entries holds the used slots in
// index order; empty slots (an all-zero GID whose gid_attrs read EINVAL) are
// left out. Slots is the size of the table (gid_tbl_len).
type GIDTable struct {
	Device  string     `json:"device"`
	Port    int        `json:"port"`
	Slots   int        `json:"slots"`
	Entries []GIDEntry `json:"entries"`
}

// Entry returns the entry at index i.
func (t GIDTable) Entry(i int) (GIDEntry, bool) {
	for _, e := range t.Entries {
		if e.Index == i {
			return e, true
		}
	}
	return GIDEntry{}, false
}

// GIDTable reads the GID table of a port of any RDMA device (rxe or
// hardware; the sysfs layout is the kernel's).
//
// Similar to: show_gids DEVICE PORT
func (r Root) GIDTable(device string, port int) (GIDTable, error) {
	t := GIDTable{Device: device, Port: port}
	dir := path.Join(classInfiniband, device, "ports", strconv.Itoa(port))
	names, err := fs.ReadDir(r.fs(), path.Join(dir, "gids"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return t, &Error{Op: "read GID table", Name: fmt.Sprintf("%s/%d", device, port), Kind: ErrDeviceNotFound, Err: err}
		}
		return t, err
	}
	var idx []int
	for _, n := range names {
		i, err := strconv.Atoi(n.Name())
		if err != nil || i < 0 {
			continue
		}
		idx = append(idx, i)
	}
	slices.Sort(idx)
	if len(idx) > 0 {
		t.Slots = idx[len(idx)-1] + 1
	}
	for _, i := range idx {
		e, ok, err := r.gidEntry(dir, device, port, i)
		if err != nil {
			return t, err
		}
		if ok {
			t.Entries = append(t.Entries, e)
		}
	}
	return t, nil
}

// gidEntry reads slot i; ok is false for an empty slot.
func (r Root) gidEntry(dir, device string, port, i int) (GIDEntry, bool, error) {
	e := GIDEntry{Device: device, Port: port, Index: i}
	n := strconv.Itoa(i)
	s, err := r.readString(path.Join(dir, "gids", n))
	if err != nil {
		return e, false, err
	}
	if e.GID, err = ParseGID(s); err != nil {
		return e, false, err
	}
	if e.GID.IsZero() {
		return e, false, nil
	}
	s, err = r.readString(path.Join(dir, "gid_attrs", "types", n))
	switch {
	case emptySlot(err):
		// The slot was emptied between the two reads.
		return e, false, nil
	case err != nil:
		return e, false, err
	}
	if e.Type, err = ParseGIDType(s); err != nil {
		return e, false, err
	}
	s, err = r.readString(path.Join(dir, "gid_attrs", "ndevs", n))
	switch {
	case emptySlot(err), errors.Is(err, fs.ErrNotExist):
		// InfiniBand ports have no netdev.
	case err != nil:
		return e, false, err
	default:
		e.Netdev = s
	}
	return e, true, nil
}

// emptySlot reports the error the kernel gives for the attributes of an
// unused GID slot.
func emptySlot(err error) bool { return errors.Is(err, syscall.EINVAL) }

// GIDTables reads the GID tables of every port of every RDMA device, in
// device and port order.
//
// Similar to: show_gids
func (r Root) GIDTables() ([]GIDTable, error) {
	devs, err := r.DeviceNames()
	if err != nil {
		return nil, err
	}
	var out []GIDTable
	for _, d := range devs {
		ports, err := r.portNumbers(d)
		if err != nil {
			return out, err
		}
		for _, p := range ports {
			t, err := r.GIDTable(d, p)
			if err != nil {
				return out, err
			}
			out = append(out, t)
		}
	}
	return out, nil
}
