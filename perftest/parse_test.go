package perftest

import (
	"errors"
	"math"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseString(t *testing.T, s string) (*Result, error) {
	t.Helper()
	res, err := Parse(strings.NewReader(s))
	if res == nil {
		t.Fatal("Parse returned a nil Result")
	}
	return res, err
}

// wantWarnings wants res's warnings to be of these kinds, in order.
func wantWarnings(t *testing.T, res *Result, want ...WarningKind) {
	t.Helper()
	if d := cmp.Diff(want, warningKinds(res.Warnings)); d != "" {
		t.Errorf("warnings (-want +got):\n%s\n%v", d, res.Warnings)
	}
}

// parseTestdata parses testdata/name with Parse and fails on an error.
func parseTestdata(t *testing.T, name string) *Result {
	t.Helper()
	res, err := Parse(strings.NewReader(string(readTestdata(t, name))))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func warningKinds(ws []error) []WarningKind {
	var k []WarningKind
	for _, w := range ws {
		k = append(k, warningKind(w))
	}
	return k
}

// warningAt returns res.Warnings[i] as a Warning, or fails the test.
func warningAt(t *testing.T, res *Result, i int) Warning {
	t.Helper()
	var w Warning
	if i >= len(res.Warnings) || !errors.As(res.Warnings[i], &w) {
		t.Fatalf("warning %d of %v is not a Warning", i, res.Warnings)
	}
	return w
}

// The 26.x header: Lock-free, Using Enhanced Reorder, CQE Poll Batch,
// NUMA node, MiB/sec and the 24.07 row format.
func TestParseV26SendBW(t *testing.T) {
	res := parseTestdata(t, "v26-send-bw-client.txt")
	h := res.Header
	want := newHeader()
	want.Verb = "Send"
	want.Device, want.QPs, want.Transport, want.Connection = "mlx5_0", 1, "IB", "RC"
	want.PCIeRelaxOrder, want.LockFree, want.WRAPI, want.EnhancedReorder = "ON", "OFF", true, false
	want.TXDepth, want.CQModeration, want.CQEPollBatch = 128, 100, "Dynamic"
	want.MTU, want.LinkType, want.GIDIndex, want.MaxInlineBytes = 4096, "Ethernet", 3, 0
	want.DataExchange, want.NUMANode = "Ethernet", 0
	want.BWUnit, want.BWUnitLabel = UnitMiBps, "MiB/sec"
	want.Local = []Address{{QPN: 0x0867, PSN: 0x6d058e, GID: netip.MustParseAddr("fe80::946d:ae03:32:778")}}
	want.Remote = []Address{{QPN: 0x0868, PSN: 0x1a2b3c, GID: netip.MustParseAddr("fe80::946d:ae03:32:779")}}
	if d := cmp.Diff(want, h, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
	if res.Kind != ResultBW || res.Test != "Send BW Test" || len(res.BW) != 3 {
		t.Fatalf("kind %v, test %q, %d rows", res.Kind, res.Test, len(res.BW))
	}
	r := res.BW[0]
	if r.Bytes != 65536 || r.Iterations != 5000 || r.Printed.Peak != 11234.56 || r.Printed.Avg != 11200.12 ||
		r.MsgRateMpps != 0.179202 || !r.PeakMeasured || r.Line != 26 {
		t.Errorf("row 0 = %+v", r)
	}
	if got, want := r.BWAvgGbps, 11200.12*1048576*8/1e9; math.Abs(got-want) > 1e-12 {
		t.Errorf("BWAvgGbps = %v, want %v", got, want)
	}
	if !math.IsInf(res.BW[2].Printed.Peak, 1) || !math.IsInf(res.BW[2].BWPeakGbps, 1) {
		t.Errorf("row 2 peak = %v, want +Inf", res.BW[2].Printed.Peak)
	}
	wantWarnings(t, res, WarnToolMessage, WarnNonFinite)
	if w := warningAt(t, res, 1); w.Line != 28 || !strings.Contains(w.Text, "BW peak inf") {
		t.Errorf("non-finite warning = %+v", w)
	}
}

// IB without -x: no GID index and no GID lines; the HAVE_RO-less
// "Lock-free\t:" variant; LIDs with 0x.
func TestParseV26WriteLat(t *testing.T) {
	res := parseTestdata(t, "v26-write-lat-client.txt")
	h := res.Header
	if h.GIDIndex != -1 || h.LinkType != "IB" || h.PCIeRelaxOrder != "Unsupported" || h.LockFree != "OFF" ||
		!h.EnhancedReorder || h.MaxInlineBytes != 220 || h.CQModeration != 0 || h.NUMANode != -1 {
		t.Errorf("header = %+v", h)
	}
	wantLocal := Address{LID: 0x1907, QPN: 0x0867, PSN: 0x6d058e, RKey: 0x1fffb9, VAddr: 0x7f58a406e000}
	if len(h.Local) != 1 || h.Local[0] != wantLocal || h.Local[0].GID.IsValid() {
		t.Errorf("local = %+v", h.Local)
	}
	want := []LatRow{{Bytes: 2, Iterations: 100000, TMinMicros: 1.02, TMaxMicros: 4.17, TTypicalMicros: 1.08,
		TAvgMicros: 1.10, TStdevMicros: 0.05, P99Micros: 1.31, P999Micros: 2.95, Line: 20}}
	if d := cmp.Diff(want, res.Lat); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	if res.Kind != ResultLat || res.FullRTT {
		t.Errorf("kind %v, FullRTT %v", res.Kind, res.FullRTT)
	}
	wantWarnings(t, res, WarnToolMessage)
}

func TestParsePerPortCPU(t *testing.T) {
	res := parseTestdata(t, "per-port-cpu.txt")
	if !res.Header.DualPort || res.Header.QPs != 2 || len(res.Header.Local) != 2 || res.Header.DDP {
		t.Errorf("header = %+v", res.Header)
	}
	if len(res.BW) != 1 {
		t.Fatalf("%d rows", len(res.BW))
	}
	r := res.BW[0]
	u := UnitMiBps
	want := BWRow{Bytes: 65536, Iterations: 1834250, BWAvgGbps: u.ToGbps(22400.25), MsgRateMpps: 0.358404,
		CPUUtilPercent: 38.5, HasCPUUtil: true,
		Ports: []PortBW{{BWGbps: u.ToGbps(11200.10), MsgRateMpps: 0.179202, BWPrinted: 11200.10},
			{BWGbps: u.ToGbps(11200.15), MsgRateMpps: 0.179202, BWPrinted: 11200.15}},
		Printed: PrintedBW{Peak: 0, Avg: 22400.25, Unit: UnitMiBps}, Line: 22}
	if d := cmp.Diff(want, r); d != "" {
		t.Errorf("row (-want +got):\n%s", d)
	}
	wantWarnings(t, res, WarnPeakNotMeasured)
}

func TestParseReportBoth(t *testing.T) {
	res := parseTestdata(t, "report-both.txt")
	if !res.Header.Bidirectional || res.Test != "RDMA_Write Bidirectional BW Test" {
		t.Errorf("title: %q %+v", res.Test, res.Header)
	}
	if len(res.BW) != 1 || res.BW[0].Printed.Avg != 29.99 {
		t.Fatalf("BW = %+v", res.BW)
	}
	rb := res.ReportBoth
	if rb == nil || len(rb.Local) != 1 || len(rb.Remote) != 1 || rb.Local[0].Printed.Avg != 15.01 || rb.Remote[0].Printed.Avg != 14.98 {
		t.Fatalf("ReportBoth = %+v", rb)
	}
	wantWarnings(t, res, WarnReportBoth)
}

func TestParseRunInfinitely(t *testing.T) {
	res := parseTestdata(t, "run-infinitely.txt")
	var avg []float64
	for _, r := range res.BW {
		if r.PeakMeasured {
			t.Errorf("row %d: peak measured", r.Line)
		}
		avg = append(avg, r.BWAvgGbps)
	}
	if d := cmp.Diff([]float64{0.11, 0.10, 0.031457}, avg); d != "" {
		t.Errorf("BWAvgGbps (-want +got):\n%s", d)
	}
	// The tool's own WARNING stands for the peak; no second one.
	wantWarnings(t, res, WarnPeakNotMeasured, WarnToolMessage)
}

func TestParseErrors(t *testing.T) {
	const (
		dashes = "---------------------------------------------------------------------------------------\n"
		top    = dashes + "                    Send BW Test\n" + " Dual-port       : OFF\t\tDevice         : rxe0\n"
		head   = top + dashes + " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
	)
	bad := []WarningKind{WarnBadRow}
	tests := []struct {
		name  string
		in    string
		is    error
		line  int
		rows  int
		msg   string
		kinds []WarningKind
	}{
		{"garbled number", head + " 2 20 0.03 0.02 0.008388\n 4 20 0.09 0.0x6 0.015915\n 8 20 0.18 0.12 0.015985\n", ErrParse, 7, 2, "bad number", bad},
		{"too few fields", head + " 2 20 0.03 0.02\n" + dashes, ErrParse, 6, 0, "4 fields, want 5", bad},
		{"row cut at the end", head + " 2 20 0.03 0.02 0.008388\n 4 20 0.09\n\n", ErrTruncated, 7, 1, "3 fields, want 5 (cut short)", bad},
		{"row cut, then more rows", head + " 2 20 0.03\n 4 20 0.09 0.06 0.015915\n", ErrParse, 6, 1, "3 fields, want 5", bad},
		{"too many fields", head + " 2 20 0.03 0.02 0.008388 1 2\n", ErrParse, 6, 0, "7 fields, want 5", bad},
		{"unknown table", top + dashes + " #bytes     #iterations    BW min[Gb/sec]\n 65536 1000 1.5\n", ErrParse, 6, 0, "columns this parser does not know", []WarningKind{WarnUnknownLine, WarnBadRow}},
		{"kernel message", head + " 2 20 0.03 0.02 0.008388\n  489.244399] BUG: Bad page map\n", nil, 0, 1, "", []WarningKind{WarnUnknownLine}},
		{"truncated table", head, ErrTruncated, 5, 0, "no rows", nil},
		{"truncated header", top + dashes, ErrTruncated, 0, 0, "no result table", nil},
		{"row before table", " 65536 300 1 1 1\n", ErrParse, 1, 0, "before any table", bad},
		{"bad address", top + dashes + " local address: LID zz QPN 0x1\n", ErrParse, 5, 0, "bad address", nil},
		{"bad GID", top + dashes + " local address: LID 0000 QPN 0x1 PSN 0x2\n GID: 1:2:3\n", ErrParse, 6, 0, "bad GID", nil},
		{"empty", "", ErrUnrecognized, 0, 0, "no title", nil},
		{"other tool", "MIGRATED TCP STREAM TEST from 0.0.0.0\n 87380  16384  16384    10.00    9426.34\n", ErrParse, 2, 0, "before any table", []WarningKind{WarnUnknownLine, WarnBadRow}},
		{"long line", strings.Repeat("x", maxLine+10) + "\n", ErrUnrecognized, 0, 0, "no title", []WarningKind{WarnUnknownLine}},
		{"huge size", head + " 99999999999999999999999 20 0.03 0.02 0.008388\n", ErrParse, 6, 0, "bad number", bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := parseString(t, tt.in)
			if !errors.Is(err, tt.is) || (err == nil) != (tt.is == nil) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			if err != nil && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q, want it to say %q", err, tt.msg)
			}
			var pe *ParseError
			if tt.line > 0 && (!errors.As(err, &pe) || pe.Line != tt.line) {
				t.Errorf("err = %#v, want a *ParseError at line %d", err, tt.line)
			}
			if len(res.BW) != tt.rows {
				t.Errorf("%d rows kept, want %d", len(res.BW), tt.rows)
			}
			wantWarnings(t, res, tt.kinds...)
		})
	}
}

// Failure lines mixed into stdout (2>&1) give the rows and the *Error.
func TestParseMergedFailure(t *testing.T) {
	in := string(readTestdata(t, "v26-send-bw-client.txt")) + string(readTestdata(t, "v26-completion.stderr"))
	res, err := parseString(t, in)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindCompletion || res.Failure != e {
		t.Fatalf("err = %v, want a completion *Error kept in Failure", err)
	}
	if !errors.Is(err, ErrToolFailed) || !errors.Is(err, &Error{Kind: KindCompletion}) || errors.Is(err, &Error{Kind: KindTimeout}) {
		t.Errorf("errors.Is on %v", err)
	}
	if len(res.BW) != 3 {
		t.Errorf("%d rows, want 3", len(res.BW))
	}
	wantMsg := "Completion with error at client; Failed status-remote access error (10): wr_id 0 syndrom 0x0; scnt=128, ccnt=0; Failed to complete run_iter_bw function successfully"
	if e.Message != wantMsg {
		t.Errorf("Message = %q", e.Message)
	}
}

func TestParseFloat(t *testing.T) {
	for _, s := range []string{"0", "0.00", "8.45", "-3.2", "0.000135", "22080.04", "1809905.51", "5.", ".5",
		"123456789012345678", "1234567890123456789", "12345678901234567890.5", "9007199254740993",
		"0.1234567890123456789012345", "1e5", "2.5E-3", "00012.50", "+7.25", "4503599627370497.5"} {
		got, ok := parseFloat([]byte(s))
		want, okSlow := parseFloatSlow([]byte(s))
		if !ok || !okSlow || got != want {
			t.Errorf("parseFloat(%q) = %v, %v; strconv gives %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"inf", "-inf", "INF", "nan", "-nan", "NaN", "infinity"} {
		v, ok := parseFloat([]byte(s))
		if !ok || finite(v) {
			t.Errorf("parseFloat(%q) = %v, %v", s, v, ok)
		}
	}
	for _, s := range []string{"", "-", ".", "1.2.3", "0x10", "12a", "in", "nanx", "--1", "1e999"} {
		if v, ok := parseFloat([]byte(s)); ok {
			t.Errorf("parseFloat(%q) = %v, want failure", s, v)
		}
	}
}

func TestWarningString(t *testing.T) {
	tests := []struct {
		w    Warning
		want string
	}{
		{Warning{Kind: WarnClock, Line: 2, Stderr: true, Text: "Correlation"}, "stderr line 2: Correlation"},
		{Warning{Kind: WarnNonFinite, Line: 31, Text: "2048 bytes"}, "line 31: 2048 bytes"},
		{Warning{Kind: WarnNoTable, Text: "no table"}, "no table"},
	}
	for _, tt := range tests {
		if got := tt.w.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.w, got, tt.want)
		}
	}
	if WarnPeakNotMeasured.String() != "peak_not_measured" || WarningKind(99).String() != "WarningKind(99)" {
		t.Error("WarningKind.String")
	}
}
