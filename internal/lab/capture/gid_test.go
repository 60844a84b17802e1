package capture

import (
	"errors"
	"net/netip"
	"testing"
	"testing/fstest"
)

// gidTree builds a fake /sys with rxe0 port 1: slots 0/1 link-local (RoCE v1, v2),
// 2/3 198.18.0.1 (v1, v2), 4 empty (all zero, no gid_attrs: EINVAL on the real kernel).
func gidTree() fstest.MapFS {
	const dir = "class/infiniband/rxe0/ports/1/"
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s + "\n")} }
	return fstest.MapFS{
		dir + "gids/0":             file("fe80:0000:0000:0000:5054:00ff:fe12:3456"),
		dir + "gid_attrs/types/0":  file("IB/RoCE v1"),
		dir + "gids/1":             file("fe80:0000:0000:0000:5054:00ff:fe12:3456"),
		dir + "gid_attrs/types/1":  file("RoCE v2"),
		dir + "gids/2":             file("0000:0000:0000:0000:0000:ffff:c612:0001"),
		dir + "gid_attrs/types/2":  file("IB/RoCE v1"),
		dir + "gids/3":             file("0000:0000:0000:0000:0000:ffff:c612:0001"),
		dir + "gid_attrs/types/3":  file("RoCE v2"),
		dir + "gids/4":             file("0000:0000:0000:0000:0000:0000:0000:0000"),
		dir + "gids/10":            file("0000:0000:0000:0000:0000:ffff:c612:0101"),
		dir + "gid_attrs/types/10": file("RoCE v2"),
	}
}

func TestRoCEv2GIDIndex(t *testing.T) {
	tests := []struct {
		addr string
		want int
	}{
		{"198.18.0.1", 3},
		{"198.18.1.1", 10}, // two-digit index: sorted numerically, not as text
		{"fe80::5054:ff:fe12:3456", 1},
	}
	for _, tt := range tests {
		got, err := RoCEv2GIDIndex(gidTree(), "rxe0", 1, netip.MustParseAddr(tt.addr))
		if err != nil || got != tt.want {
			t.Errorf("RoCEv2GIDIndex(%s) = %d, %v; want %d", tt.addr, got, err, tt.want)
		}
	}
}

func TestRoCEv2GIDIndexMissing(t *testing.T) {
	_, err := RoCEv2GIDIndex(gidTree(), "rxe0", 1, netip.MustParseAddr("198.18.9.9"))
	if !errors.Is(err, ErrNoGID) {
		t.Errorf("unknown address: err = %v, want ErrNoGID", err)
	}
	onlyV1 := gidTree()
	onlyV1["class/infiniband/rxe0/ports/1/gid_attrs/types/3"] = &fstest.MapFile{Data: []byte("IB/RoCE v1\n")}
	if _, err := RoCEv2GIDIndex(onlyV1, "rxe0", 1, netip.MustParseAddr("198.18.0.1")); !errors.Is(err, ErrNoGID) {
		t.Errorf("only RoCE v1 for the address: err = %v, want ErrNoGID", err)
	}
	if _, err := RoCEv2GIDIndex(gidTree(), "rxe1", 1, netip.MustParseAddr("198.18.0.1")); err == nil {
		t.Error("missing device: no error")
	}
}
