package perftest

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The real-world test walks every case folder under
// ../testdata/realworld/perftest/ (outputs of real hardware taken from
// public issues, mailing lists, guides and other projects' files; see
// each source.json) and checks each side against the values below, read
// off the text: title, device, QPs, connection, MTU, BW unit label, row
// count, the first and last rows exactly as printed, the BW average or
// t_typical of those rows, warnings and the error. A case folder without
// an entry fails the test, and so does an entry without a folder.

// rwSide is what one side's output must parse to.
type rwSide struct {
	test, device string
	qps          int
	conn         string
	mtu          int
	unit         string // BW unit label as printed; "" for latency
	rows         int
	first, last  string // the first and last rows, the whole line as printed
	warnings     []WarningKind
	errIs        error     // ErrTruncated or ErrParse, or nil
	errKind      ErrorKind // the failure the output reports, or 0
	check        func(t *testing.T, res *Result)
}

// rwCase is one case folder: its whitespace state as source.json says
// and its sides by file name.
type rwCase struct {
	whitespace string
	sides      map[string]rwSide
}

// Row lines of the corpus, copied from the files.
const (
	azureBWClientFirst = " 2          1000           9.88               9.73                 5.100508"
	azureBWClientLast  = " 8388608    1000           11513.03            11511.92            0.001439"
	azureBWServerFirst = " 2          1000           0.00               10.51                5.512208"
	azureBWServerLast  = " 8388608    1000           0.00               11524.21             0.001441"
	ucxFirst           = " 2          1000             4.86               4.67               2.450225"
	siwRow             = " 65536      5000             8609.87            6595.36              0.105526"
)

