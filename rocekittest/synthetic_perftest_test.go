package rocekittest_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rocekittest"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestSyntheticBW: the rows come back through perftest.Parse in every BW
// template's unit and layout; the rest of the output stays byte for byte.
func TestSyntheticBW(t *testing.T) {
	rows := []perftest.BWRow{
		{Bytes: 4096, Iterations: 5000, BWPeakGbps: 96.5, BWAvgGbps: 95.25, MsgRateMpps: 2.906738, PeakMeasured: true},
		{Bytes: 65536, Iterations: 5000, BWPeakGbps: 97.9, BWAvgGbps: 9.5, MsgRateMpps: 0.018119, PeakMeasured: true},
	}
	for _, id := range []string{"trixie/perftest/send-bw", "trixie/perftest/send-bw-a", "trixie/perftest/write-bw-a",
		"trixie/perftest/send-bw-gbits", "bookworm/perftest/write-bw", "bookworm/perftest/send-bw-bidir",
		"trixie/perftest/read-bw-gbits"} {
		t.Run(id, func(t *testing.T) {
			tmpl := lookup(t, id)
			c, err := rocekittest.SyntheticBW(tmpl, rows)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Synthetic || c.Source != id || c.Suite != "synthetic" {
				t.Errorf("case %s synthetic %v source %q", c.ID, c.Synthetic, c.Source)
			}
			cli, _ := c.Side("client")
			res, err := perftest.Parse(bytes.NewReader(cli.Stdout))
			if err != nil || len(res.BW) != 2 {
				t.Fatalf("client: %v, %d rows\n%s", err, len(res.BW), cli.Stdout)
			}
			unit := res.BW[0].Printed.Unit.ToGbps(1) // the printed rounding, in Gb/s
			for i, r := range res.BW {
				w := rows[i]
				if r.Bytes != w.Bytes || r.Iterations != w.Iterations || !near(r.BWAvgGbps, w.BWAvgGbps, unit*0.006) ||
					!near(r.BWPeakGbps, w.BWPeakGbps, unit*0.006) || !near(r.MsgRateMpps, w.MsgRateMpps, 1e-6) {
					t.Errorf("row %d: %+v, want %+v", i, r, w)
				}
			}
			for _, k := range []perftest.WarningKind{perftest.WarnBadRow, perftest.WarnUnknownLine, perftest.WarnPeakNotMeasured} {
				if res.HasWarning(k) {
					t.Errorf("warning %v in %v", k, res.Warnings)
				}
			}
			tcli, _ := tmpl.Side("client")
			if head := string(tcli.Stdout[:bytes.Index(tcli.Stdout, []byte("#bytes"))]); !strings.HasPrefix(string(cli.Stdout), head) {
				t.Error("the header block changed")
			}
			if _, ok := c.Side("server"); !ok {
				t.Fatal("server side lost")
			}
			srv, want := mustParse(t, c, "server"), 1 // write/read servers print the last size
			if strings.HasPrefix(srv.Test, "Send") {
				want = 2
			}
			if len(mustParse(t, tmpl, "server").BW) > 0 && (len(srv.BW) != want || srv.BW[len(srv.BW)-1].Bytes != 65536) {
				t.Errorf("server rows %+v, want %d ending with the last size", srv.BW, want)
			}
			if id == "trixie/perftest/send-bw" && (len(srv.BW) != 2 || srv.BW[0].PeakMeasured) {
				t.Errorf("send server %+v: want both rows, peak not measured as in the capture", srv.BW)
			}
		})
	}
}

// TestSyntheticLat: latency tables of nine columns (both lab versions),
// five (perftest 2.x/3.x, a real mlx4 output) and -D (t_avg and tps).
func TestSyntheticLat(t *testing.T) {
	rows := []perftest.LatRow{{Bytes: 2, Iterations: 1000, TMinMicros: 1.02, TMaxMicros: 9.87, TTypicalMicros: 1.11,
		TAvgMicros: 1.2, TStdevMicros: 0.31, P99Micros: 2.5, P999Micros: 9.87, TPS: 416666.67}}
	cases := map[string]*rocekittest.Case{"mlx4-cx3-read-lat-a-v3": realworld(t, "mlx4-cx3-read-lat-a-completion-error")}
	for _, id := range []string{"trixie/perftest/send-lat", "bookworm/perftest/send-lat", "trixie/perftest/read-lat",
		"trixie/perftest/send-lat-a", "trixie/perftest/send-lat-duration"} {
		cases[id] = lookup(t, id)
	}
	for id, tmpl := range cases {
		t.Run(id, func(t *testing.T) {
			c, err := rocekittest.SyntheticLat(tmpl, rows)
			if err != nil {
				t.Fatal(err)
			}
			res := mustParse(t, c, "client")
			if len(res.Lat) != 1 {
				t.Fatalf("%d rows", len(res.Lat))
			}
			r, w := res.Lat[0], rows[0]
			switch cols := len(strings.Fields(tableRow(t, c))); {
			case r.Bytes != 2 || r.Iterations != 1000:
				t.Errorf("row %+v", r)
			case r.Duration:
				if r.TAvgMicros != w.TAvgMicros || r.TPS != w.TPS {
					t.Errorf("-D row %+v, want t_avg %v tps %v", r, w.TAvgMicros, w.TPS)
				}
			case r.TMinMicros != w.TMinMicros || r.TMaxMicros != w.TMaxMicros || r.TTypicalMicros != w.TTypicalMicros:
				t.Errorf("row %+v, want %+v", r, w)
			case cols == 9 && (r.TAvgMicros != w.TAvgMicros || r.TStdevMicros != w.TStdevMicros ||
				r.P99Micros != w.P99Micros || r.P999Micros != w.P999Micros):
				t.Errorf("row %+v, want %+v", r, w)
			case cols != 9 && cols != 5:
				t.Errorf("%d columns", cols)
			}
		})
	}
}

