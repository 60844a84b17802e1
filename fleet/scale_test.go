package fleet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rocekit/rocekit/report"
)

// TestScale1000 is the arithmetic of FLEET.md, measured: the all-pairs
// schedule of 1,000 hosts, a matrix of its 499,500 cells in memory, the
// outliers over it (one slow host, one slow link among noise), and the
// size of a stored cell.
func TestScale1000(t *testing.T) {
	if testing.Short() {
		t.Skip("half a million cells; skipped with -short")
	}
	const n = 1000
	start := time.Now()
	s, err := AllPairs(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("AllPairs(%d, 1): %d rounds, %d pairs in %v", n, len(s.Rounds), s.Len(), time.Since(start))
	if len(s.Rounds) != 999 || s.Len() != n*(n-1)/2 {
		t.Fatalf("%d rounds, %d pairs", len(s.Rounds), s.Len())
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := synthetic(n, slowHostAndLink(417, 3, 999))
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("matrix of %d cells: %.0f MB live", len(m.Cells), float64(after.HeapAlloc-before.HeapAlloc)/1e6)
	start = time.Now()
	out := Outliers(m, 0)
	t.Logf("Outliers over %d cells: %v", len(m.Cells), time.Since(start))
	if len(out) != 2 || out[0].Host != "h417" || len(out[0].Pairs) != n-1 || out[1].Names[0] != "h3–h999" {
		got := ""
		for _, o := range out[:min(len(out), 5)] {
			got += fmt.Sprintln(o)
		}
		t.Errorf("%d outliers, want host h417 and link h3–h999:\n%s", len(out), got)
	}
	c := m.Cells[0]
	c.ANIC, c.BNIC = "enp59s0f0np0", "enp59s0f0np0"
	line, _ := json.Marshal(CellRound("rack12", c))
	t.Logf("one stored cell: %d bytes of JSON", len(line)+1)

	// Resuming reads the whole store: time and memory of 50,000 cells.
	var buf bytes.Buffer
	for _, c := range m.Cells[:50000] {
		line, _ := json.Marshal(CellRound("rack12", c))
		buf.Write(append(line, '\n'))
	}
	runtime.GC()
	runtime.ReadMemStats(&before)
	start = time.Now()
	rounds, _, err := report.ReadRounds(&buf)
	if err != nil || len(rounds) != 50000 {
		t.Fatalf("ReadRounds: %d rounds, %v", len(rounds), err)
	}
	done := measured(rounds, "rack12", m.Hosts)
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("resume over 50,000 stored cells: %v, %.0f MB allocated, %d pairs to skip", time.Since(start), float64(after.TotalAlloc-before.TotalAlloc)/1e6, len(done))
	runtime.KeepAlive(rounds)
	runtime.KeepAlive(&buf)
	runtime.KeepAlive(done)
}
