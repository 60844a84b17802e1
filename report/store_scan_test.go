package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readRoundsSeq is ReadRounds as it was before ScanRounds: one goroutine,
// one line at a time. ScanRounds must find what it found.
func readRoundsSeq(r io.Reader) ([]Round, LoadResult, error) {
	var res LoadResult
	var rounds []Round
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			return rounds, res, nil
		}
		if err != nil && err != io.EOF {
			return rounds, res, fmt.Errorf("report: read store: %w", err)
		}
		res.Lines++
		complete := err == nil
		body := bytes.TrimSpace(line)
		if len(body) == 0 {
			if !complete {
				return rounds, res, nil
			}
			continue
		}
		rd, derr := decodeRound(body)
		if derr == nil {
			rounds = append(rounds, rd)
			continue
		}
		last := !complete
		if !last {
			rest, _ := br.Peek(1)
			last = len(rest) == 0
		}
		if last {
			res.Torn, res.TornLine = true, res.Lines
			return rounds, res, nil
		}
		res.Corrupt = append(res.Corrupt, &LineError{Line: res.Lines, Text: cut(body, 120), Err: derr})
	}
}

// demoLines are the lines of the real round stores of a demo run.
func demoLines(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob("plot/testdata/demo-trixie/*.jsonl")
	var lines []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSpace(string(data)), "\n")...)
	}
	if len(lines) < 10 {
		t.Fatalf("%d demo lines", len(lines))
	}
	return lines
}

// sameLoad fails unless ScanRounds (through ReadRounds) and the
// sequential reader agree on in.
func sameLoad(t *testing.T, in string) ([]Round, LoadResult) {
	t.Helper()
	want, wres, werr := readRoundsSeq(strings.NewReader(in))
	got, gres, gerr := ReadRounds(strings.NewReader(in))
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("error %v, want %v", gerr, werr)
	}
	if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
		t.Fatalf("%d rounds, want %d (or they differ)", len(got), len(want))
	}
	if fmt.Sprint(gres) != fmt.Sprint(wres) {
		t.Fatalf("result %+v, want %+v", gres, wres)
	}
	return got, gres
}

// TestScanRoundsBatches: a store of several batches of real rounds, with
// corrupt and blank lines on and around batch boundaries and a torn last
// line, loads as the sequential reader loaded it.
func TestScanRoundsBatches(t *testing.T) {
	demo := demoLines(t)
	var lines []string
	for i := 0; len(lines) < 3*scanBatch+100; i++ {
		switch {
		case i == scanBatch-1 || i == scanBatch || i == 2*scanBatch+1:
			lines = append(lines, demo[i%len(demo)][:40]) // cut: corrupt
		case i%97 == 0:
			lines = append(lines, "")
		default:
			lines = append(lines, demo[i%len(demo)])
		}
	}
	whole := strings.Join(lines, "\n") + "\n"
	rounds, res := sameLoad(t, whole)
	if len(res.Corrupt) != 3 || res.Torn || res.Lines != len(lines) || len(rounds) < 3*scanBatch {
		t.Errorf("%d rounds, %d corrupt, torn %v, %d lines", len(rounds), len(res.Corrupt), res.Torn, res.Lines)
	}
	if c := res.Corrupt[0]; c.Line != scanBatch || !errors.Is(c, ErrCorrupt) || c.Text == "" {
		t.Errorf("first corrupt line %+v", c)
	}
	torn := whole + demo[0][:30]
	_, res = sameLoad(t, torn)
	if !res.Torn || res.TornLine != len(lines)+1 {
		t.Errorf("torn %v at %d, want line %d", res.Torn, res.TornLine, len(lines)+1)
	}
	_, res = sameLoad(t, whole+demo[0][:30]+"\n")
	if !res.Torn {
		t.Error("a cut last line with its newline is not torn")
	}
}

// TestScanRoundsStop: a callback's error ends the scan and is returned;
// ErrStopScan ends it without one. The reader and workers end too (the
// test would hang otherwise).
func TestScanRoundsStop(t *testing.T) {
	demo := demoLines(t)
	var b strings.Builder
	for i := range 5 * scanBatch {
		b.WriteString(demo[i%len(demo)] + "\n")
	}
	boom := errors.New("boom")
	for _, tc := range []struct {
		err, want error
	}{{ErrStopScan, nil}, {boom, boom}} {
		n := 0
		res, err := ScanRounds(strings.NewReader(b.String()), func(Round) error {
			n++
			if n == scanBatch+3 {
				return tc.err
			}
			return nil
		})
		if err != tc.want || n != scanBatch+3 || res.Lines != scanBatch+3 {
			t.Errorf("%v: err %v after %d rounds, %d lines", tc.err, err, n, res.Lines)
		}
	}
}

// failingReader returns data, then an error.
type failingReader struct{ r io.Reader }

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errors.New("disk gone")
	}
	return n, err
}

// TestScanRoundsReadError: the rounds before a read error are kept and
// the error is returned.
func TestScanRoundsReadError(t *testing.T) {
	demo := demoLines(t)
	in := strings.Join(demo, "\n") + "\n"
	rounds, _, err := ReadRounds(&failingReader{strings.NewReader(in)})
	if err == nil || !strings.Contains(err.Error(), "disk gone") || len(rounds) != len(demo) {
		t.Errorf("%d rounds of %d, err %v", len(rounds), len(demo), err)
	}
}

// FuzzScanRounds: the parallel reader, reading in chunks of any size,
// finds what the sequential one with encoding/json found.
func FuzzScanRounds(f *testing.F) {
	defer func(n int) { scanChunk = n }(scanChunk)
	demo := demoLines(f)
	f.Add(demo[0]+"\n"+demo[1][:50]+"\n"+demo[2], uint16(0))
	f.Add("\n\n"+demo[0], uint16(100))
	f.Add(demo[0]+demo[0]+"\n", uint16(7))
	f.Add(fleetLine+"\n"+fleetFailed[:90]+"\n"+fleetLine+"\n", uint16(len(fleetLine)))
	f.Add(fleetLine+"\n \n"+fleetFailed+"\n"+fleetLine[:200], uint16(len(fleetLine)+1))
	f.Fuzz(func(t *testing.T, in string, chunk uint16) {
		scanChunk = 1 + int(chunk)
		sameLoad(t, in)
	})
}

// TestStoreScan: Scan reads the store's file; a missing file is empty.
func TestStoreScan(t *testing.T) {
	dir := t.TempDir()
	s := OpenStore(filepath.Join(dir, "r.jsonl"))
	n := 0
	if res, err := s.Scan(func(Round) error { n++; return nil }); err != nil || n != 0 || res.Lines != 0 {
		t.Fatalf("missing store: %d rounds, %v", n, err)
	}
	for i := range 3 {
		if err := s.Append(testRound("a", fmt.Sprint(1500+i), 1)); err != nil {
			t.Fatal(err)
		}
	}
	var mtus []string
	if _, err := s.Scan(func(r Round) error { v, _ := r.Param("mtu"); mtus = append(mtus, v); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(mtus) != "[1500 1501 1502]" {
		t.Errorf("mtus %v", mtus)
	}
	var nilStore *Store
	if _, err := nilStore.Scan(func(Round) error { return nil }); !errors.Is(err, ErrNoStore) {
		t.Errorf("nil store: %v", err)
	}
}