// TestSyntheticBWWithoutMsgRate: a real perftest 1.x output (4 columns, no
// MsgRate) keeps its layout.
func TestSyntheticBWWithoutMsgRate(t *testing.T) {
	c, err := rocekittest.SyntheticBW(realworld(t, "mlx-ib-write-bw-v1-no-msgrate"),
		[]perftest.BWRow{{Bytes: 4096, Iterations: 5000, BWAvgGbps: 50, BWPeakGbps: 52, PeakMeasured: true}})
	if err != nil {
		t.Fatal(err)
	}
	res := mustParse(t, c, "client")
	if len(res.BW) != 1 || len(strings.Fields(tableRow(t, c))) != 4 || !math.IsNaN(res.BW[0].MsgRateMpps) ||
		!near(res.BW[0].BWAvgGbps, 50, 0.001) {
		t.Errorf("rows %+v from\n%s", res.BW, tableRow(t, c))
	}
}

// realworld makes a case of a real output in testdata/realworld/perftest.
func realworld(t *testing.T, name string) *rocekittest.Case {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "realworld", "perftest", name, "client.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return &rocekittest.Case{ID: "realworld/perftest/" + name, Tool: "perftest", Name: name,
		Sides: []rocekittest.Side{{Role: "client", Stdout: b}}}
}

// tableRow is the first row under the client's "#bytes" header.
func tableRow(t *testing.T, c *rocekittest.Case) string {
	t.Helper()
	s, _ := c.Side("client")
	lines := strings.Split(string(s.Stdout), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "#bytes") && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	t.Fatalf("%s: no table", c.ID)
	return ""
}

// TestSyntheticRunPair: a synthetic case plays through RunPair like a
// captured one.
func TestSyntheticRunPair(t *testing.T) {
	c, err := rocekittest.SyntheticBW(lookup(t, "trixie/perftest/send-bw-gbits"),
		[]perftest.BWRow{{Bytes: 65536, Iterations: 300, BWAvgGbps: 9.5, MsgRateMpps: 0.018119}})
	if err != nil {
		t.Fatal(err)
	}
	srv, cli, err := rocekittest.FakePair(c)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := perftest.RunPair(ctx(t), srv, cli, "198.18.0.1", perftest.Options{Test: perftest.SendBW, ReportGbits: true, Port: 18600})
	if err != nil {
		t.Fatal(err)
	}
	if got := pr.Client.Result.BW[0]; got.BWAvgGbps != 9.5 || got.PeakMeasured {
		t.Errorf("client row %+v", got)
	}
}

// TestSyntheticRefused: templates without a table, other tools and bad
// numbers are refused with a reason.
func TestSyntheticRefused(t *testing.T) {
	row := []perftest.BWRow{{Bytes: 2, Iterations: 1, BWAvgGbps: 1}}
	if _, err := rocekittest.SyntheticBW(lookup(t, "trixie/perftest/send-bw-noserver"), row); !errors.Is(err, rocekittest.ErrNoTable) {
		t.Errorf("failure template: %v", err)
	}
	if _, err := rocekittest.SyntheticBW(lookup(t, "trixie/perftest/send-lat"), row); !errors.Is(err, rocekittest.ErrNoTable) {
		t.Errorf("latency template for BW rows: %v", err)
	}
	if _, err := rocekittest.SyntheticBW(lookup(t, "trixie/netperf/udp-stream-k"), row); !errors.Is(err, rocekittest.ErrWrongTool) {
		t.Errorf("netperf template: %v", err)
	}
	if _, err := rocekittest.SyntheticBW(lookup(t, "trixie/perftest/send-bw"), []perftest.BWRow{{BWAvgGbps: math.NaN()}}); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := rocekittest.SyntheticBW(lookup(t, "trixie/perftest/send-bw"), nil); err == nil {
		t.Error("no rows accepted")
	}
}

func mustParse(t *testing.T, c *rocekittest.Case, role string) *perftest.Result {
	t.Helper()
	s, ok := c.Side(role)
	if !ok {
		t.Fatalf("%s: no %s", c.ID, role)
	}
	res, err := perftest.Parse(bytes.NewReader(s.Stdout))
	if res == nil {
		t.Fatalf("%s %s: %v", c.ID, role, err)
	}
	return res
}

// FuzzSyntheticBW: any template output is refused or filled, never a
// panic, and a filled one parses back to the rows asked for.
func FuzzSyntheticBW(f *testing.F) {
	for _, id := range []string{"trixie/perftest/send-bw", "bookworm/perftest/write-bw-a", "trixie/perftest/send-lat", "trixie/perftest/send-bw-noserver"} {
		c, err := rocekittest.Lookup(id)
		if err != nil {
			f.Fatal(err)
		}
		cli, _ := c.Side("client")
		f.Add(cli.Stdout, uint64(4096), 12.5)
	}
	tmpl, err := rocekittest.Lookup("trixie/perftest/send-bw")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, stdout []byte, size uint64, gbps float64) {
		c := *tmpl
		c.Sides = []rocekittest.Side{{Role: "client", Stdout: stdout}}
		s, err := rocekittest.SyntheticBW(&c, []perftest.BWRow{{Bytes: size, Iterations: 7, BWAvgGbps: gbps}})
		if err != nil {
			return
		}
		res := mustParse(t, s, "client")
		if len(res.BW) == 0 || res.BW[len(res.BW)-1].Bytes != size {
			t.Errorf("filled output parses to %+v", res.BW)
		}
	})
}
