package perftest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/host"
)

// The tests of issue 24: no green result that is wrong. Every input is a
// real capture (../rocekittest/captures, ../testdata/realworld), cut,
// wrapped, changed in one number or concatenated here.

func captureFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// asParseError returns the *ParseError of err, failing the test when
// there is none or it does not wrap want.
func asParseError(t *testing.T, err, want error) *ParseError {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, want) {
		t.Fatalf("err = %v (%T), want a *ParseError wrapping %v", err, err, want)
	}
	return pe
}

// lineOf returns the 1-based line of the first line of text that
// contains s.
func lineOf(t *testing.T, text, s string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no line with %q", s)
	return 0
}

// TestHeaderCutIsParseError: an output cut anywhere in its header, before
// its first row, is a *ParseError wrapping ErrTruncated (and ErrNoResult),
// so that a caller that maps *ParseError (examples/parse) sees it.
func TestHeaderCutIsParseError(t *testing.T) {
	out := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw/client.stdout")
	lines := strings.SplitAfter(out, "\n")
	row := lineOf(t, out, " 65536      300")
	for n := 2; n < row; n++ {
		in := strings.Join(lines[:n], "")
		res, err := Parse(strings.NewReader(in))
		pe := asParseError(t, err, ErrTruncated)
		if !errors.Is(err, ErrNoResult) || pe.Line == 0 && pe.Msg == "" || len(res.BW) != 0 {
			t.Errorf("cut after line %d: err %v, rows %d", n, err, len(res.BW))
		}
	}
	// Nothing at all: not perftest's, still a *ParseError.
	_, err := Parse(strings.NewReader(""))
	asParseError(t, err, ErrUnrecognized)
	if !errors.Is(err, ErrNoResult) {
		t.Errorf("empty input: %v", err)
	}
}

// TestJSONCut: a --out_json file cut inside test_info or inside its last
// number is truncated, in both forms; the results of a cut file are not
// kept ("MsgRate": 0. is not 0).
func TestJSONCut(t *testing.T) {
	for _, suite := range []string{"trixie", "bookworm"} {
		data := captureFile(t, "rocekittest/captures/"+suite+"/perftest/send-bw-json/client.json")
		dev := strings.Index(data, "rxe0") + 1 // after the closing quote
		rate := strings.Index(data, "0.000")
		for name, in := range map[string]string{
			"test_info": data[:dev+len("rxe0")],
			"header":    data[:strings.Index(data, "Mtu")],
			"msgrate":   data[:rate+2], // "MsgRate": 0.
			"last}":     strings.TrimSuffix(strings.TrimSpace(data), "}"),
		} {
			res, err := ParseJSON(strings.NewReader(in))
			asParseError(t, err, ErrTruncated)
			if len(res.BW) != 0 || res.Header.Device != "rxe0" {
				t.Errorf("%s cut in %s: rows %+v, device %q", suite, name, res.BW, res.Header.Device)
			}
		}
		if res, err := ParseJSON(strings.NewReader(data)); err != nil || len(res.BW) != 1 {
			t.Errorf("%s whole file: %v, %d rows", suite, err, len(res.BW))
		}
	}
}

