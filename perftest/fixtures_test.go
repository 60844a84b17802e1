package perftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The fixture test walks every case folder under ../rocekittest/captures/*/perftest/
// (real captures of perftest 4.5-0.17 on bookworm and 25.01 on trixie) and
// checks each side against the values below, copied from the captured
// text: the title, header fields, units, row count, the first row as
// printed, unmeasured peaks, warnings, and for failures the error kind.
// A case folder without an entry fails the test, and so does an entry
// without a folder: a recapture must be read and written down here.

// Titles.
const (
	sBW   = "Send BW Test"
	wBW   = "RDMA_Write BW Test"
	rBW   = "RDMA_Read BW Test"
	aBW   = "Atomic FETCH_AND_ADD BW Test"
	sBiBW = "Send Bidirectional BW Test"
	wBiBW = "RDMA_Write Bidirectional BW Test"
	sLat  = "Send Latency Test"
	wLat  = "RDMA_Write Latency Test"
	rLat  = "RDMA_Read Latency Test"
	aLat  = "Atomic FETCH_AND_ADD Latency Test"
)

// sideWant is what one side's stdout and stderr must parse to.
type sideWant struct {
	kind       ResultKind
	test       string
	unitLabel  string // BW table unit as printed
	qps        int
	conn       string
	cm         bool // rdma_cm (-R)
	rows       int
	first      string // the first row, exactly as printed
	unmeasured int    // rows whose BW peak was printed as 0
	warnings   []WarningKind
	errIs      error     // ErrTruncated, or nil
	errKind    ErrorKind // the *Error ParseOutput returns, or 0
	bare       string    // --output value as printed
	version    string    // -V
}

func bw(test, unit string, rows int, first string) sideWant {
	return sideWant{kind: ResultBW, test: test, unitLabel: unit, qps: 1, conn: "RC", rows: rows, first: first}
}

func lat(test string, rows int, first string) sideWant {
	return sideWant{kind: ResultLat, test: test, qps: 1, conn: "RC", rows: rows, first: first}
}

func latD(test, first string) sideWant {
	return sideWant{kind: ResultLatDuration, test: test, qps: 1, conn: "RC", rows: 1, first: first}
}

func bare(v string) sideWant        { return sideWant{kind: ResultBare, bare: v} }
func fail(k ErrorKind) sideWant     { return sideWant{errKind: k} }
func version(v string) sideWant     { return sideWant{version: v} }
func (s sideWant) q(n int) sideWant { s.qps = n; return s }
func (s sideWant) ud() sideWant     { s.conn = "UD"; return s }
func (s sideWant) rdmaCM() sideWant { s.cm = true; return s }
func (s sideWant) notMeasured(n int) sideWant {
	s.unmeasured = n
	return s
}
func (s sideWant) w(k ...WarningKind) sideWant { s.warnings = k; return s }
func (s sideWant) err(e any) sideWant {
	switch e := e.(type) {
	case ErrorKind:
		s.errKind = e
	case error:
		s.errIs = e
	}
	return s
}

// jsonWant is what the client's --out_json file must parse to: the same
// test, header and row as the client's stdout.
type jsonWant struct{ legacy bool }

func legacyJSON(legacy bool) *jsonWant { return &jsonWant{legacy: legacy} }

type caseWant struct {
	server, client, cmd sideWant
	failure             ErrorKind // Classify over both sides' stdout and stderr
	json                *jsonWant
}

// both is a case whose server and client sides printed the same table
// and warnings.
func both(s sideWant) caseWant { return caseWant{server: s, client: s} }

var fixtureTable = map[string]caseWant{
	"bookworm/atomic-bw":       both(bw(aBW, "MB/sec", 1, " 8          300              0.16               0.13   \t\t   0.017476").w(WarnToolMessage)),
	"bookworm/atomic-bw-gbits": both(bw(aBW, "Gb/sec", 1, " 8          300           0.001347            0.000711            0.011114").w(WarnToolMessage)),
	"bookworm/atomic-lat": {
		server: lat(aLat, 0, "").w(WarnToolMessage, WarnNoTable),
		client: lat(aLat, 1, " 8       500          22.70          3615.67      24.09    \t       33.87       \t59.88  \t\t415.94  \t\t3615.67").w(WarnCoarsePercentile, WarnToolMessage),
	},
	"bookworm/read-bw":       both(bw(rBW, "MB/sec", 1, " 65536      300              12.86              9.79   \t\t   0.000157").w(WarnToolMessage)),
	"bookworm/read-bw-gbits": both(bw(rBW, "Gb/sec", 1, " 65536      300              0.27               0.12   \t\t   0.000232").w(WarnToolMessage)),
	"bookworm/read-lat": {
		server: lat(rLat, 0, "").w(WarnToolMessage, WarnNoTable),
		client: lat(rLat, 1, " 2       500          66.99          6724.19      88.02    \t       121.32      \t288.41 \t\t957.25  \t\t6724.19").w(WarnCoarsePercentile, WarnToolMessage),
	},
	"bookworm/send-bw": {
		server: bw(sBW, "MB/sec", 1, " 65536      300              0.00               7.39   \t\t   0.000118").notMeasured(1).w(WarnPeakNotMeasured),
		client: bw(sBW, "MB/sec", 1, " 65536      300              33.64              6.97   \t\t   0.000112"),
	},
	"bookworm/send-bw-a": {
		server: bw(sBW, "MB/sec", 23, " 2          20               0.00               0.23   \t\t   0.121913").notMeasured(23).w(WarnPeakNotMeasured, WarnClock, WarnClock, WarnClock),
		client: bw(sBW, "MB/sec", 23, " 2          20               0.03               0.02   \t\t   0.008388"),
	},
	"bookworm/send-bw-bad-gid": {
		server:  fail(KindGIDIndex),
		client:  fail(KindGIDIndex),
		failure: KindGIDIndex,
	},
	"bookworm/send-bw-bidir": both(bw(sBiBW, "MB/sec", 1, " 65536      300              67.08              27.69  \t\t   0.000443")),
	"bookworm/send-bw-duration": {
		server: bw(sBW, "MB/sec", 1, " 65536      422              0.00               13.03  \t\t   0.000208").notMeasured(1).w(WarnPeakNotMeasured),
		client: bw(sBW, "MB/sec", 1, " 65536      304              0.00               9.49   \t\t   0.000152").notMeasured(1).w(WarnPeakNotMeasured),
	},
	"bookworm/send-bw-gbits": {
		server: bw(sBW, "Gb/sec", 1, " 65536      300           0.000000            0.084199            0.000161").notMeasured(1).w(WarnPeakNotMeasured),
		client: bw(sBW, "Gb/sec", 1, " 65536      300           0.110250            0.083994            0.000160"),
	},
	"bookworm/send-bw-iters-mismatch": {
		server: bw(sBW, "MB/sec", 0, "").err(ErrTruncated),
		client: bw(sBW, "MB/sec", 1, " 65536      100              17.37              9.25   \t\t   0.000148"),
	},
	"bookworm/send-bw-json": {
		server: bw(sBW, "MB/sec", 1, " 65536      300              0.00               0.00   \t\t   0.000000").notMeasured(1).w(WarnPeakNotMeasured, WarnClock),
		client: bw(sBW, "MB/sec", 1, " 65536      300              9.21               8.59   \t\t   0.000137"),
		json:   legacyJSON(true),
	},
	"bookworm/send-bw-noserver": {
		client:  fail(KindConnectFailed),
		failure: KindConnectFailed,
	},
	"bookworm/send-bw-nosuchdev": {
		server:  fail(KindDeviceNotFound),
		client:  fail(KindDeviceNotFound),
		failure: KindDeviceNotFound,
	},
	"bookworm/send-bw-output-bw": {
		server: bare("6.711226"),
		client: bare("6.705108"),
	},
	"bookworm/send-bw-q4": {
		server: bw(sBW, "MB/sec", 1, " 65536      800              0.00               11.12  \t\t   0.000178").notMeasured(1).q(4).w(WarnPeakNotMeasured),
		client: bw(sBW, "MB/sec", 1, " 65536      800              34.25              11.51  \t\t   0.000184").q(4),
	},
	"bookworm/send-bw-rdma-cm": {
		server: bw(sBW, "MB/sec", 1, " 65536      300              0.00               8.27   \t\t   0.000132").notMeasured(1).rdmaCM().w(WarnPeakNotMeasured),
		client: bw(sBW, "MB/sec", 1, " 65536      300              10.14              8.24   \t\t   0.000132").rdmaCM(),
	},
	"bookworm/send-bw-size-mismatch": {
		server: bw(sBW, "MB/sec", 1, " 65536      200              0.00               48.13  \t\t   0.000770").notMeasured(1).w(WarnPeakNotMeasured),
		client: bw(sBW, "MB/sec", 1, " 4096       200              17.20              6.29   \t\t   0.001610"),
	},
	"bookworm/send-bw-ud": {
		server: bw(sBW, "MB/sec", 1, " 512        300              0.00               3.33   \t\t   0.006820").notMeasured(1).ud().w(WarnPeakNotMeasured),
		client: bw(sBW, "MB/sec", 1, " 512        300              7.13               3.12   \t\t   0.006391").ud(),
	},
	"bookworm/send-bw-ud-a": {
		server: bw(sBW, "MB/sec", 10, " 2          100              0.00               0.01   \t\t   0.003382").notMeasured(10).ud().w(WarnPeakNotMeasured, WarnToolMessage, WarnToolMessage, WarnClock, WarnClock, WarnClock),
		client: bw(sBW, "MB/sec", 10, " 2          100              0.01               0.01   \t\t   0.003356").ud().w(WarnToolMessage, WarnToolMessage),
	},
	"bookworm/send-lat": {
		server: lat(sLat, 1, " 2       500          32.66          4223.14      34.16    \t       108.42      \t358.21 \t\t2204.90 \t\t4223.14").w(WarnCoarsePercentile),
		client: lat(sLat, 1, " 2       500          32.71          5202.19      34.14    \t       109.39      \t349.91 \t\t2184.56 \t\t5202.19").w(WarnCoarsePercentile),
	},
	"bookworm/send-lat-a": {
		server: lat(sLat, 23, " 2       20          13.48          12483.68      15.87    \t       590.97      \t1042.01\t\t12483.68 \t\t12483.68").w(WarnCoarsePercentile, WarnNonFinite, WarnNonFinite, WarnNonFinite, WarnNonFinite, WarnClock, WarnClock, WarnClock, WarnClock, WarnClock),
		client: lat(sLat, 23, " 2       20          13.81          13376.90      16.54    \t       870.25      \t1446.85\t\t13376.90 \t\t13376.90").w(WarnCoarsePercentile, WarnNonFinite, WarnNonFinite, WarnNonFinite, WarnNonFinite, WarnNonFinite, WarnClock, WarnClock, WarnClock, WarnClock, WarnClock, WarnClock),
	},
	"bookworm/send-lat-dump": {
		server: lat(sLat, 1, " 2       200          13.40          6994.61      14.43    \t       208.52      \t876.32 \t\t6057.51 \t\t6994.61").w(WarnSamplesSkipped, WarnCoarsePercentile, WarnClock),
		client: lat(sLat, 1, " 2       200          13.22          6799.45      14.42    \t       216.99      \t832.43 \t\t5997.69 \t\t6799.45").w(WarnSamplesSkipped, WarnCoarsePercentile),
	},
	"bookworm/send-lat-duration": {
		server: latD(sLat, " 2             11901            84.46          5920.20").w(WarnClock),
		client: latD(sLat, " 2             11901            84.73          5900.98"),
	},
	"bookworm/send-lat-json": {
		server: lat(sLat, 1, " 2       500          14.34          8265.03      26.58    \t       334.92      \t1111.36\t\t5954.96 \t\t8265.03").w(WarnCoarsePercentile),
		client: lat(sLat, 1, " 2       500          14.59          7587.35      26.61    \t       338.15      \t1165.19\t\t6469.09 \t\t7587.35").w(WarnCoarsePercentile, WarnClock),
		json:   legacyJSON(true),
	},
	"bookworm/send-lat-output-lat": {
		server: bare("472.756884").w(WarnClock),
		client: bare("608.973318"),
	},
	"bookworm/version": {
		cmd: version("6.06"),
	},
	"bookworm/write-bw": both(bw(wBW, "MB/sec", 1, " 65536      300              26.27              13.67  \t\t   0.000219")),
	"bookworm/write-bw-a": {
		server: bw(wBW, "MB/sec", 1, " 8388608    20               13.32              13.32  \t\t   0.000002"),
		client: bw(wBW, "MB/sec", 23, " 2          20               0.05               0.03   \t\t   0.013677").notMeasured(1).w(WarnPeakNotMeasured, WarnClock),
	},
	"bookworm/write-bw-a-gbits": {
		server: bw(wBW, "Gb/sec", 1, " 8388608    20               0.13               0.13   \t\t   0.000002"),
		client: bw(wBW, "Gb/sec", 23, " 2          20           0.000435            0.000216            0.013470").notMeasured(1).w(WarnPeakNotMeasured, WarnClock),
	},
	"bookworm/write-bw-bidir":    both(bw(wBiBW, "MB/sec", 1, " 65536      300              64.33              29.99  \t\t   0.000480")),
	"bookworm/write-bw-duration": both(bw(wBW, "MB/sec", 1, " 65536      624              0.00               19.42  \t\t   0.000311").notMeasured(1).w(WarnPeakNotMeasured)),
	"bookworm/write-bw-gbits":    both(bw(wBW, "Gb/sec", 1, " 65536      300              0.27               0.11   \t\t   0.000211")),
	"bookworm/write-bw-q4":       both(bw(wBW, "MB/sec", 1, " 65536      800              34.04              19.00  \t\t   0.000304").q(4)),
	"bookworm/write-bw-rdma-cm":  both(bw(wBW, "MB/sec", 1, " 65536      300              17.25              7.01   \t\t   0.000112").rdmaCM()),
	"bookworm/write-bw-size-mismatch": {
		server:  bw(wBW, "MB/sec", 0, "").err(KindHandshake),
		client:  bw(wBW, "MB/sec", 0, "").err(KindCompletion),
		failure: KindCompletion,
	},
	"bookworm/write-lat": {
		server: lat(wLat, 1, " 2       500          31.70          9555.70      33.35    \t       146.21      \t633.39 \t\t3429.33 \t\t9555.70").w(WarnCoarsePercentile),
		client: lat(wLat, 1, " 2       500          31.91          9520.02      33.36    \t       137.05      \t548.08 \t\t3471.86 \t\t9520.02").w(WarnCoarsePercentile),
	},
	"trixie/atomic-bw":       both(bw(aBW, "MiB/sec", 1, " 8          300              0.06               0.05   \t\t     0.006222").w(WarnToolMessage)),
	"trixie/atomic-bw-gbits": both(bw(aBW, "Gb/sec", 1, " 8          300           0.000866            0.000709            0.011077").w(WarnToolMessage)),
	"trixie/atomic-lat": {
		server: lat(aLat, 0, "").w(WarnToolMessage, WarnNoTable),
		client: lat(aLat, 1, " 8       500          23.70          18753.21      26.47    \t       486.29      \t1822.35\t\t10051.50 \t\t18753.21").w(WarnCoarsePercentile, WarnToolMessage),
	},
	"trixie/read-bw":       both(bw(rBW, "MiB/sec", 1, " 65536      300              14.34              11.36  \t\t     0.000182").w(WarnToolMessage)),
	"trixie/read-bw-gbits": both(bw(rBW, "Gb/sec", 1, " 65536      300              0.24               0.11   \t\t     0.000204").w(WarnToolMessage)),
	"trixie/read-lat": {
		server: lat(rLat, 0, "").w(WarnToolMessage, WarnNoTable),
		client: lat(rLat, 1, " 2       500          23.80          27801.81      176.03   \t       4025.34     \t5354.57\t\t20391.84 \t\t27801.81").w(WarnCoarsePercentile, WarnToolMessage),
	},
	"trixie/send-bw": {
		server: bw(sBW, "MiB/sec", 1, " 65536      300              0.00               10.26  \t\t     0.000164").notMeasured(1).w(WarnPeakNotMeasured),
		client: bw(sBW, "MiB/sec", 1, " 65536      300              10.84              9.85   \t\t     0.000158"),
	},
	"trixie/send-bw-a": {
		server: bw(sBW, "MiB/sec", 23, " 2          20               0.00               0.01   \t\t     0.004072").notMeasured(23).w(WarnPeakNotMeasured),
		client: bw(sBW, "MiB/sec", 23, " 2          20               0.01               0.01   \t\t     0.003001"),
	},
	"trixie/send-bw-bad-gid": {
		server:  fail(KindGIDIndex),
		client:  fail(KindGIDIndex),
		failure: KindGIDIndex,
	},
	"trixie/send-bw-bidir": both(bw(sBiBW, "MiB/sec", 1, " 65536      300              39.20              31.42  \t\t     0.000503")),
	"trixie/send-bw-duration": {
		server: bw(sBW, "MiB/sec", 1, " 65536      651              0.00               20.26  \t\t     0.000324").notMeasured(1).w(WarnPeakNotMeasured),
		client: bw(sBW, "MiB/sec", 1, " 65536      650              0.00               20.30  \t\t     0.000325").notMeasured(1).w(WarnPeakNotMeasured),
	},
	"trixie/send-bw-gbits": {
		server: bw(sBW, "Gb/sec", 1, " 65536      300           0.000000            0.082793            0.000158").notMeasured(1).w(WarnPeakNotMeasured),
		client: bw(sBW, "Gb/sec", 1, " 65536      300           0.102005            0.081929            0.000156"),
	},
	"trixie/send-bw-iters-mismatch": {
		server: bw(sBW, "MiB/sec", 0, "").w(WarnPeakNotMeasured).err(ErrTruncated),
		client: bw(sBW, "MiB/sec", 1, " 65536      100              13.84              13.61  \t\t     0.000218"),
	},
	"trixie/send-bw-json": {
		server: bw(sBW, "MiB/sec", 1, " 65536      300              0.00               19.43  \t\t     0.000311").notMeasured(1).w(WarnPeakNotMeasured),
		client: bw(sBW, "MiB/sec", 1, " 65536      300              36.68              19.32  \t\t     0.000309"),
		json:   legacyJSON(false),
	},
	"trixie/send-bw-noserver": {
		client:  fail(KindConnectFailed),
		failure: KindConnectFailed,
	},
	"trixie/send-bw-nosuchdev": {
		server:  fail(KindDeviceNotFound).w(WarnPeakNotMeasured),
		client:  fail(KindDeviceNotFound),
		failure: KindDeviceNotFound,
	},
	"trixie/send-bw-output-bw": {
		server: bare("19.649327").w(WarnPeakNotMeasured),
		client: bare("19.499903"),
	},
	"trixie/send-bw-q4": {
		server: bw(sBW, "MiB/sec", 1, " 65536      800              0.00               39.56  \t\t     0.000633").notMeasured(1).q(4).w(WarnPeakNotMeasured),
		client: bw(sBW, "MiB/sec", 1, " 65536      800              42.92              39.43  \t\t     0.000631").q(4),
	},
	"trixie/send-bw-rdma-cm": {
		server: bw(sBW, "MiB/sec", 1, " 65536      300              0.00               9.89   \t\t     0.000158").notMeasured(1).rdmaCM().w(WarnPeakNotMeasured),
		client: bw(sBW, "MiB/sec", 1, " 65536      300              28.63              9.65   \t\t     0.000154").rdmaCM(),
	},
	"trixie/send-bw-size-mismatch": {
		server: bw(sBW, "MiB/sec", 1, " 65536      200              0.00               155.68 \t\t     0.002491").notMeasured(1).w(WarnPeakNotMeasured),
		client: bw(sBW, "MiB/sec", 1, " 4096       200              16.00              9.26   \t\t     0.002370"),
	},
	"trixie/send-bw-ud": {
		server: bw(sBW, "MiB/sec", 1, " 512        300              0.00               9.06   \t\t     0.018553").notMeasured(1).ud().w(WarnPeakNotMeasured),
		client: bw(sBW, "MiB/sec", 1, " 512        300              3.39               3.08   \t\t     0.006314").ud(),
	},
	"trixie/send-bw-ud-a": {
		server: bw(sBW, "MiB/sec", 10, " 2          100              0.00               0.04   \t\t     0.020486").notMeasured(10).ud().w(WarnPeakNotMeasured, WarnToolMessage, WarnToolMessage),
		client: bw(sBW, "MiB/sec", 10, " 2          100              0.01               0.01   \t\t     0.002662").ud().w(WarnToolMessage, WarnToolMessage),
	},
	"trixie/send-lat": {
		server: lat(sLat, 1, " 2       500          135.77         370542.32      3971.21  \t       5635.93     \t1409.58\t\t52017.18 \t\t370542.32").w(WarnCoarsePercentile),
		client: lat(sLat, 1, " 2       500          144.23         364519.10      3987.66  \t       5658.59     \t2584.99\t\t59035.40 \t\t364519.10").w(WarnCoarsePercentile),
	},
	"trixie/send-lat-a": {
		server: lat(sLat, 23, " 2       20          4081.69        17910.56      9848.30  \t       9765.54     \t2734.72\t\t17910.56 \t\t17910.56").w(WarnCoarsePercentile, WarnNonFinite, WarnNonFinite),
		client: lat(sLat, 23, " 2       20          3986.33        19982.89      9948.19  \t       9947.51     \t3673.17\t\t19982.89 \t\t19982.89").w(WarnCoarsePercentile, WarnNonFinite, WarnNonFinite),
	},
	"trixie/send-lat-dump": {
		server: lat(sLat, 1, " 2       200          123.17         9911.56      2698.92  \t       3222.90     \t2623.62\t\t9867.23 \t\t9911.56").w(WarnSamplesSkipped, WarnCoarsePercentile),
		client: lat(sLat, 1, " 2       200          122.52         10504.35      3302.33  \t       3224.50     \t2606.44\t\t9994.38 \t\t10504.35").w(WarnSamplesSkipped, WarnCoarsePercentile),
	},
	"trixie/send-lat-duration": {
		server: latD(sLat, " 2             298            3362.81        148.68 "),
		client: latD(sLat, " 2             298            3358.57        148.87 "),
	},
	"trixie/send-lat-json": {
		server: lat(sLat, 1, " 2       500          136.38         14669.46      3436.44  \t       3505.50     \t2515.07\t\t11921.79 \t\t14669.46").w(WarnCoarsePercentile),
		client: lat(sLat, 1, " 2       500          125.85         13366.08      3494.08  \t       3505.93     \t2490.01\t\t10290.66 \t\t13366.08").w(WarnCoarsePercentile),
		json:   legacyJSON(false),
	},
	"trixie/send-lat-output-lat": {
		server: bare("3033.170920"),
		client: bare("3055.619098"),
	},
	"trixie/version": {
		cmd: version("6.24"),
	},
	"trixie/write-bw": both(bw(wBW, "MiB/sec", 1, " 65536      300              12.19              8.22   \t\t     0.000132")),
	"trixie/write-bw-a": {
		server: bw(wBW, "MiB/sec", 1, " 8388608    20               21.43              21.43  \t\t     0.000003"),
		client: bw(wBW, "MiB/sec", 23, " 2          20               0.00               0.00   \t\t     0.000746").notMeasured(1).w(WarnPeakNotMeasured),
	},
	"trixie/write-bw-a-gbits": {
		server: bw(wBW, "Gb/sec", 1, " 8388608    20               0.20               0.20   \t\t     0.000003"),
		client: bw(wBW, "Gb/sec", 23, " 2          20           0.000107            0.000062            0.003891"),
	},
	"trixie/write-bw-bidir":    both(bw(wBiBW, "MiB/sec", 1, " 65536      300              39.86              32.34  \t\t     0.000517")),
	"trixie/write-bw-duration": both(bw(wBW, "MiB/sec", 1, " 65536      550              0.00               17.18  \t\t     0.000275").notMeasured(1).w(WarnPeakNotMeasured)),
	"trixie/write-bw-gbits":    both(bw(wBW, "Gb/sec", 1, " 65536      300           0.111742            0.094467            0.000180")),
	"trixie/write-bw-q4":       both(bw(wBW, "MiB/sec", 1, " 65536      800              53.44              45.19  \t\t     0.000723").q(4)),
	"trixie/write-bw-rdma-cm":  both(bw(wBW, "MiB/sec", 1, " 65536      300              14.78              12.78  \t\t     0.000205").rdmaCM()),
	"trixie/write-bw-size-mismatch": {
		server:  bw(wBW, "MiB/sec", 0, "").err(KindHandshake),
		client:  bw(wBW, "MiB/sec", 0, "").err(KindCompletion),
		failure: KindCompletion,
	},
	"trixie/write-lat": {
		server: lat(wLat, 1, " 2       500          165.97         186146.25      3120.28  \t       8155.85     \t3173.14\t\t125956.36 \t\t186146.25").w(WarnCoarsePercentile),
		client: lat(wLat, 1, " 2       500          215.40         194678.34      3307.61  \t       7823.15     \t-nan   \t\t119338.97 \t\t194678.34").w(WarnNonFinite),
	},
}

// caseFile is the part of case.json the test reads.
type caseFile struct {
	ID          string `json:"id"`
	ToolVersion string `json:"tool_version"`
	Sides       []struct {
		Role   string `json:"role"`
		Stdout string `json:"stdout"`
		Stderr string `json:"stderr"`
	} `json:"sides"`
	Files []string `json:"files"`
}

func TestFixtures(t *testing.T) {
	dirs, err := filepath.Glob("../rocekittest/captures/*/perftest/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures under ../rocekittest/captures/*/perftest: %v", err)
	}
	suites := map[string]bool{}
	runCases(t, dirs, func(dir string) string {
		suite := filepath.Base(filepath.Dir(filepath.Dir(dir)))
		if suite == "realworld" {
			return "" // realworld_test.go reads those
		}
		suites[suite] = true
		return suite + "/" + filepath.Base(dir)
	}, fixtureTable, "fixtureTable", checkCase)
	for _, s := range []string{"bookworm", "trixie"} {
		if !suites[s] {
			t.Errorf("no %s fixtures", s)
		}
	}
}

// runCases checks each case folder (named by name, "" to pass it over)
// against its entry in table, and fails for a folder without an entry and
// an entry without a folder: a recapture must be read and written down.
func runCases[C any](t *testing.T, dirs []string, name func(dir string) string, table map[string]C, tableName string, check func(t *testing.T, dir string, want C)) {
	t.Helper()
	seen := map[string]bool{}
	for _, dir := range dirs {
		n := name(dir)
		if n == "" {
			continue
		}
		seen[n] = true
		t.Run(n, func(t *testing.T) {
			want, ok := table[n]
			if !ok {
				t.Fatalf("%s has no entry in %s: read its files and add one", dir, tableName)
			}
			check(t, dir, want)
		})
	}
	for n := range table {
		if !seen[n] {
			t.Errorf("%s has %s, but there is no such case folder", tableName, n)
		}
	}
}

func readFixture(t *testing.T, dir, name string) []byte {
	t.Helper()
	if name == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func checkCase(t *testing.T, dir string, want caseWant) {
	var c caseFile
	if err := json.Unmarshal(readFixture(t, dir, "case.json"), &c); err != nil {
		t.Fatal(err)
	}
	var all [][]byte
	var client sideWant
	for _, s := range c.Sides {
		stdout, stderr := readFixture(t, dir, s.Stdout), readFixture(t, dir, s.Stderr)
		all = append(all, stdout, stderr)
		var w sideWant
		switch s.Role {
		case "server":
			w = want.server
		case "client":
			w, client = want.client, want.client
		case "cmd":
			w = want.cmd
		default:
			t.Fatalf("side %q", s.Role)
		}
		t.Run(s.Role, func(t *testing.T) { checkSide(t, s.Role, stdout, stderr, w) })
	}
	err := Classify(all...)
	var e *Error
	if want.failure == KindUnknown && err != nil || want.failure != KindUnknown && (!errors.As(err, &e) || e.Kind != want.failure) {
		t.Errorf("Classify(both sides) = %v, want kind %v", err, want.failure)
	}
	if (want.json != nil) != (len(c.Files) > 0) {
		t.Fatalf("files %v, json expectation %v", c.Files, want.json)
	}
	for _, f := range c.Files {
		t.Run(f, func(t *testing.T) { checkJSON(t, readFixture(t, dir, f), want.json, client) })
	}
}

func checkSide(t *testing.T, role string, stdout, stderr []byte, w sideWant) {
	if w.version != "" {
		v, err := ParseVersion(bytes.NewReader(stdout))
		if err != nil || v != w.version {
			t.Errorf("ParseVersion = %q, %v; want %q", v, err, w.version)
		}
		if f := Detect(stdout); f != FormVersion {
			t.Errorf("Detect = %v", f)
		}
		return
	}
	wantForm := map[ResultKind]Form{ResultBW: FormTextBW, ResultLat: FormTextLat, ResultLatDuration: FormTextLatDuration,
		ResultBare: FormBare, ResultUnknown: FormUnknown}[w.kind]
	if f := Detect(stdout); f != wantForm {
		t.Errorf("Detect(stdout) = %v, want %v", f, wantForm)
	}
	if w.kind == ResultUnknown {
		if f := Detect(stderr); f != FormError {
			t.Errorf("Detect(stderr) = %v, want %v", f, FormError)
		}
	}

	res, err := ParseOutput(stdout, stderr)
	if res == nil {
		t.Fatal("nil Result")
	}
	checkErr(t, res, err, w.errKind, w.errIs)
	if res.Kind != w.kind || res.Test != w.test {
		t.Errorf("kind %v test %q, want %v %q", res.Kind, res.Test, w.kind, w.test)
	}
	wantWarnings(t, res, w.warnings...)
	if w.kind == ResultBare {
		v, _ := strconv.ParseFloat(w.bare, 64)
		if res.Value != v || len(res.Values) != 1 {
			t.Errorf("value %v (%v), want %s", res.Value, res.Values, w.bare)
		}
		return
	}
	if w.test == "" {
		if res.Header.Device != "" || len(res.BW)+len(res.Lat) != 0 {
			t.Errorf("a failure-only output gave %+v", res)
		}
		return
	}
	checkHeader(t, role, res, w)
	checkRows(t, res, w)

	// ParseOutput is Parse plus stderr; Stream sees the same rows.
	p, _ := Parse(bytes.NewReader(stdout))
	streamed := 0
	for row := range NewStream(bytes.NewReader(stdout)).Rows() {
		if row != nil {
			streamed++
		}
	}
	if n := len(res.BW) + len(res.Lat); len(p.BW)+len(p.Lat) != n || streamed != n {
		t.Errorf("Parse gave %d rows, Stream %d, ParseOutput %d", len(p.BW)+len(p.Lat), streamed, n)
	}
}

// checkErr wants err to be a *Error of kind (also in res.Failure, with
// the lines it came from), else to wrap is, else nil.
func checkErr(t *testing.T, res *Result, err error, kind ErrorKind, is error) {
	t.Helper()
	var e *Error
	switch {
	case kind != KindUnknown:
		if !errors.As(err, &e) || e.Kind != kind || res.Failure != e || e.Raw == "" {
			t.Errorf("err = %v, want a %v *Error", err, kind)
		}
	case is != nil:
		if !errors.Is(err, is) {
			t.Errorf("err = %v, want %v", err, is)
		}
	case err != nil:
		t.Errorf("err = %v", err)
	}
}

func checkHeader(t *testing.T, role string, res *Result, w sideWant) {
	t.Helper()
	h := res.Header
	// Every capture ran on rxe0 over the lab's veth with MTU 1024 and -x 1.
	got := []any{h.Device, h.QPs, h.Connection, h.MTU, h.LinkType, h.GIDIndex, h.Transport, h.RDMACM, h.BWUnitLabel}
	want := []any{"rxe0", w.qps, w.conn, 1024, "Ethernet", 1, "IB", w.cm, w.unitLabel}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("device, qps, connection, mtu, link type, gid index, transport, rdma_cm, unit (-want +got):\n%s", d)
	}
	wantUnit := map[string]BWUnit{"": UnitUnknown, "MB/sec": UnitMiBps, "MiB/sec": UnitMiBps, "Gb/sec": UnitGbps}[w.unitLabel]
	if h.BWUnit != wantUnit {
		t.Errorf("BWUnit = %v, want %v", h.BWUnit, wantUnit)
	}
	exch := "Ethernet"
	if w.cm {
		exch = "rdma_cm"
	}
	readsAtomic := h.Verb == "RDMA_Read" || h.Verb == "Atomic"
	if h.DataExchange != exch || readsAtomic != (h.OutstandingReads == 128) || readsAtomic != (h.MaxInlineBytes == -1) {
		t.Errorf("data exchange %q, outstanding reads %d, max inline %d", h.DataExchange, h.OutstandingReads, h.MaxInlineBytes)
	}
	if res.Server != (role == "server") || res.FullRTT != (readsAtomic && w.kind != ResultBW) {
		t.Errorf("Server %v, FullRTT %v", res.Server, res.FullRTT)
	}
	// One address line each way per QP, each with the GID of 198.18.0.1.
	if len(h.Local) != w.qps || len(h.Remote) != w.qps {
		t.Fatalf("%d local and %d remote addresses, want %d", len(h.Local), len(h.Remote), w.qps)
	}
	for _, a := range append(append([]Address{}, h.Local...), h.Remote...) {
		if a.GID.Unmap().String() != "198.18.0.1" || a.QPN == 0 || a.LID != 0 || (h.Verb == "RDMA_Write" || h.Verb == "RDMA_Read") && !w.cm != (a.RKey != 0) {
			t.Errorf("address %+v", a)
		}
	}
	if h.Local[0].QPN == h.Remote[0].QPN {
		t.Errorf("local and remote QPN are the same")
	}
}

// fields splits the expected first row with the standard library.
func fields(t *testing.T, row string) (uint64, uint64, []float64) {
	t.Helper()
	f := strings.Fields(row)
	size, err1 := strconv.ParseUint(f[0], 10, 64)
	iters, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("bad expected row %q", row)
	}
	var v []float64
	for _, s := range f[2:] {
		x, err := strconv.ParseFloat(strings.TrimPrefix(s, "-"), 64) // strconv wants "nan", not "-nan"
		if err != nil {
			t.Fatalf("bad expected row %q: %v", row, err)
		}
		if strings.HasPrefix(s, "-") && !math.IsNaN(x) {
			x = -x
		}
		v = append(v, x)
	}
	return size, iters, v
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func checkRows(t *testing.T, res *Result, w sideWant) {
	t.Helper()
	if n := len(res.BW) + len(res.Lat); n != w.rows {
		t.Fatalf("%d rows, want %d", n, w.rows)
	}
	if w.rows == 0 {
		return
	}
	size, iters, v := fields(t, w.first)
	var got []float64
	switch w.kind {
	case ResultBW:
		r := res.BW[0]
		if r.Bytes != size || r.Iterations != iters || len(v) != 3 {
			t.Errorf("first row %+v, want %q", r, w.first)
		}
		got = []float64{r.Printed.Peak, r.Printed.Avg, r.MsgRateMpps}
		unit := res.Header.BWUnit
		wantPeak := 0.0
		if v[0] != 0 {
			wantPeak = unit.ToGbps(v[0])
		}
		if r.BWAvgGbps != unit.ToGbps(v[1]) || r.BWPeakGbps != wantPeak || r.PeakMeasured != (v[0] != 0) || r.Printed.Unit != unit {
			t.Errorf("first row in Gb/s: %+v", r)
		}
		unmeasured := 0
		for _, r := range res.BW {
			if !r.PeakMeasured {
				unmeasured++
			}
		}
		if unmeasured != w.unmeasured {
			t.Errorf("%d rows with an unmeasured peak, want %d", unmeasured, w.unmeasured)
		}
	case ResultLat:
		r := res.Lat[0]
		if r.Bytes != size || r.Iterations != iters || r.Duration {
			t.Errorf("first row %+v, want %q", r, w.first)
		}
		got = []float64{r.TMinMicros, r.TMaxMicros, r.TTypicalMicros, r.TAvgMicros, r.TStdevMicros, r.P99Micros, r.P999Micros}
	case ResultLatDuration:
		r := res.Lat[0]
		if r.Bytes != size || r.Iterations != iters || !r.Duration {
			t.Errorf("first row %+v, want %q", r, w.first)
		}
		got = []float64{r.TAvgMicros, r.TPS}
	}
	if !cmp.Equal(v, got, cmp.Comparer(same)) {
		t.Errorf("first row values %v, want %v (%q)", got, v, w.first)
	}
}

func checkJSON(t *testing.T, data []byte, w *jsonWant, client sideWant) {
	if f := Detect(data); f != FormJSON {
		t.Errorf("Detect = %v", f)
	}
	res, err := ParseJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	h := res.Header
	if res.LegacyJSON != w.legacy || res.Kind != client.kind || res.Test != client.test {
		t.Errorf("legacy %v kind %v test %q", res.LegacyJSON, res.Kind, res.Test)
	}
	got := []any{h.Device, h.QPs, h.Connection, h.MTU, h.LinkType, h.GIDIndex, h.Transport, h.DataExchange}
	want := []any{"rxe0", 1, "RC", 1024, "Ethernet", 1, "IB", "Ethernet"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
	if len(h.Unknown) != 0 || len(h.Local) != 0 {
		t.Errorf("unknown keys %v, addresses %v", h.Unknown, h.Local)
	}
	// The file holds the same numbers as the client's table, without a
	// unit: MsgRate × MsgSize tells it (MiB/s, no --report_gbits).
	wantWarnings(t, res)
	if client.kind == ResultBW {
		if r := res.BW[0]; r.Printed.Unit != UnitMiBps || r.BWAvgGbps != r.Printed.Avg*mibToGbps {
			t.Errorf("unit %v, BWAvgGbps = %v from %v", r.Printed.Unit, r.BWAvgGbps, r.Printed.Avg)
		}
	}
	checkRows(t, res, client)
}
