package perftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// seeds adds every captured output and every file of testdata/ to the
// corpus of f.
func seeds(f *testing.F, patterns ...string) {
	f.Helper()
	n := 0
	for _, pat := range patterns {
		files, _ := filepath.Glob(pat)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil || len(b) == 0 {
				continue
			}
			f.Add(b)
			n++
		}
	}
	if n == 0 {
		f.Fatalf("no seeds in %v", patterns)
	}
}

// realWorldSeeds are the real-world outputs (testdata/realworld/perftest).
const realWorldSeeds = "../testdata/realworld/perftest/*/*.txt"

var (
	textSeeds = []string{"../rocekittest/captures/*/perftest/*/*.stdout", "../rocekittest/captures/*/perftest/*/*.stderr", "testdata/*.txt", "testdata/*.stderr", realWorldSeeds}
	jsonSeeds = []string{"../rocekittest/captures/*/perftest/*/client.json", "testdata/*.json"}
)

// checkResult checks what every parser promises for any input: a Result,
// rows within the input, an error of a documented type, and JSON that
// encodes (inf and nan become null).
func checkResult(t *testing.T, in []byte, res *Result, err error) {
	t.Helper()
	if res == nil {
		t.Fatal("nil Result")
	}
	lines := bytes.Count(in, []byte("\n")) + 1
	for _, r := range res.BW {
		if r.Line < 0 || r.Line > lines {
			t.Fatalf("row at line %d of %d", r.Line, lines)
		}
	}
	for _, r := range res.Lat {
		if r.Line < 0 || r.Line > lines {
			t.Fatalf("row at line %d of %d", r.Line, lines)
		}
	}
	var pe *ParseError
	var te *Error
	// Every parse failure is a *ParseError, every failure the tool
	// printed an *Error; no error means a result (Result.NoResult).
	if err != nil && !errors.As(err, &pe) && !errors.As(err, &te) {
		t.Fatalf("undocumented error %T %v", err, err)
	}
	if err == nil && res.NoResult() != nil {
		t.Fatalf("no error, but the result says nothing: %v", res.NoResult())
	}
	if pe != nil && res.NoResult() != nil && !errors.Is(err, ErrNoResult) {
		t.Fatalf("%v: the result says nothing, the error does not say so", err)
	}
	if te != nil && res.Failure != te {
		t.Fatalf("the *Error is not in Failure")
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	seeds(f, textSeeds...)
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := Parse(bytes.NewReader(in))
		checkResult(t, in, res, err)
		// Stream sees the rows Parse sees.
		n := 0
		for row, err := range NewStream(bytes.NewReader(in)).Rows() {
			if row != nil {
				n++
			} else if err == nil {
				t.Fatal("nil row without an error")
			}
		}
		// (Stream stops at a line over maxLine, Parse does not.)
		if n != len(res.BW)+len(res.Lat) && len(in) < maxLine {
			t.Fatalf("Stream gave %d rows, Parse %d", n, len(res.BW)+len(res.Lat))
		}
	})
}

func FuzzParseOutput(f *testing.F) {
	seeds(f, textSeeds...)
	f.Fuzz(func(t *testing.T, in []byte) {
		half := len(in) / 2
		res, err := ParseOutput(in[:half], in[half:])
		checkResult(t, in, res, err)
	})
}

func FuzzParseBare(f *testing.F) {
	seeds(f, textSeeds...)
	f.Add([]byte("6.705108\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := ParseBare(bytes.NewReader(in))
		checkResult(t, in, res, err)
		if err == nil && (len(res.Values) == 0 || res.Value != res.Values[len(res.Values)-1] && finite(res.Value)) {
			t.Fatalf("no error and values %v, value %v", res.Values, res.Value)
		}
		if Detect(in) == FormBare && len(res.Values) == 0 {
			t.Fatalf("Detect says bare, ParseBare finds no number")
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	seeds(f, jsonSeeds...)
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := ParseJSON(bytes.NewReader(in))
		checkResult(t, in, res, err)
		res.AssumeBWUnit(UnitGbps)
		if res.HasWarning(WarnUnitUnknown) {
			t.Fatal("WarnUnitUnknown after AssumeBWUnit")
		}
	})
}

func FuzzClassify(f *testing.F) {
	seeds(f, textSeeds...)
	f.Fuzz(func(t *testing.T, in []byte) {
		err := Classify(in)
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Kind == KindUnknown || e.Message == "" || e.Raw == "") {
			t.Fatalf("Classify = %#v", err)
		}
		if err != nil && Detect(in) == FormUnknown {
			t.Fatalf("Classify finds %v, Detect nothing", err)
		}
	})
}

func FuzzDetect(f *testing.F) {
	seeds(f, append(textSeeds, jsonSeeds...)...)
	f.Fuzz(func(t *testing.T, in []byte) {
		switch Detect(in) {
		case FormTextBW, FormTextLat, FormTextLatDuration:
			res, _ := Parse(bytes.NewReader(in))
			if res.Kind == ResultUnknown || res.Kind == ResultBare {
				t.Fatalf("Detect says text, Parse finds kind %v", res.Kind)
			}
		case FormVersion:
			if _, err := ParseVersion(bytes.NewReader(in)); err != nil {
				t.Fatalf("Detect says version, ParseVersion: %v", err)
			}
		}
	})
}