// TestCutLastNumber: a row cut inside its last number ("0." or "0.0001"
// of "0.000158") at the end of the input is dropped with a WarnBadRow,
// and the output is truncated; a whole row at the end is kept.
func TestCutLastNumber(t *testing.T) {
	out := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw/client.stdout")
	row := lineOf(t, out, " 65536      300")
	end := strings.Index(out, "0.000158")
	for _, cut := range []string{"0.", "0.0001", "0"} {
		in := out[:end] + cut
		res, err := Parse(strings.NewReader(in))
		pe := asParseError(t, err, ErrTruncated)
		if pe.Line != row || len(res.BW) != 0 || !res.HasWarning(WarnBadRow) {
			t.Errorf("cut to %q: line %d (want %d), rows %+v, warnings %v", cut, pe.Line, row, res.BW, res.Warnings)
		}
		n := 0
		for r := range NewStream(strings.NewReader(in)).Rows() {
			if r != nil {
				n++
			}
		}
		if n != 0 {
			t.Errorf("cut to %q: Stream gave %d rows", cut, n)
		}
	}
	for _, in := range []string{out[:end] + "0.000158", out[:end] + "0.000158\n"} {
		res, err := Parse(strings.NewReader(in))
		if err != nil || len(res.BW) != 1 || res.BW[0].MsgRateMpps != 0.000158 {
			t.Errorf("whole last row: %v, rows %+v", err, res.BW)
		}
	}
	// --output=bandwidth prints "%lf": six decimals.
	bare := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw-output-bw/client.stdout")
	num := strings.TrimSpace(bare)
	num = num[strings.LastIndexByte(num, '\n')+1:]
	cutBare := strings.TrimSuffix(strings.TrimSpace(bare), num[3:])
	if res, err := ParseBare(strings.NewReader(cutBare)); len(res.Values) != 0 || !errors.Is(err, ErrTruncated) {
		t.Errorf("bare cut to %q: %v, values %v", cutBare[len(cutBare)-10:], err, res.Values)
	}
	// The same number followed by more lines is what was printed.
	in := strings.Replace(out, "0.000158", "0.0001", 1)
	if res, err := Parse(strings.NewReader(in)); err != nil || len(res.BW) != 1 || res.BW[0].MsgRateMpps != 0.0001 {
		t.Errorf("short number inside the output: %v, rows %+v", err, res.BW)
	}
}

// TestNegativeValues: perftest prints no negative number; one is a bad
// row (a WarnBadRow and a *ParseError with its line), not a result.
func TestNegativeValues(t *testing.T) {
	bw := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw/client.stdout")
	lat := captureFile(t, "rocekittest/captures/trixie/perftest/send-lat/client.stdout")
	latRow := strings.Split(lat, "\n")[lineOf(t, lat, "#bytes")] // the row under the header
	typical := strings.Fields(latRow)[4]
	for name, c := range map[string]struct{ in, row string }{
		"bw average": {strings.Replace(bw, "9.85", "-9.85", 1), " 65536      300"},
		"msgrate":    {strings.Replace(bw, "0.000158", "-0.000158", 1), " 65536      300"},
		"t_typical":  {strings.Replace(lat, " "+typical+" ", " -"+typical+" ", 1), latRow},
	} {
		res, err := Parse(strings.NewReader(c.in))
		pe := asParseError(t, err, ErrParse)
		if pe.Line != lineOf(t, c.in, strings.TrimSpace(c.row)[:10]) || len(res.BW)+len(res.Lat) != 0 || !res.HasWarning(WarnBadRow) ||
			!strings.Contains(pe.Msg, "negative") {
			t.Errorf("%s: %v, rows %d, warnings %v", name, err, len(res.BW)+len(res.Lat), res.Warnings)
		}
	}
	js := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw-json/client.json")
	if _, err := ParseJSON(strings.NewReader(strings.Replace(js, `"BW_average": 19.32`, `"BW_average": -19.32`, 1))); err == nil {
		t.Error("JSON: negative BW_average accepted")
	} else {
		asParseError(t, err, ErrParse)
	}
	bare := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw-output-bw/client.stdout")
	num := strings.TrimSpace(bare[strings.LastIndexAny(strings.TrimSpace(bare), "\n")+1:])
	_, err := ParseBare(strings.NewReader(strings.Replace(bare, num, "-"+num, 1)))
	asParseError(t, err, ErrParse)
}

