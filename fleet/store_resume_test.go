package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/warnjson"
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
	if done.Len() != 2 || done.has(Pair{0, 2}) || !done.has(Pair{0, 1}) {
		t.Fatalf("%d cells resumed, want 2: %+v", done.Len(), done)
	}
	ab, _ := done.cell(Pair{0, 1})
	bc, _ := done.cell(Pair{1, 2})
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
	if err != nil || missing.Len() != 0 {
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

// TestResumeCompactAgrees: the compact cells resume keeps read back as
// the cells of the rounds loaded whole (measured), for cells with line
// rates, errors and warnings, either orientation, NICs of their own, a
// pair stored twice; a corrupt middle line and a torn last line are
// skipped as Load skips them.
func TestResumeCompactAgrees(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.jsonl")
	store := report.OpenStore(path)
	hosts := []string{"h0", "h1", "h2", "h3", "h4"}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var rounds []report.Round
	for i := range 40 {
		a, b := i%5, (i%5+1+i/5%4)%5
		if a == b {
			continue
		}
		c := Cell{A: hosts[a], B: hosts[b], ANIC: fmt.Sprint("eth", i%3), BNIC: "enp59s0f0np0", OK: i%7 != 0,
			BWGbps: 90 + float64(i)/4, Start: t0.Add(time.Duration(i) * time.Minute), Elapsed: time.Duration(i) * 1500 * time.Millisecond}
		if i%4 == 0 {
			c.LineRateGbps = 100
		}
		switch i % 3 {
		case 1:
			c.Start = c.Start.In(time.FixedZone("", 2*3600))
		case 2:
			c.Start = c.Start.In(time.FixedZone("", 5*3600+1800))
		}
		if i%6 == 0 {
			c.Warnings = warnjson.Errors{errors.New("error: not the error"), errors.New("bw_peak over line rate")}
		}
		if !c.OK {
			c.Error = "timeout"
		}
		rounds = append(rounds, CellRound("rack", c))
	}
	var buf bytes.Buffer
	for i, r := range rounds {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if i == 11 {
			line = line[:len(line)/2] // a corrupt middle line: the round is lost
		}
		buf.Write(append(line, '\n'))
	}
	last, _ := json.Marshal(CellRound("rack", Cell{A: "h0", B: "h1", OK: true, BWGbps: 1, Start: t0}))
	buf.Write(last[:len(last)-5]) // torn: h0–h1 keeps its earlier cell
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, res, err := store.Load()
	if err != nil || !res.Torn || len(res.Corrupt) != 1 || len(loaded) != len(rounds)-1 {
		t.Fatalf("load: %d rounds, %+v, %v", len(loaded), res, err)
	}
	want := measured(loaded, "rack", hosts)
	got, err := resume(store, "rack", hosts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != len(want) || len(want) != 10 {
		t.Fatalf("%d cells resumed, %d measured, want 10", got.Len(), len(want))
	}
	withWarnings, swapped := 0, 0
	for p, w := range want {
		c, ok := got.cell(p)
		if !ok || !reflect.DeepEqual(c, w) {
			t.Errorf("pair %v:\n got %+v\nwant %+v", p, c, w)
		}
		if len(c.Warnings) > 0 {
			withWarnings++
		}
		if c.A != hosts[p.A] {
			swapped++
		}
	}
	if zones := len(got.zones); zones != 3 {
		t.Errorf("%d locations kept, want UTC, +02:00 and +05:30", zones)
	}
	if withWarnings == 0 || swapped == 0 {
		t.Errorf("the store lacks a case: %d with warnings, %d swapped", withWarnings, swapped)
	}
	if _, ok := got.cell(Pair{3, 3}); ok {
		t.Error("a cell for a pair never stored")
	}
}
