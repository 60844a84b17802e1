package perftest

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// largeInput builds a text output of at least size bytes from a real
// capture: its lines up to the table header, its table rows repeated, and
// its closing line (see testdata/README.md). It returns the input and its
// number of rows.
func largeInput(tb testing.TB, seed string, size int) ([]byte, int) {
	tb.Helper()
	text := string(readTestdata(tb, seed))
	i := strings.Index(text, " #bytes")
	if i < 0 {
		tb.Fatalf("%s has no table", seed)
	}
	i += strings.IndexByte(text[i:], '\n') + 1
	j := strings.LastIndex(text, "---")
	j = strings.LastIndexByte(text[:j], '\n') + 1
	head, rows, tail := text[:i], text[i:j], text[j:]
	perCopy := strings.Count(rows, "\n")
	var b bytes.Buffer
	b.WriteString(head)
	n := 0
	for b.Len() < size {
		b.WriteString(rows)
		n += perCopy
	}
	b.WriteString(tail)
	return b.Bytes(), n
}

// benchParse runs parse over in and reports MB/s, ns and allocations per
// row, and the CPU time per parse.
func benchParse(b *testing.B, in []byte, rows int, parse func(io.Reader) int) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		if got := parse(bytes.NewReader(in)); got != rows {
			b.Fatalf("%d rows, want %d", got, rows)
		}
	}
	b.StopTimer()
	cpu = cpuTime() - cpu
	runtime.ReadMemStats(&after)
	total := float64(b.N) * float64(rows)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/row")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/row")
	if cpu > 0 {
		// CPU time of the whole process (GC included) per parse: unlike
		// ns/op it does not grow with the load of a shared machine.
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
}

// wholeRows, streamRows, streamJSONRows and naiveRows are the parsers
// the benchmarks time, each returning the rows it read; b is the
// benchmark that fails on an error.
func wholeRows(b *testing.B) func(io.Reader) int {
	return func(r io.Reader) int {
		res, err := Parse(r)
		if err != nil {
			b.Fatal(err)
		}
		return len(res.BW) + len(res.Lat)
	}
}

func streamRows(b *testing.B) func(io.Reader) int {
	return func(r io.Reader) int {
		n := 0
		for _, err := range NewStream(r).Rows() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	}
}

func streamJSONRows(b *testing.B) func(io.Reader) int {
	return func(r io.Reader) int {
		n := 0
		var buf []byte
		for row, err := range NewStream(r).Rows() {
			if err != nil {
				b.Fatal(err)
			}
			if buf, err = AppendRow(buf[:0], row); err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	}
}

func naiveRows(b *testing.B) func(io.Reader) int {
	return func(r io.Reader) int {
		got, err := naiveParse(r)
		if err != nil {
			b.Fatal(err)
		}
		return len(got)
	}
}

// BenchmarkParseBW parses 8 MiB of -a --report_gbits rows (perftest 25.01,
// 2- and 6-decimal rows mixed).
func BenchmarkParseBW(b *testing.B) {
	in, rows := largeInput(b, "bench-seed-bw.txt", 8<<20)
	benchParse(b, in, rows, wholeRows(b))
}

// BenchmarkParseLat parses 8 MiB of ib_send_lat -a rows (perftest 4.5),
// where 5 rows in 23 hold inf or -nan and so make a warning each.
func BenchmarkParseLat(b *testing.B) {
	in, rows := largeInput(b, "bench-seed-lat.txt", 8<<20)
	benchParse(b, in, rows, wholeRows(b))
}

// BenchmarkStreamBW reads the BW input row by row, keeping none.
func BenchmarkStreamBW(b *testing.B) {
	in, rows := largeInput(b, "bench-seed-bw.txt", 8<<20)
	benchParse(b, in, rows, streamRows(b))
}

// BenchmarkParseHeader parses one real output: the header block, address
// lines and one row, as a runner does after each test.
func BenchmarkParseHeader(b *testing.B) {
	in := readTestdata(b, "v26-send-bw-client.txt")
	benchParse(b, in, 3, func(r io.Reader) int {
		res, _ := Parse(r)
		return len(res.BW)
	})
}

func BenchmarkParseJSON(b *testing.B) {
	in := readTestdata(b, "v24-write-bw-cpu.json")
	benchParse(b, in, 1, func(r io.Reader) int {
		res, err := ParseJSON(r)
		if err != nil {
			b.Fatal(err)
		}
		return len(res.BW)
	})
}

// naiveRow is what a straightforward parser keeps of a row.
type naiveRow struct {
	bytes, iters uint64
	values       [maxFields]float64
	n            int
}

// naiveParse is the parser the issue measures rocekit against: a
// bufio.Scanner, strings.Fields and strconv, rows taken after the
// "#bytes" header while their fields parse. It reads no header, warns
// about nothing and does not check the column count.
func naiveParse(r io.Reader) ([]naiveRow, error) {
	var rows []naiveRow
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	inTable := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if strings.HasPrefix(f[0], "#bytes") {
			inTable = true
			continue
		}
		if !inTable || len(f) < 3 {
			continue
		}
		size, err1 := strconv.ParseUint(f[0], 10, 64)
		iters, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		row := naiveRow{bytes: size, iters: iters}
		for _, s := range f[2:min(len(f), maxFields)] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				v = math.NaN() // "-nan"
			}
			row.values[row.n] = v
			row.n++
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// benchSideBySide runs each parser as a sub-benchmark "bw/NAME" and
// "lat/NAME" over the same two 8 MiB inputs.
func benchSideBySide(b *testing.B, parsers []benchParser) {
	for _, in := range []struct{ name, seed string }{{"bw", "bench-seed-bw.txt"}, {"lat", "bench-seed-lat.txt"}} {
		data, rows := largeInput(b, in.seed, 8<<20)
		for _, p := range parsers {
			b.Run(in.name+"/"+p.name, func(b *testing.B) { benchParse(b, data, rows, p.rows(b)) })
		}
	}
}

type benchParser struct {
	name string
	rows func(*testing.B) func(io.Reader) int
}

// BenchmarkParseVsNaive parses the same 8 MiB inputs with Parse and with
// naiveParse, side by side (issue 13: Parse stays at least 1.3x as fast).
// Compare the MB/s of the rocekit and naive sub-benchmarks.
func BenchmarkParseVsNaive(b *testing.B) {
	benchSideBySide(b, []benchParser{{"rocekit", wholeRows}, {"naive", naiveRows}})
}

// BenchmarkParsers runs the three parsers side by side on the same inputs
// built from real captures (issue 26 item 4): Parse reads the input whole
// and keeps its rows; Stream delivers rows one by one as long and
// --run_infinitely outputs need (stream), and with each row encoded by
// AppendRow into a reused buffer, the JSON examples/parse writes (stream-json); naive is the
// bufio.Scanner + strings.Fields + strconv reference. Goals: whole at
// least 2x naive, stream within 2x of whole. Compare MB/s (or cpu-ns/op on
// a loaded machine) of the sub-benchmarks of one run.
func BenchmarkParsers(b *testing.B) {
	benchSideBySide(b, []benchParser{{"whole", wholeRows}, {"stream", streamRows}, {"stream-json", streamJSONRows}, {"naive", naiveRows}})
}