// TestConcatenated: two outputs one after the other give the first
// result and ErrConcatenated at the line where the second begins, whose
// rest parses on its own; never rows of both, never another tool's line.
func TestConcatenated(t *testing.T) {
	bw := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw/client.stdout")
	writeBW := captureFile(t, "rocekittest/captures/trixie/perftest/write-bw/client.stdout")
	lat := captureFile(t, "rocekittest/captures/trixie/perftest/send-lat/client.stdout")
	netperfOut := captureFile(t, "rocekittest/captures/trixie/netperf/udp-stream/client.stdout")
	for name, c := range map[string]struct {
		second string
		kind   ResultKind
	}{
		"bw+bw":      {writeBW, ResultBW},
		"bw+lat":     {lat, ResultLat},
		"bw+netperf": {netperfOut, ResultUnknown},
		// The BW output without its closing dashes: netperf's banner
		// still ends it.
		"bw-dashes+netperf": {netperfOut, ResultUnknown},
	} {
		in := bw + c.second
		if strings.HasPrefix(name, "bw-dashes") {
			in = strings.TrimSuffix(bw, strings.Repeat("-", 87)+"\n") + c.second
		}
		res, err := Parse(strings.NewReader(in))
		pe := asParseError(t, err, ErrConcatenated)
		if pe.Line != strings.Count(in[:strings.Index(in, c.second)], "\n")+1 || len(res.BW) != 1 || len(res.Lat) != 0 || res.Test != "Send BW Test" || res.BW[0].Printed.Avg != 9.85 {
			t.Errorf("%s: line %d, rows %+v %+v, test %q", name, pe.Line, res.BW, res.Lat, res.Test)
		}
		if c.kind == ResultUnknown {
			continue
		}
		rest := strings.Join(strings.SplitAfter(in, "\n")[pe.Line-1:], "")
		if r2, err := Parse(strings.NewReader(rest)); err != nil || r2.Kind != c.kind {
			t.Errorf("%s: the rest from line %d: %v, kind %v", name, pe.Line, err, r2.Kind)
		}
	}
}

