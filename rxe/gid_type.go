package rxe

import (
	"fmt"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// GIDType is the RoCE version of a GID table entry
// (/sys/class/infiniband/DEV/ports/N/gid_attrs/types/I).
type GIDType uint8

// GID types. The kernel prints "IB/RoCE v1" for InfiniBand and RoCE v1
// entries and "RoCE v2" for RoCE v2 (UDP-encapsulated) ones.
const (
	GIDTypeUnknown GIDType = iota
	GIDTypeRoCEv1          // "IB/RoCE v1"
	GIDTypeRoCEv2          // "RoCE v2"
)

// ParseGIDType parses the content of a gid_attrs/types file.
func ParseGIDType(s string) (GIDType, error) {
	switch sysfs.TrimNewline(s) {
	case "IB/RoCE v1":
		return GIDTypeRoCEv1, nil
	case "RoCE v2":
		return GIDTypeRoCEv2, nil
	}
	return GIDTypeUnknown, parseError("GID type", s, nil)
}

// String returns the kernel's text for t.
func (t GIDType) String() string {
	switch t {
	case GIDTypeRoCEv1:
		return "IB/RoCE v1"
	case GIDTypeRoCEv2:
		return "RoCE v2"
	}
	return fmt.Sprintf("GIDType(%d)", uint8(t))
}

// Version returns the VER column of show_gids: "v1", "v2" or "".
func (t GIDType) Version() string {
	switch t {
	case GIDTypeRoCEv1:
		return "v1"
	case GIDTypeRoCEv2:
		return "v2"
	}
	return ""
}

// MarshalText returns the kernel's text for t.
func (t GIDType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText parses the kernel's text.
func (t *GIDType) UnmarshalText(b []byte) error {
	v, err := ParseGIDType(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// perftestRank is perftest's roce_versions_sorted rate: v2 beats v1.
func (t GIDType) perftestRank() int {
	switch t {
	case GIDTypeRoCEv1:
		return 1
	case GIDTypeRoCEv2:
		return 2
	}
	return -1
}
