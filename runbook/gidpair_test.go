package runbook

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rxe"
)

// gidSide is a Side whose PrepareRXE picks a given GID; every other
// method is the embedded nil interface's (never called here).
type gidSide struct {
	Side
	name string
	gid  rxe.GIDEntry
}

func (g gidSide) Name() string { return g.name }

func (g gidSide) PrepareRXE(_ context.Context, c RXEConfig) (RXE, error) {
	return RXE{Device: c.Name, Netdev: c.Netdev, GID: rxe.Selection{Entry: g.gid}}, nil
}

func gidEntry(t *testing.T, dev string, index int, typ rxe.GIDType, gid string) rxe.GIDEntry {
	t.Helper()
	g, err := rxe.ParseGID(gid)
	if err != nil {
		t.Fatal(err)
	}
	return rxe.GIDEntry{Device: dev, Port: 1, Index: index, Type: typ, GID: g}
}

// One end picked an IPv4-mapped RoCE v2 GID, the other an IPv6
// link-local one (or RoCE v1): refused before any pair, naming both.
func TestPrepareRXERefusesIncompatibleGIDs(t *testing.T) {
	v4 := gidEntry(t, "rxe0", 1, rxe.GIDTypeRoCEv2, "0000:0000:0000:0000:0000:ffff:c612:0001")
	v4far := gidEntry(t, "rxe0", 1, rxe.GIDTypeRoCEv2, "0000:0000:0000:0000:0000:ffff:c612:0002")
	linkLocal := gidEntry(t, "rxe0", 0, rxe.GIDTypeRoCEv2, "fe80:0000:0000:0000:6c6a:e5ff:fe00:f29c")
	v1 := gidEntry(t, "rxe0", 1, rxe.GIDTypeRoCEv1, "0000:0000:0000:0000:0000:ffff:c612:0002")
	for name, c := range map[string]struct {
		far  rxe.GIDEntry
		want string
	}{
		"v4 and link-local": {linkLocal, "one is IPv4-mapped, the other IPv6"},
		"v2 and v1":         {v1, "RoCE versions differ"},
		"compatible":        {v4far, ""},
	} {
		s := &Sides{Mode: TwoHosts, Near: gidSide{name: "near", gid: v4}, Far: gidSide{name: "far", gid: c.far},
			NearNetdev: "eth0", FarNetdev: "eth0"}
		err := s.PrepareRXE(context.Background(), "rxe0", 0, nil)
		// Each end's info is kept on its own field: near is near.
		if s.NearRXE.GID.Entry != v4 || s.FarRXE.GID.Entry != c.far {
			t.Errorf("%s: NearRXE %v FarRXE %v, want near %v far %v", name, s.NearRXE.GID.Entry, s.FarRXE.GID.Entry, v4, c.far)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.want != "" && (!errors.Is(err, rxe.ErrIncompatibleGIDs) || !strings.Contains(err.Error(), c.want) ||
			!strings.Contains(err.Error(), v4.GID.Addr().String()) || !strings.Contains(err.Error(), c.far.GID.Addr().String())):
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestPairsToolSec(t *testing.T) {
	p := Pairs{Pairs: []*perftest.PairResult{{Elapsed: 1500 * time.Millisecond}, nil, {Elapsed: 500 * time.Millisecond}}}
	if got := p.ToolSec(); got != 2 {
		t.Errorf("ToolSec %v, want 2", got)
	}
}