// foldAt wraps text as a terminal of width columns shows it: TABs
// expanded, each line cut into pieces of width bytes.
func foldAt(text string, width int) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(expand([]byte(text))), "\n") {
		nl := strings.HasSuffix(l, "\n")
		l = strings.TrimSuffix(l, "\n")
		for len(l) > width {
			b.WriteString(l[:width] + "\n")
			l = l[width:]
		}
		b.WriteString(l)
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestWrappedLatencyTable: a latency table wrapped at 100 columns (its
// header and its rows) parses to the rows of the unwrapped output, with
// no NaN percentile and no unknown line.
func TestWrappedLatencyTable(t *testing.T) {
	for _, c := range []string{"trixie/perftest/send-lat", "trixie/perftest/write-lat", "bookworm/perftest/send-lat-a", "trixie/perftest/read-lat"} {
		out := captureFile(t, "rocekittest/captures/"+c+"/client.stdout")
		want, werr := Parse(strings.NewReader(out))
		for _, width := range []int{100} {
			in := foldAt(out, width)
			if in == string(expand([]byte(out))) {
				t.Fatalf("%s: nothing wrapped at %d", c, width)
			}
			got, err := Parse(strings.NewReader(in))
			if !sameError(err, werr) || got.HasWarning(WarnUnknownLine) || len(got.Lat) != len(want.Lat) {
				t.Errorf("%s at %d: err %v (want %v), %d rows (want %d), warnings %v", c, width, err, werr, len(got.Lat), len(want.Lat), got.Warnings)
				continue
			}
			for i := range got.Lat {
				g, w := got.Lat[i], want.Lat[i]
				g.Line, w.Line = 0, 0
				if !cmp.Equal(g, w, cmp.Comparer(same)) {
					t.Errorf("%s at %d: row %d %+v, want %+v", c, width, i, g, w)
				}
			}
		}
	}
}

// TestWrappedHeaderLost: a latency header cut by a wrap whose rest is
// lost ("... t_stdev[usec]   99" and no "% percentile" line) does not
// make the last value of each row its CPU column with NaN percentiles.
func TestWrappedHeaderLost(t *testing.T) {
	out := captureFile(t, "rocekittest/captures/trixie/perftest/send-lat/client.stdout")
	i := strings.Index(out, "% percentile[usec]   99.9%")
	j := strings.Index(out[i:], "\n")
	in := out[:i] + out[i+j:]
	res, err := Parse(strings.NewReader(in))
	for _, r := range res.Lat {
		if r.HasCPUUtil {
			t.Errorf("row %+v: a percentile taken for CPU_Util", r)
		}
	}
	if err == nil {
		t.Errorf("no error, rows %+v", res.Lat)
	}
}

// TestTeardownFailure: perftest's failure to close its connection after
// the rows is a typed failure (KindTeardown), and the rows are kept.
func TestTeardownFailure(t *testing.T) {
	const teardown = "Bad wc status 5\nUnable to write from socket/rdam_cm\nFailed to close connection between server and client\n"
	var e *Error
	if err := Classify([]byte(teardown)); !errors.As(err, &e) || e.Kind != KindTeardown {
		t.Errorf("Classify = %v, want KindTeardown", err)
	}
	if _, err := Parse(strings.NewReader(teardown)); !errors.As(err, &e) || e.Kind != KindTeardown {
		t.Errorf("Parse = %v, want KindTeardown", err)
	}
	out := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw/client.stdout")
	res, err := ParseOutput([]byte(out), []byte(teardown))
	if !errors.As(err, &e) || e.Kind != KindTeardown || len(res.BW) != 1 || res.Failure != e {
		t.Errorf("ParseOutput = %v, rows %d", err, len(res.BW))
	}
}

// TestInterleavedAddresses: a server and a client in one terminal print
// their address lines before their GID lines: each GID goes to the oldest
// address without one when the GIDs are equal; different GIDs, or a
// second title, are ErrInterleaved.
func TestInterleavedAddresses(t *testing.T) {
	out := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw/client.stdout")
	lines := strings.SplitAfter(out, "\n")
	local := lineOf(t, out, "local address:") - 1
	// local, GID, remote, GID → local, remote, GID, GID.
	mixed := append([]string(nil), lines...)
	mixed[local+1], mixed[local+2] = lines[local+2], lines[local+1]
	in := strings.Join(mixed, "")
	res, err := Parse(strings.NewReader(in))
	h := res.Header
	if err != nil || len(h.Local) != 1 || len(h.Remote) != 1 || !h.Local[0].GID.IsValid() || h.Local[0].GID != h.Remote[0].GID || len(res.BW) != 1 {
		t.Errorf("interleaved, equal GIDs: %v, local %+v remote %+v", err, h.Local, h.Remote)
	}
	// Different GIDs: which is whose cannot be told.
	gid2 := strings.Replace(mixed[local+3], "198:18:00:01", "198:18:00:02", 1)
	mixed[local+3] = gid2
	_, err = Parse(strings.NewReader(strings.Join(mixed, "")))
	asParseError(t, err, ErrInterleaved)
	// Two processes' lines alternating: a second title before any table.
	srv := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw/server.stdout")
	var alt strings.Builder
	a, b := strings.SplitAfter(srv, "\n"), strings.SplitAfter(out, "\n")
	for i := 0; i < max(len(a), len(b)); i++ {
		if i < len(a) {
			alt.WriteString(a[i])
		}
		if i < len(b) {
			alt.WriteString(b[i])
		}
	}
	_, err = Parse(strings.NewReader(alt.String()))
	asParseError(t, err, ErrInterleaved)
}

// TestTestFromTableHeader: a paste without its title gets the kind of
// test from the table header's columns.
func TestTestFromTableHeader(t *testing.T) {
	for c, want := range map[string]string{
		"trixie/perftest/send-bw":           "BW Test",
		"trixie/perftest/send-lat":          "Latency Test",
		"trixie/perftest/send-lat-duration": "Latency Test",
	} {
		out := captureFile(t, "rocekittest/captures/"+c+"/client.stdout")
		in := out[strings.Index(out, " #bytes"):]
		res, err := Parse(strings.NewReader(in))
		if err != nil || res.Test != want || len(res.BW)+len(res.Lat) == 0 {
			t.Errorf("%s from its table header: %v, test %q, kind %v", c, err, res.Test, res.Kind)
		}
	}
}

// TestNilReader: a nil io.Reader is an error, not a panic.
func TestNilReader(t *testing.T) {
	if _, err := Parse(nil); err == nil {
		t.Error("Parse(nil): no error")
	}
	if _, err := ParseBare(nil); err == nil {
		t.Error("ParseBare(nil): no error")
	}
	if _, err := ParseJSON(nil); err == nil {
		t.Error("ParseJSON(nil): no error")
	}
	if _, err := ParseVersion(nil); err == nil {
		t.Error("ParseVersion(nil): no error")
	}
	n := 0
	for row, err := range NewStream(nil).Rows() {
		if row != nil || err == nil {
			t.Errorf("Stream(nil) row %v, err %v", row, err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("Stream(nil) yielded %d times", n)
	}
}

// TestNoResult: the one check of a Result that says nothing.
func TestNoResult(t *testing.T) {
	var nilRes *Result
	for name, r := range map[string]*Result{"nil": nilRes, "zero": {}, "header only": {Test: "Send BW Test", Header: newHeader()}} {
		err := r.NoResult()
		var pe *ParseError
		if !errors.Is(err, ErrNoResult) || !errors.As(err, &pe) {
			t.Errorf("%s: %v", name, err)
		}
	}
	srv := captureFile(t, "testdata/realworld/perftest/mlx4-cx3-read-lat-v5/server.txt")
	res, _ := Parse(strings.NewReader(srv))
	if err := res.NoResult(); err != nil {
		t.Errorf("read latency server, which prints no table: %v", err)
	}
}

// TestRunPairSaysNothing: both sides exit 0 and print nothing perftest
// prints, or only a header: the pair fails at stage "result".
func TestRunPairSaysNothing(t *testing.T) {
	out := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw/client.stdout")
	header := out[:strings.Index(out, " #bytes")]
	srvOut := captureFile(t, "rocekittest/captures/trixie/perftest/send-bw/server.stdout")
	for name, c := range map[string]struct{ srv, cli string }{
		"nothing":             {"", ""},
		"header only":         {srvOut, header},
		"server says nothing": {"", out},
	} {
		srvF, cliF := fakePair("ib_send_bw", DefaultPort, host.FakeScript{Stdout: c.srv, Delay: fakeServerLife}, host.FakeScript{Stdout: c.cli})
		_, err := RunPair(testCtx(t), srvF, cliF, "h", Options{Test: SendBW})
		var pe *PairError
		if !errors.Is(err, ErrNoResult) || !errors.As(err, &pe) || pe.Stage != "result" {
			t.Errorf("%s: err %v, want ErrNoResult at stage result", name, err)
		}
	}
}

// TestEveryCutIsErrorOrPrefix: an output cut at any line, or at any byte
// of its last 120 (its last row), parses without an error only to rows that the whole
// output has, value for value: a cut is never a green wrong result.
func TestEveryCutIsErrorOrPrefix(t *testing.T) {
	files, _ := filepath.Glob("../rocekittest/captures/*/perftest/*/*.stdout")
	more, _ := filepath.Glob("../testdata/realworld/perftest/*/*.txt")
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		full, ferr := Parse(strings.NewReader(string(data)))
		if ferr != nil || len(data) > 16<<10 {
			continue // (the -U dumps are long, and their table is one row)
		}
		parse := Parse
		if Detect(data) == FormBare {
			parse = ParseBare
			full, _ = ParseBare(strings.NewReader(string(data)))
		}
		var cuts []int
		for i, c := range data {
			if c == '\n' || i >= len(data)-120 {
				cuts = append(cuts, i)
			}
		}
		for _, n := range cuts {
			res, err := parse(strings.NewReader(string(data[:n])))
			if err != nil {
				continue
			}
			if !rowsPrefix(res, full) {
				t.Errorf("%s cut at byte %d of %d: no error, rows not the whole output's: ...%q", f, n, len(data), data[max(0, n-50):n])
				break
			}
		}
	}
}

// rowsPrefix reports whether the rows and values of a are the first ones
// of b, as printed.
func rowsPrefix(a, b *Result) bool {
	if len(a.BW) > len(b.BW) || len(a.Lat) > len(b.Lat) || len(a.Values) > len(b.Values) {
		return false
	}
	for i, r := range a.BW {
		w := b.BW[i]
		if r.Bytes != w.Bytes || r.Iterations != w.Iterations || !same(r.Printed.Avg, w.Printed.Avg) ||
			!same(r.Printed.Peak, w.Printed.Peak) || !same(r.MsgRateMpps, w.MsgRateMpps) || !same(r.CPUUtilPercent, w.CPUUtilPercent) {
			return false
		}
	}
	for i, r := range a.Lat {
		r.Line, b.Lat[i].Line = 0, 0
		if !cmp.Equal(r, b.Lat[i], cmp.Comparer(same)) {
			return false
		}
	}
	for i, v := range a.Values {
		if !same(v, b.Values[i]) {
			return false
		}
	}
	return true
}
