package fleet

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rocekit/rocekit/report"
)

// TestResumeScansTheStore: resume keeps the good cells of the run named
// name, the last of a pair winning; a failed cell, another run's cell, a
// host no longer in the plan and a torn last line are skipped. The cells'
// host and NIC names are shared copies.
func TestResumeScansTheStore(t *testing.T) {
	store := report.OpenStore(filepath.Join(t.TempDir(), "fleet.jsonl"))
	hosts := []string{"a", "b", "c"}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	cell := func(a, b int, bw float64, ok bool) Cell {
		c := Cell{A: hosts[a], B: hosts[b], ANIC: "eth0", BNIC: "eth0", OK: ok, BWGbps: bw, Start: t0, Elapsed: time.Second}
		if !ok {
			c.Error = "timeout"
		}
		return c
	}
	for _, r := range []report.Round{
		CellRound("rack", cell(0, 1, 10, true)),
		CellRound("rack", cell(1, 0, 11, true)), // the same pair again: wins
		CellRound("rack", cell(0, 2, 0, false)),
		CellRound("rack", Cell{A: "a", B: "gone", OK: true, BWGbps: 1, Start: t0}),
		CellRound("rack", cell(2, 1, 13, true)),
		CellRound("other", cell(1, 2, 12, true)), // another run's: not this one's last
	} {
		if err := store.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	done, err := resume(store, "rack", hosts)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 {
		t.Fatalf("%d cells resumed, want 2: %+v", len(done), done)
	}
	ab, bc := done[Pair{0, 1}], done[Pair{1, 2}]
	if ab.BWGbps != 11 || ab.A != "b" || !ab.Resumed || bc.BWGbps != 13 || bc.A != "c" || bc.Elapsed != time.Second {
		t.Errorf("cells %+v, %+v", ab, bc)
	}
	if ab.ANIC != "eth0" || bc.BNIC != "eth0" {
		t.Errorf("NICs %q %q", ab.ANIC, bc.BNIC)
	}
	if got := measured(mustLoad(t, store), "rack", hosts); len(got) != 2 || got[Pair{0, 1}].BWGbps != 11 {
		t.Errorf("measured over loaded rounds: %+v", got)
	}
	missing, err := resume(report.OpenStore(filepath.Join(t.TempDir(), "none.jsonl")), "rack", hosts)
	if err != nil || len(missing) != 0 {
		t.Errorf("missing store: %v, %v", missing, err)
	}
}

func mustLoad(t *testing.T, s *report.Store) []report.Round {
	t.Helper()
	rounds, _, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	return rounds
}