var realWorldTable = map[string]rwCase{
	"bnxt-re-write-bw-rdma-cm-q3-duration": {"expanded", map[string]rwSide{
		"client.txt": {test: wBW, device: "bnxt_re0", qps: 3, conn: "RC", mtu: 1024, unit: "Gb/sec", rows: 1,
			first:    " 65536      4159603          0.00               363.47             0.693268",
			warnings: []WarningKind{WarnPeakNotMeasured},
			check: func(t *testing.T, res *Result) {
				h := res.Header
				if !h.RDMACM || h.DataExchange != "rdma_cm" || len(h.Local) != 3 || len(h.Remote) != 3 || h.Remote[1].PSN != 0x55318 {
					t.Errorf("rdma_cm %v %q, addresses %+v %+v", h.RDMACM, h.DataExchange, h.Local, h.Remote)
				}
				if r := res.BW[0]; r.PeakMeasured || math.Abs(r.BWAvgGbps-363.47) > 1e-9 {
					t.Errorf("row %+v", r)
				}
			}},
	}},
	"hns-ascend-send-bw-hccn-tool": {"expanded", map[string]rwSide{
		// hccn_tool's own lines before the output are unknown lines.
		"client.txt": {test: sBW, device: "hns_0", qps: 1, conn: "RC", mtu: 4096, unit: "MB/sec", rows: 1,
			first:    " 2097152      1000               23370.21                   23365.53                    0.011683",
			warnings: []WarningKind{WarnUnknownLine, WarnUnknownLine}},
		// The page does not show this side's waiting banner with it, so
		// Result.Server is not set.
		"server.txt": {test: sBW, device: "hns_0", qps: 1, conn: "RC", mtu: 4096, unit: "MB/sec", rows: 1,
			first:    " 2097152      1000               0.00                       23394.57                    0.011697",
			warnings: []WarningKind{WarnPeakNotMeasured}},
	}},
	"hns-hip08-read-bw-n5": {"intact", map[string]rwSide{
		// "cqe = 5, ..." is libhns' message, not perftest's.
		"client.txt": {test: rBW, device: "hns_2", qps: 1, conn: "RC", mtu: 1024, unit: "MB/sec", rows: 1,
			first:    " 65536      5                6469.94            6468.60\t\t   0.103498",
			warnings: []WarningKind{WarnToolMessage, WarnUnknownLine},
			check: func(t *testing.T, res *Result) {
				if h := res.Header; h.OutstandingReads != 128 || h.TXDepth != 5 || h.CQModeration != 5 || h.Remote[0].OutReads != 0x80 {
					t.Errorf("header %+v", h)
				}
			}},
	}},
	"hns-hip08-write-bw-kernel-bug": {"truncated", map[string]rwSide{
		// Kernel console lines everywhere, and the output stops after the
		// local address: a header and no table.
		"client.txt": {test: wBW, device: "hns_2", qps: 1, conn: "RC", mtu: 1024, rows: 0,
			warnings: append(repeatKind(WarnUnknownLine, 6), repeatKind(WarnUnknownLine, 18)...), errIs: ErrTruncated,
			check: func(t *testing.T, res *Result) {
				if len(res.Header.Local) != 1 || len(res.Header.Remote) != 0 || warningAt(t, res, 6).Line != 23 {
					t.Errorf("addresses %+v, warning %v", res.Header.Local, res.Warnings[6])
				}
			}},
	}},
	"ib-write-bw-post-list-gbits-perftest273": {"truncated", map[string]rwSide{
		// Pasted from the title on, without the address lines.
		"client.txt": {test: "RDMA_Write Post List BW Test", device: "ib0", qps: 1, conn: "RC", mtu: 4096, unit: "Gb/sec", rows: 1,
			first:    " 8          224958464        0.00               0.48   \t\t   7.498617",
			warnings: []WarningKind{WarnPeakNotMeasured},
			check: func(t *testing.T, res *Result) {
				h := res.Header
				if !h.PostList || h.PostListLen != 128 || h.PCIeRelaxOrder != "Unsupported" || len(h.Local) != 0 {
					t.Errorf("header %+v", h)
				}
			}},
	}},
	"irdma-write-bw": {"expanded", map[string]rwSide{
		"client.txt": {test: wBW, device: "irdma1", qps: 1, conn: "RC", mtu: 1024, unit: "MB/sec", rows: 1,
			first: " 65536      5000             1103.39            1103.38            0.017654",
			check: func(t *testing.T, res *Result) {
				h := res.Header
				if h.Transport != "IB" || h.SRQ || h.DualPort || h.GIDIndex != 1 || len(h.Unknown) != 0 ||
					h.Local[0].GID.Unmap().String() != "192.168.99.111" {
					t.Errorf("header %+v", h)
				}
			}},
	}},
	"mlx-ib-write-bw-v1-no-msgrate": {"reflowed", map[string]rwSide{
		// perftest 1.x: no Device line, "2048B", a table without MsgRate.
		// The page wrapped each address line before its VAddr value; the
		// value on the next line is taken back.
		"client.txt": {test: wBW, qps: 1, conn: "RC", mtu: 2048, unit: "MB/sec", rows: 1,
			first: " 65536      5000           939.37             939.37",
			check: func(t *testing.T, res *Result) {
				h := res.Header
				if h.MaxInlineBytes != 0 || h.TXDepth != 300 || len(h.Unknown) != 0 {
					t.Errorf("header %+v", h)
				}
				if len(h.Local) != 1 || h.Local[0].VAddr != 0x002aaaaaae1000 || h.Remote[0].LID != 0x15 || h.Remote[0].VAddr != 0x002aaaaaae1000 {
					t.Errorf("addresses %+v %+v", h.Local, h.Remote)
				}
				if r := res.BW[0]; !math.IsNaN(r.MsgRateMpps) || !r.PeakMeasured {
					t.Errorf("a table without MsgRate: %+v", r)
				}
			}},
	}},
	"mlx4-cx3-read-lat-a-completion-error": {"expanded", map[string]rwSide{
		// The 5-column table of perftest 2.x/3.x; the rows before the
		// completion error are kept.
		"client.txt": {test: rLat, device: "mlx4_0", qps: 1, conn: "RC", mtu: 2048, rows: 12,
			first: " 2       1000          2.29           15.78        2.34",
			last:  " 4096    1000          4.07           8.42         4.13", errKind: KindCompletion,
			check: func(t *testing.T, res *Result) {
				checkOldLat(t, res)
				if res.Failure.Message != "Completion with error at client; Failed status 10: wr_id 0 syndrom 0x88; scnt=1, ccnt=1" {
					t.Errorf("failure %q", res.Failure.Message)
				}
			}},
	}},
	"mlx4-cx3-read-lat-v5": {"expanded", map[string]rwSide{
		"client.txt": {test: rLat, device: "mlx4_0", qps: 1, conn: "RC", mtu: 2048, rows: 1,
			first:    " 2       1000          1.76           6.12         1.79                1.80             0.06            1.88                    6.12",
			warnings: []WarningKind{WarnClock, WarnCoarsePercentile}},
		"server.txt": {test: rLat, device: "mlx4_0", qps: 1, conn: "RC", mtu: 2048, rows: 0,
			warnings: []WarningKind{WarnNoTable}},
	}},
	"mlx5-cx5vf-azure-send-bw-a-v4": {"expanded", map[string]rwSide{
		"client.txt": {test: sBW, device: "mlx5_0", qps: 1, conn: "RC", mtu: 4096, unit: "MB/sec", rows: 23,
			first: azureBWClientFirst, last: azureBWClientLast},
		"server.txt": {test: sBW, device: "mlx5_0", qps: 1, conn: "RC", mtu: 4096, unit: "MB/sec", rows: 23,
			first: azureBWServerFirst, last: azureBWServerLast, warnings: []WarningKind{WarnPeakNotMeasured}},
	}},
	"mlx5-cx5vf-azure-send-lat-a-v4": {"expanded", map[string]rwSide{
		"client.txt": {test: sLat, device: "mlx5_0", qps: 1, conn: "RC", mtu: 4096, rows: 23,
			first: " 2       1000          2.57           15.38        2.66",
			last:  " 8388608 1000          706.63         715.72       708.96", check: checkOldLat},
		"server.txt": {test: sLat, device: "mlx5_0", qps: 1, conn: "RC", mtu: 4096, rows: 23,
			first: " 2       1000          2.56           6.11         2.66",
			last:  " 8388608 1000          706.45         713.13       709.48", check: checkOldLat},
	}},
	"mlx5-cx5vf-roce-read-lat-k8s": {"expanded", map[string]rwSide{
		// TABs expanded at a 4-column stop: "OFF    Device", "RC   Using SRQ".
		"client.txt": {test: rLat, device: "mlx5_5", qps: 1, conn: "RC", mtu: 1024, rows: 1,
			first:    "         2       1000          6.66           20.37        6.74              6.82         0.78      7.15        20.37",
			warnings: append(repeatKind(WarnUnknownLine, 5), WarnClock, WarnClock, WarnCoarsePercentile),
			check: func(t *testing.T, res *Result) {
				if h := res.Header; h.SRQ || h.Transport != "IB" || h.GIDIndex != 2 || h.OutstandingReads != 16 || len(h.Unknown) != 0 {
					t.Errorf("header %+v", h)
				}
			}},
	}},
	"mlx5-ib-read-bw-a-ucx8851": {"truncated", map[string]rwSide{
		// The excerpt stops inside the last row's MsgRate: "2.5525" has 4
		// of the 6 decimals perftest prints, so the row is dropped and the
		// output is truncated.
		"client.txt": {test: rBW, device: "mlx5_1", qps: 1, conn: "RC", mtu: 4096, unit: "MB/sec", rows: 3,
			first: ucxFirst, last: " 8          1000             19.51              19.50              2.556366",
			warnings: []WarningKind{WarnBadRow}, errIs: ErrTruncated},
	}},
	"mlx5-ib-read-bw-a-ucx8852-no-dashes": {"truncated", map[string]rwSide{
		// No dashes lines and "iterations" without '#'; cut inside the
		// last MsgRate as above.
		"client.txt": {test: rBW, device: "mlx5_1", qps: 1, conn: "RC", mtu: 4096, unit: "MB/sec", rows: 7,
			first: ucxFirst, last: " 128        1000             310.13             310.05             2.539960",
			warnings: []WarningKind{WarnBadRow}, errIs: ErrTruncated},
	}},
	"mlx5-raw-ethernet-lat-reflowed": {"reflowed", map[string]rwSide{
		// Every run of blanks is one space: the pairs split at the known
		// keys ("RawEth Using SRQ : OFF"). The raw Ethernet header box is
		// unknown lines; "MAC attached" an unknown pair.
		"server.txt": {test: sLat, device: "mlx5_1", qps: 1, conn: "RawEth", mtu: 1518, rows: 1,
			first:    "    64 1000 0.81 2.58 0.85 0.85 0.06 0.89 2.58",
			warnings: append([]WarningKind{WarnToolMessage}, append(repeatKind(WarnUnknownLine, 5), WarnCoarsePercentile)...),
			check: func(t *testing.T, res *Result) {
				h := res.Header
				want := []Field{{Key: "MAC attached", Value: "EC:0D:9A:C1:BA:61"}}
				if d := cmp.Diff(want, h.Unknown); d != "" || h.RXDepth != 512 || h.MaxInlineBytes != 236 || h.SRQ {
					t.Errorf("header %+v %s", h, d)
				}
			}},
	}},
	"mlx5-roce-bond-send-bw-v5.60-perftest82": {"truncated", map[string]rwSide{
		// Cut inside the first address line: a header and no table.
		"client.txt": {test: sBW, device: "mlx5_bond_0", qps: 1, conn: "RC", mtu: 4096, errIs: ErrTruncated,
			check: func(t *testing.T, res *Result) {
				if h := res.Header; h.DataExchange != "rdma_cm" || h.RDMACM || h.GIDIndex != 3 || len(h.Local) != 1 {
					t.Errorf("header %+v", h)
				}
			}},
	}},
	"mlx5-roce-write-bw-duration-server-perftest234": {"truncated", map[string]rwSide{
		// The only row is cut after two fields: a bad row at line 26 and a
		// truncated output.
		"server.txt": {test: wBW, device: "mlx5_0", qps: 1, conn: "RC", mtu: 4096, unit: "MB/sec",
			warnings: []WarningKind{WarnBadRow}, errIs: ErrTruncated,
			check: func(t *testing.T, res *Result) {
				if w := warningAt(t, res, 0); w.Line != 26 || !strings.Contains(w.Text, "65536      664644") {
					t.Errorf("warning %v", w)
				}
			}},
	}},
	"pib-atomic-cas-bw": {"expanded", map[string]rwSide{
		"client.txt": {test: "Atomic CMP_AND_SWAP BW Test", device: "pib_1", qps: 1, conn: "RC", mtu: 4096, unit: "MB/sec", rows: 1,
			first: " 8          1000           1.70               1.67                 0.219031", warnings: []WarningKind{WarnToolMessage},
			check: func(t *testing.T, res *Result) {
				if h := res.Header; h.AtomicOp != "CMP_AND_SWAP" || h.Local[0].QPN != 0xba1c93 {
					t.Errorf("header %+v", h)
				}
			}},
	}},
	"pib-read-bw-a-teardown-rdam-cm": {"expanded", map[string]rwSide{
		// The server's closing exchange failed after its table header
		// ("Unable to read to socket/rdam_cm", "Failed to close
		// connection"): a teardown failure, not an unrecognised output.
		"server.txt": {test: rBW, device: "pib_0", qps: 1, conn: "RC", mtu: 4096, unit: "MB/sec",
			warnings: []WarningKind{WarnToolMessage, WarnUnknownLine}, errKind: KindTeardown,
			check: func(t *testing.T, res *Result) {
				if res.Failure.Message != "Failed to close connection between server and client" || !strings.Contains(res.Failure.Raw, "socket/rdam_cm") {
					t.Errorf("failure %+v", res.Failure)
				}
			}},
	}},
	"siw-send-bw-completion-error-softiwarp27": {"reflowed", map[string]rwSide{
		"client.txt": {errKind: KindCompletion},
	}},
	"siw-write-bw-rdma-cm-v24": {"expanded", map[string]rwSide{
		// Four lines with two pairs each, all expanded.
		"client.txt": {test: wBW, device: "siw_0", qps: 1, conn: "RC", mtu: 1024, unit: "MiB/sec", rows: 1,
			first: siwRow, check: checkSiw},
		"server.txt": {test: wBW, device: "siw_0", qps: 1, conn: "RC", mtu: 1024, unit: "MiB/sec", rows: 1,
			first: siwRow, check: checkSiw},
	}},
}

