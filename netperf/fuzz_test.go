package netperf

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// The fuzz targets are seeded with every captured fixture. Run one with
//
//	go test ./netperf -run '^$' -fuzz '^FuzzParseHuman$' -fuzztime 30s

func seedFixtures(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		f.Add(string(fx.input))
	}
	for _, in := range loadRealworld(f) {
		f.Add(string(in.text))
	}
	f.Add(bannerStream + titlesStream)
	f.Add("THROUGHPUT=nan\nLOCAL_SEND_CALLS=-1\nREMOTE_RECV_CALLS=18446744073709551616\n")
	f.Add("Throughput,Throughput Units\n\"unterminated,1\n")
}

// checkInvariants holds for every parser: a Result unless the input could
// not be read, errors of the documented types, line numbers in range.
func checkInvariants(t *testing.T, in string, res *Result, err error) {
	if res == nil {
		t.Fatalf("nil Result (err %v)", err)
	}
	var pe *ParseError
	var fe *Error
	switch {
	case err == nil:
	case errors.As(err, &pe):
		if n := len(splitLines(in)); pe.Line < 1 || pe.Line > n+1 {
			t.Fatalf("ParseError line %d outside 1..%d", pe.Line, n+1)
		}
	case errors.As(err, &fe):
		if fe.Kind == "" || fe.Line < 1 || res.Form != FormError {
			t.Fatalf("Error %+v with form %q", fe, res.Form)
		}
	default:
		t.Fatalf("unexpected error type %T: %v", err, err)
	}
}

func FuzzParse(f *testing.F) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, in string) {
		form := Detect([]byte(in))
		res, err := Parse(strings.NewReader(in))
		if form == FormUnknown {
			if res != nil || !errors.Is(err, ErrUnrecognized) {
				t.Fatalf("unknown form: %v, %v", res, err)
			}
			return
		}
		checkInvariants(t, in, res, err)
	})
}

func FuzzParseClassic(f *testing.F) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, in string) {
		res, err := ParseClassic(strings.NewReader(in))
		checkInvariants(t, in, res, err)
	})
}

func FuzzParseKeyVal(f *testing.F) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, in string) {
		res, err := ParseKeyVal(strings.NewReader(in))
		checkInvariants(t, in, res, err)
	})
}

func FuzzParseCSV(f *testing.F) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, in string) {
		res, err := ParseCSV(strings.NewReader(in))
		checkInvariants(t, in, res, err)
		res, err = ParseCSV(strings.NewReader(in), "THROUGHPUT", "THROUGHPUT_UNITS", "LOCAL_SEND_CALLS", "REMOTE_RECV_CALLS")
		checkInvariants(t, in, res, err)
	})
}

func FuzzParseHuman(f *testing.F) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, in string) {
		res, err := ParseHuman(strings.NewReader(in))
		checkInvariants(t, in, res, err)
		res, err = ParseHuman(strings.NewReader(in), "THROUGHPUT", "THROUGHPUT_UNITS")
		checkInvariants(t, in, res, err)
	})
}

// FuzzParseStream: streaming gives what Parse gives, the interim results
// handed over one by one instead of kept; escapes are stripped the same
// way whatever the input.
func FuzzParseStream(f *testing.F) {
	seedFixtures(f)
	f.Add("\x1b[1;32mTHROUGHPUT=1.00\x1b[0m\nTHROUGHPUT_UNITS=10^6bits/s\n")
	f.Add("NETPERF_INTERIM_RESULT[0]=1.00\nNETPERF_UNITS[1]=10^6bits/s\nTHROUGHPUT=1\n")
	f.Add("1.00,10^6bits/s,0.3,1.0\n2.00,10^6bits/s,0.3,1.3\n3.00\n")
	f.Add("$ netperf -H x -- -O THROUGHPUT\nThroughput\n\n\n\n1.00\n")
	f.Fuzz(func(t *testing.T, in string) {
		whole, werr := Parse(strings.NewReader(in))
		var streamed []Interim
		res, err := ParseStream(strings.NewReader(in), func(it Interim) { streamed = append(streamed, it) })
		if (err == nil) != (werr == nil) || (res == nil) != (whole == nil) {
			t.Fatalf("stream %v (%v), whole %v (%v)", res, err, whole, werr)
		}
		if res == nil {
			return
		}
		checkInvariants(t, in, res, err)
		if len(res.Interims) != 0 || len(streamed) != len(whole.Interims) {
			t.Fatalf("%d interims streamed, %d kept; Parse kept %d", len(streamed), len(res.Interims), len(whole.Interims))
		}
		if res.ThroughputMbps != nil && (whole.ThroughputMbps == nil || *res.ThroughputMbps != *whole.ThroughputMbps && !math.IsNaN(*res.ThroughputMbps)) {
			t.Fatalf("throughput %v, whole %v", *res.ThroughputMbps, whole.ThroughputMbps)
		}
	})
}
