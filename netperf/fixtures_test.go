package netperf

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rocekit/rocekit/internal/warnjson"
)

// fixture is one captured netperf case: the lab's (../testdata/SUITE/
// netperf/CASE) or the loopback ones (testdata/loopback/CASE).
type fixture struct {
	key   string // "bookworm/tcp-stream", "loopback/tcp-stream-f-K"
	dir   string
	cj    fixtureCase
	input []byte // stdout then stderr of the client (or cmd) side
}

// fixtureCase is the part of case.json the tests use.
type fixtureCase struct {
	ID          string `json:"id"`
	Suite       string `json:"suite"`
	ToolVersion string `json:"tool_version"`
	Expect      string `json:"expect"`
	Sides       []struct {
		Role    string `json:"role"`
		Command string `json:"command"`
		Exit    int    `json:"exit"`
		Stdout  string `json:"stdout"`
		Stderr  string `json:"stderr"`
	} `json:"sides"`
}

func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	lab, err := filepath.Glob("../rocekittest/captures/*/netperf/*/case.json")
	if err != nil {
		t.Fatal(err)
	}
	loop, err := filepath.Glob("testdata/loopback/*/case.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx []fixture
	for _, path := range append(lab, loop...) {
		dir := filepath.Dir(path)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var cj fixtureCase
		if err := json.Unmarshal(b, &cj); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		fx = append(fx, fixture{key: cj.Suite + "/" + filepath.Base(dir), dir: dir, cj: cj, input: clientOutput(t, dir, cj)})
	}
	if len(fx) == 0 {
		t.Fatal("no netperf fixtures found")
	}
	return fx
}

// clientOutput is what the client (or cmd) side printed, stdout then
// stderr, as "netperf ... 2>&1" would mostly give it.
func clientOutput(t testing.TB, dir string, cj fixtureCase) []byte {
	t.Helper()
	for _, s := range cj.Sides {
		if s.Role != "client" && s.Role != "cmd" {
			continue
		}
		out, err := os.ReadFile(filepath.Join(dir, s.Stdout))
		if err != nil {
			t.Fatal(err)
		}
		errOut, err := os.ReadFile(filepath.Join(dir, s.Stderr))
		if err != nil {
			t.Fatal(err)
		}
		return append(out, errOut...)
	}
	t.Fatalf("%s: no client or cmd side", dir)
	return nil
}

// summary is the part of a Result every fixture asserts.
type summary struct {
	Form           Form
	Test           string
	Throughput     *Rate
	ThroughputMbps *float64
	TransPerSec    *float64
	UDP            *UDPStream
	Kind           Kind
	Version        string
	Omni           map[string]string // only the selectors the expectation names
}

// expect is what a fixture must parse to, read by hand from the fixture.
type expect struct {
	summary
	// warn are substrings of the expected warnings, in order; the Result
	// must have exactly as many warnings.
	warn []string
	// check asserts what is particular to the case (rows, CPU columns,
	// confidence, interims, -v 2 blocks).
	check func(t *testing.T, r *Result)
}

func f64(v float64) *float64 { return &v }
func u64(v uint64) *uint64   { return &v }

// mbps is a throughput already in 10^6bits: ThroughputMbps equals it.
func mbps(v float64, u Unit) (*Rate, *float64) { return &Rate{Value: v, Unit: u}, f64(v) }

var cmpFloats = cmp.Options{cmpopts.EquateApprox(0, 1e-6), cmpopts.EquateNaNs()}

func TestFixtures(t *testing.T) {
	seen := map[string]bool{}
	for _, fx := range loadFixtures(t) {
		t.Run(fx.key, func(t *testing.T) {
			want, ok := fixtureExpectations[fx.key]
			if !ok {
				t.Fatalf("no expectation for fixture %s (%s)", fx.key, fx.cj.Sides[len(fx.cj.Sides)-1].Command)
			}
			seen[fx.key] = true
			checkFixture(t, fx, want)
		})
	}
	for key := range fixtureExpectations {
		if !seen[key] {
			t.Errorf("expectation %s has no fixture", key)
		}
	}
	// Every lab case is captured on both guest images.
	for key := range seen {
		if name, ok := strings.CutPrefix(key, "bookworm/"); ok && !seen["trixie/"+name] {
			t.Errorf("%s has no trixie twin", key)
		}
	}
}

