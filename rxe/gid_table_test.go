package rxe

import (
	"errors"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestGIDTableFixtures(t *testing.T) {
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			caps := suiteCapture(t, s.name)
			ll := GIDEntry{Device: "rxe0", Port: 1, Index: 0, GID: gidOf(s.linkLocal), Type: GIDTypeRoCEv2, Netdev: "v0"}
			v6 := GIDEntry{Device: "rxe0", Port: 1, Index: 1, GID: gidOf("2001:2::1"), Type: GIDTypeRoCEv2, Netdev: "v0"}
			v4 := GIDEntry{Device: "rxe0", Port: 1, Index: 2, GID: gidOf("198.18.20.1"), Type: GIDTypeRoCEv2, Netdev: "v0"}
			for scen, want := range map[string]GIDTable{
				"rxe0-ipv6-only": {Device: "rxe0", Port: 1, Slots: 1024, Entries: []GIDEntry{ll, v6}},
				"rxe0-ipv4":      {Device: "rxe0", Port: 1, Slots: 1024, Entries: []GIDEntry{ll, v6, v4}},
			} {
				got, err := caps[scen].root().GIDTable("rxe0", 1)
				if err != nil {
					t.Fatalf("%s: %v", scen, err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s: GIDTable (-want +got):\n%s", scen, d)
				}
				all, err := caps[scen].root().GIDTables()
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff([]GIDTable{want}, all); d != "" {
					t.Errorf("%s: GIDTables (-want +got):\n%s", scen, d)
				}
			}
			// Before rdma_rxe there is no /sys/class/infiniband at all.
			if all, err := caps["before-load"].root().GIDTables(); err != nil || len(all) != 0 {
				t.Errorf("before-load: GIDTables = %v, %v; want none", all, err)
			}
		})
	}
}

// TestGIDTableEINVAL replays, on the real bookworm tree, a slot that is
// emptied between reading gids/N and gid_attrs/types/N: the captured
// gid_attrs of slot 5 read EINVAL, so a non-zero GID there is skipped.
func TestGIDTableEINVAL(t *testing.T) {
	sc := suiteCapture(t, "bookworm")["rxe0-ipv4"]
	const dir = "sys/devices/virtual/infiniband/rxe0/ports/1/"
	if err, _ := sc.Files[dir+"gid_attrs/types/5"].Sys.(error); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("fixture: types/5 is not marked EINVAL: %v", sc.Files[dir+"gid_attrs/types/5"].Sys)
	}
	sc.Files[dir+"gids/5"] = &fstest.MapFile{Data: []byte("0000:0000:0000:0000:0000:ffff:c612:1402\n")}
	got, err := sc.root().GIDTable("rxe0", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != 3 || got.Entries[2].Index != 2 {
		t.Errorf("entries = %+v, want indexes 0-2 only", got.Entries)
	}

	// An entry whose ndev reads EINVAL (an InfiniBand port) keeps its GID
	// with no netdev.
	sc.Files[dir+"gid_attrs/ndevs/2"].Sys = syscall.EINVAL
	got, err = sc.root().GIDTable("rxe0", 1)
	if err != nil {
		t.Fatal(err)
	}
	if e := got.Entries[2]; e.Netdev != "" || e.Type != GIDTypeRoCEv2 {
		t.Errorf("entry 2 = %+v, want no netdev", e)
	}

	// Any other read error is reported.
	sc.Files[dir+"gid_attrs/types/1"].Sys = syscall.EIO
	if _, err := sc.root().GIDTable("rxe0", 1); !errors.Is(err, syscall.EIO) {
		t.Errorf("EIO on types/1: err = %v", err)
	}
}

func TestGIDTableMissing(t *testing.T) {
	sc := suiteCapture(t, "trixie")["rxe0-ipv4"]
	for _, tc := range []struct {
		dev  string
		port int
	}{{"rxe1", 1}, {"rxe0", 2}} {
		_, err := sc.root().GIDTable(tc.dev, tc.port)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrDeviceNotFound) {
			t.Errorf("GIDTable(%s, %d) error = %v, want ErrDeviceNotFound", tc.dev, tc.port, err)
		}
	}
}

func TestGIDTableGarbage(t *testing.T) {
	sc := suiteCapture(t, "trixie")["rxe0-ipv4"]
	sc.Files["sys/devices/virtual/infiniband/rxe0/ports/1/gids/1"].Data = []byte("2001::1\n")
	if _, err := sc.root().GIDTable("rxe0", 1); !errors.Is(err, ErrParse) {
		t.Errorf("garbled GID: err = %v, want ErrParse", err)
	}
}

func BenchmarkGIDTable(b *testing.B) {
	root := suiteCapture(b, "trixie")["rxe0-ipv4"].root()
	for b.Loop() {
		if _, err := root.GIDTable("rxe0", 1); err != nil {
			b.Fatal(err)
		}
	}
}