func repeatKind(k WarningKind, n int) []WarningKind {
	out := make([]WarningKind, n)
	for i := range out {
		out[i] = k
	}
	return out
}

// checkOldLat checks the rows of a 5-column latency table: the columns it
// does not have are NaN, not zero.
func checkOldLat(t *testing.T, res *Result) {
	t.Helper()
	for _, r := range res.Lat {
		if !math.IsNaN(r.TAvgMicros) || !math.IsNaN(r.P99Micros) || !math.IsNaN(r.P999Micros) || r.TMinMicros <= 0 || r.TMaxMicros < r.TTypicalMicros {
			t.Fatalf("row %+v", r)
		}
	}
	if res.HasWarning(WarnNonFinite) || res.HasWarning(WarnCoarsePercentile) {
		t.Errorf("warnings %v", res.Warnings)
	}
}

func checkSiw(t *testing.T, res *Result) {
	t.Helper()
	h := res.Header
	if h.Transport != "IW" || h.LockFree != "OFF" || h.PCIeRelaxOrder != "ON" || h.WRAPI || h.DDP || !h.RDMACM ||
		h.DataExchange != "rdma_cm" || h.GIDIndex != 0 || len(h.Unknown) != 0 {
		t.Errorf("header %+v", h)
	}
}

func TestRealWorld(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/realworld/perftest/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases under ../testdata/realworld/perftest: %v", err)
	}
	runCases(t, dirs, filepath.Base, realWorldTable, "realWorldTable", checkRealWorldCase)
}