func checkFixture(t *testing.T, fx fixture, want expect) {
	res, err := Parse(strings.NewReader(string(fx.input)))
	if res == nil {
		t.Fatalf("Parse: nil Result, err %v", err)
	}
	got := summary{
		Form: res.Form, Test: res.Test, Throughput: res.Throughput, ThroughputMbps: res.ThroughputMbps,
		TransPerSec: res.TransPerSec, UDP: res.UDP, Version: res.Version,
	}
	var perr *Error
	switch {
	case fx.cj.Expect == "fail":
		if !errors.As(err, &perr) || !errors.Is(err, ErrFailed) {
			t.Fatalf("Parse error = %v, want an *Error", err)
		}
		got.Kind = perr.Kind
		if perr.Message == "" || perr.Line < 1 || !strings.Contains(perr.Raw, perr.Message) {
			t.Errorf("Error %+v: Message, Line and Raw must point at netperf's text", perr)
		}
	case err != nil:
		t.Fatalf("Parse: %v", err)
	}
	if want.Omni != nil {
		got.Omni = map[string]string{}
		for name := range want.Omni {
			if v, ok := res.Omni.Value(name); ok {
				got.Omni[name] = v
			}
		}
	}
	if diff := cmp.Diff(want.summary, got, cmpFloats); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}
	checkWarnings(t, warnjson.Strings(res.Warnings), want.warn)
	if want.check != nil {
		want.check(t, res)
	}

	// Detect agrees, and the form's own parser gives the same Result.
	if d := Detect(fx.input); d != res.Form {
		t.Errorf("Detect = %q, Parse gave form %q", d, res.Form)
	}
	if direct := parseDirect(res.Form, fx.input); direct != nil {
		again, err2 := direct(fx.input)
		if diff := cmp.Diff(res, again, cmpFloats); diff != "" || (err == nil) != (err2 == nil) {
			t.Errorf("the %s parser disagrees with Parse (err %v vs %v):\n%s", res.Form, err2, err, diff)
		}
	}
}

func parseDirect(f Form, in []byte) func([]byte) (*Result, error) {
	switch f {
	case FormClassic:
		return func(b []byte) (*Result, error) { return ParseClassic(strings.NewReader(string(b))) }
	case FormKeyVal:
		return func(b []byte) (*Result, error) { return ParseKeyVal(strings.NewReader(string(b))) }
	case FormCSV:
		return func(b []byte) (*Result, error) { return ParseCSV(strings.NewReader(string(b))) }
	case FormHuman:
		return func(b []byte) (*Result, error) { return ParseHuman(strings.NewReader(string(b))) }
	}
	return nil
}

// checkWarnings wants as many warnings as want, each containing its want.
func checkWarnings(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d warnings, want %d:\n  %s", len(got), len(want), strings.Join(got, "\n  "))
		return
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("warning %d = %q, want it to contain %q", i, got[i], want[i])
		}
	}
}

// Helpers for the case checks.

func wantEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpFloats); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func wantRows(t *testing.T, r *Result, table Table, unit Unit, titles bool) *Classic {
	t.Helper()
	c := r.Classic
	if c == nil {
		t.Fatal("no classic table")
	}
	if c.Table != table || c.Unit != unit || c.Titles != titles {
		t.Errorf("table %s unit %q titles %v, want %s %q %v", c.Table, c.Unit, c.Titles, table, unit, titles)
	}
	return c
}

func wantSelectorCount(t *testing.T, r *Result, n int) {
	t.Helper()
	if r.Omni == nil || len(r.Omni.Selectors) != n {
		t.Fatalf("omni selectors: got %v, want %d", r.Omni, n)
	}
	for _, s := range r.Omni.Selectors {
		if s.Name == "" {
			t.Errorf("unnamed selector %+v", s)
		}
	}
}
