//go:build lab

package topo

// Tier 3: in the lab guests (kernels 6.1 and 6.12 with rdma_rxe). Run with:
// go run ./internal/lab/cmd/lab test -run '^TestLabTopo' -v

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/rxe"
)

// TestLabTopoRXE: a pair with an rxe link on end A has that link on A's
// veth, and Close removes the link, the veth and both namespaces.
func TestLabTopoRXE(t *testing.T) {
	labtest.Guest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := rxe.LoadModule(ctx, rxe.Root{}, nil); err != nil {
		t.Fatalf("LoadModule: %v", err)
	}
	p, err := NewPair(ctx, filepath.Join(t.TempDir(), "j"), PairSpec{Name: "labtp", MTU: 9000, RXE: true})
	if err != nil {
		t.Fatal(err)
	}
	h, err := rxe.Open(rxe.Options{Netns: p.A.Netns})
	if err != nil {
		p.Close(ctx)
		t.Fatal(err)
	}
	l, err := h.LinkByName(ctx, p.RXE)
	h.Close()
	if err != nil || l.Netdev() != p.A.Netdev {
		p.Close(ctx)
		t.Fatalf("rxe link %s: %+v, %v; want it on %s", p.RXE, l, err, p.A.Netdev)
	}
	t.Logf("%s on %s in %s", p.RXE, l.Netdev(), p.A.Netns)
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	h, err = rxe.Open(rxe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.LinkByName(ctx, p.RXE); !errors.Is(err, rxe.ErrDeviceNotFound) {
		t.Errorf("after Close: rxe link %s: %v, want ErrDeviceNotFound", p.RXE, err)
	}
	if exists(p.A.Netns) || exists(p.B.Netns) {
		t.Errorf("namespaces left: %v %v", exists(p.A.Netns), exists(p.B.Netns))
	}
}