func checkRealWorldCase(t *testing.T, dir string, c rwCase) {
	var src struct {
		URL, Device, Tool, Version, Command, Whitespace string
	}
	if err := json.Unmarshal(readFixture(t, dir, "source.json"), &src); err != nil {
		t.Fatal(err)
	}
	if src.URL == "" || src.Tool == "" || src.Whitespace != c.whitespace {
		t.Errorf("source.json: url %q tool %q whitespace %q, want whitespace %q", src.URL, src.Tool, src.Whitespace, c.whitespace)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) != len(c.sides) {
		t.Errorf("%d output files, %d sides in the table", len(files), len(c.sides))
	}
	for file, want := range c.sides {
		t.Run(file, func(t *testing.T) { checkRealWorldSide(t, readFixture(t, dir, file), want) })
	}
}

func checkRealWorldSide(t *testing.T, in []byte, w rwSide) {
	res, err := Parse(bytes.NewReader(in))
	checkErr(t, res, err, w.errKind, w.errIs)
	h := res.Header
	got := []any{res.Test, h.Device, h.QPs, h.Connection, h.MTU, h.BWUnitLabel}
	want := []any{w.test, w.device, w.qps, w.conn, w.mtu, w.unit}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("test, device, qps, connection, mtu, unit (-want +got):\n%s", d)
	}
	wantWarnings(t, res, w.warnings...)
	for _, f := range h.Unknown {
		if knownKey(f.Key) || strings.Contains(f.Value, " : ") {
			t.Errorf("pair split wrong: %+v", f)
		}
	}
	lines := strings.Split(string(in), "\n")
	type row struct {
		line        int
		bytes       uint64
		avg, typ    float64
		isBW, isLat bool
	}
	var rows []row
	for _, r := range res.BW {
		rows = append(rows, row{line: r.Line, bytes: r.Bytes, avg: r.Printed.Avg, isBW: true})
	}
	for _, r := range res.Lat {
		rows = append(rows, row{line: r.Line, bytes: r.Bytes, typ: r.TTypicalMicros, isLat: true})
	}
	if len(rows) != w.rows {
		t.Fatalf("%d rows, want %d", len(rows), w.rows)
	}
	if w.rows > 0 {
		last := w.last
		if last == "" {
			last = w.first
		}
		for _, c := range []struct {
			r    row
			want string
		}{{rows[0], w.first}, {rows[len(rows)-1], last}} {
			// The row's line as printed, then its size and its BW average
			// or t_typical read from that text.
			if c.r.line < 1 || c.r.line > len(lines) || lines[c.r.line-1] != c.want {
				t.Errorf("row at line %d, want %q", c.r.line, c.want)
				continue
			}
			f := strings.Fields(c.want)
			size, _ := strconv.ParseUint(f[0], 10, 64)
			field, value := "", c.r.typ
			switch {
			case c.r.isBW:
				field, value = f[3], c.r.avg
			case len(f) > 4:
				field = f[4]
			}
			if v, err := strconv.ParseFloat(field, 64); err != nil || v != value || size != c.r.bytes {
				t.Errorf("row %q: %d bytes, value %v", c.want, c.r.bytes, value)
			}
		}
	}
	if w.check != nil {
		w.check(t, res)
	}
	// The same text through Stream gives the same rows.
	n := 0
	for r := range NewStream(bytes.NewReader(in)).Rows() {
		if r != nil {
			n++
		}
	}
	if n != w.rows {
		t.Errorf("Stream gave %d rows, want %d", n, w.rows)
	}
}

// The real-world files seed the fuzz targets of the text parsers.
func TestRealWorldSeeds(t *testing.T) {
	files, _ := filepath.Glob(realWorldSeeds)
	if len(files) < 20 || !slices.Contains(textSeeds, realWorldSeeds) {
		t.Errorf("%d real-world seed files, text seeds %v", len(files), textSeeds)
	}
}
