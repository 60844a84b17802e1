package fleet

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/runbook"
)

// prepareMesh prepares every namespace of a mesh as a fleet host for
// netperf (MTU 9000 on each of its veths, journaled; address, speed and
// CPUs read back), limit hosts at once, and restores them.
func prepareMesh(tb testing.TB, ns []string, limit int) []Host {
	dir := tb.TempDir()
	sides := make([]runbook.Side, len(ns))
	netdevs := make([][]string, len(ns))
	for i, n := range ns {
		sides[i] = &runbook.Local{Netns: n, Journal: filepath.Join(dir, fmt.Sprint("journal-", i, ".jsonl"))}
		for j := range ns {
			if j != i {
				netdevs[i] = append(netdevs[i], fmt.Sprint("to", j))
			}
		}
	}
	defer func() {
		for _, s := range sides {
			if err := s.Restore(context.Background()); err != nil {
				tb.Error(err)
			}
			s.Close()
		}
	}()
	hosts, err := Prepare(ctxFor(tb), ns, limit, func(ctx context.Context, i int) (Host, error) {
		return PrepareNetperfHost(ctx, fmt.Sprint("h", i), sides[i], netdevs[i], 9000)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return hosts
}

// Prepared one after the other or 16 at once, a mesh of real namespaces
// gives the same hosts, and restores to MTU 1500.
func TestPrepareNetnsMesh(t *testing.T) {
	_, ns := netnsMesh(t, "pr", 4)
	serial, parallel := prepareMesh(t, ns, 1), prepareMesh(t, ns, 16)
	for i := range serial {
		if len(serial[i].NICs) != 3 || fmt.Sprint(serial[i].NICs) != fmt.Sprint(parallel[i].NICs) {
			t.Errorf("host %d: serial %+v, parallel %+v", i, serial[i].NICs, parallel[i].NICs)
		}
	}
	if mtu := lineMTU(t, ns[2], "to0"); mtu != 1500 {
		t.Errorf("to0 in %s: MTU %d after restore", ns[2], mtu)
	}
}

// BenchmarkPrepareNetnsMesh times the preparation of 8- and 16-host
// meshes (7 and 15 veths per host) one host after the other against 16 at
// once: go test -run '^$' -bench PrepareNetnsMesh -benchtime 3x ./fleet
func BenchmarkPrepareNetnsMesh(b *testing.B) {
	for _, n := range []int{8, 16} {
		_, ns := netnsMesh(b, fmt.Sprint("b", n), n)
		for _, limit := range []int{1, 16} {
			b.Run(fmt.Sprintf("hosts=%d/parallel=%d", n, limit), func(b *testing.B) {
				for b.Loop() {
					prepareMesh(b, ns, limit)
				}
			})
		}
	}
}

// lineMTU reads dev's MTU in namespace ns.
func lineMTU(t testing.TB, ns, dev string) int {
	h, err := nic.Open(nic.Options{Netns: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	mtu, err := h.MTU(ctxFor(t), dev)
	if err != nil {
		t.Fatal(err)
	}
	return mtu
}
