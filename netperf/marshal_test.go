package netperf

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzAppendInterim: the hand-written JSON of an interim result is what
// json.Marshal writes.
func FuzzAppendInterim(f *testing.F) {
	f.Add(13441.39, "10^6bits/s", 0.331, 1795974172.531)
	f.Add(1e-7, "Trans/s", 1e21, math.Copysign(0, -1))
	f.Fuzz(func(t *testing.T, v float64, unit string, iv, e float64) {
		it := Interim{Value: v, Unit: Unit(unit), IntervalSec: iv, EndingUnixSec: e}
		got, err := AppendInterim(nil, it)
		o := InterimJSON{Unit: unit, IntervalSec: iv, EndingUnixSec: e}
		if isFinite(v) {
			o.Value = &v
		}
		want, werr := json.Marshal(o)
		if (err == nil) != (werr == nil) || err == nil && !bytes.Equal(got, want) {
			t.Fatalf("got %s (%v), json.Marshal %s (%v)", got, err, want, werr)
		}
	})
}

// FuzzNewResultJSON: whatever a parser returned encodes as one JSON
// object, with "error" for netperf's own failure report and
// "parse_error" for every other error, never both.
func FuzzNewResultJSON(f *testing.F) {
	seedFixtures(f)
	f.Add("Interim result: 1.00 10^6bits/s over 1.000 seconds ending at 1.000\n")
	f.Fuzz(func(t *testing.T, in string) {
		res, err := Parse(strings.NewReader(in))
		b, merr := json.Marshal(NewResultJSON(res, err))
		if merr != nil {
			t.Fatalf("%v (parse %v)", merr, err)
		}
		var m map[string]json.RawMessage
		if jerr := json.Unmarshal(b, &m); jerr != nil {
			t.Fatalf("not one JSON object: %v\n%s", jerr, b)
		}
		_, hasErr := m["error"]
		_, hasParseErr := m["parse_error"]
		var tool *Error
		if hasErr != errors.As(err, &tool) || hasParseErr != (err != nil && tool == nil) {
			t.Fatalf("error %v, parse_error %v for %v\n%s", hasErr, hasParseErr, err, b)
		}
	})
}

// TestNewResultJSON: a loopback capture's summary, a UDP_STREAM's two
// sides and netperf's own failure in the JSON form; inf and nan become
// null with a warning.
func TestNewResultJSON(t *testing.T) {
	read := func(path string) (*Result, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return Parse(bytes.NewReader(b))
	}
	res, err := read(filepath.Join("testdata", "loopback", "tcp-stream-demo", "client.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	out := NewResultJSON(res, nil)
	if out.Tool != "netperf" || out.Form != string(FormClassic) || out.ThroughputMbps == nil || *out.ThroughputMbps != 14474.66 || out.Error != nil || out.ParseError != nil {
		t.Errorf("tcp-stream-demo: %+v", out)
	}
	nan, inf := math.NaN(), math.Inf(1)
	out = NewResultJSON(&Result{Form: FormClassic, ThroughputMbps: &inf, UDP: &UDPStream{Sent: 0, LossRatio: nan}}, nil)
	if out.ThroughputMbps != nil || out.UDP == nil || out.UDP.LossRatio != nil ||
		strings.Join(out.Warnings, "; ") != "throughput_mbps is +Inf: written as null; udp.loss_ratio is NaN: written as null" {
		t.Errorf("inf and nan: %+v, warnings %q", out, out.Warnings)
	}
	res, err = read(filepath.Join("..", "rocekittest", "captures", "trixie", "netperf", "noserver", "client.stdout"))
	if out := NewResultJSON(res, err); out.Error == nil || out.Error.Kind != string(KindNoServer) || out.ParseError != nil {
		t.Errorf("noserver: %+v (%v)", out, err)
	}
}

// TestNewParseErrorJSON: each sentinel names its kind, and a
// *ParseError its line.
func TestNewParseErrorJSON(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind string
		line int
	}{
		{&ParseError{Line: 3, Msg: "line too long", Err: ErrTooLarge}, "too_large", 3},
		{newParseError(7, "Recv", "truncated after the titles"), "truncated", 7},
		{&ParseError{Line: 1, Msg: "nothing", Err: ErrNoResult}, "no_result", 1},
		{newParseError(5, "158,60", "not a number"), "garbled", 5},
		{errors.New("netperf: read: EIO"), "garbled", 0},
	} {
		got := NewParseErrorJSON(c.err)
		if got.Kind != c.kind || got.Line != c.line || got.Message != c.err.Error() {
			t.Errorf("%v: %+v, want kind %q line %d", c.err, got, c.kind, c.line)
		}
	}
}
