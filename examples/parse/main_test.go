package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocekit/rocekit/internal/lab/capture"
	"github.com/rocekit/rocekit/perftest"
)

// TestParseEveryCapturedOutput runs the command's logic over the output of
// every captured perftest and netperf case (both lab images): each
// recognised client output gives its tool's JSON, and each case the capture
// expected to fail gives an error object from one of its outputs.
func TestParseEveryCapturedOutput(t *testing.T) {
	dirs, _ := filepath.Glob("../../rocekittest/captures/*/*/*/case.json")
	checked := 0
	for _, path := range dirs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var c capture.Case
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if c.Tool != "perftest" && c.Tool != "netperf" || c.ID == c.Tool+"/version" {
			continue
		}
		dir := filepath.Dir(path)
		sawError := false
		for _, side := range c.Sides {
			if side.Role == "server" && c.Tool == "netperf" {
				continue // netserver prints nothing to parse
			}
			for _, name := range []string{side.Stdout, side.Stderr} {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil || len(data) == 0 {
					continue
				}
				out, err := parse(data)
				if errors.Is(err, errUnrecognised) {
					continue // e.g. a stderr that only holds "Correlation coefficient"
				}
				// A side cut short (the other side failed, perftest
				// stopped after its table header) parses as truncated.
				truncated := errors.Is(err, perftest.ErrTruncated) && out != nil
				if err != nil && !truncated {
					t.Errorf("%s %s/%s: %v", c.Suite, c.ID, name, err)
					continue
				}
				// Cases that end in a hang are killed at their timeout:
				// their outputs are cut short by design.
				if truncated && c.Expect != capture.ExpectFail && c.Expect != capture.ExpectTimeoutOK {
					t.Errorf("%s %s/%s: truncated in a case that passed: %v", c.Suite, c.ID, name, err)
				}
				var got struct {
					Tool       string          `json:"tool"`
					Error      json.RawMessage `json:"error"`
					ParseError json.RawMessage `json:"parse_error"`
				}
				if err := json.Unmarshal(out, &got); err != nil {
					t.Errorf("%s %s/%s: output is not JSON: %v", c.Suite, c.ID, name, err)
				}
				if got.Tool != c.Tool {
					t.Errorf("%s %s/%s: tool %q, want %q", c.Suite, c.ID, name, got.Tool, c.Tool)
				}
				sawError = sawError || len(got.Error) > 0 || len(got.ParseError) > 0
				checked++
			}
		}
		if c.Expect == capture.ExpectFail && !sawError {
			t.Errorf("%s %s: expected a failure, but no output gave an error object", c.Suite, c.ID)
		}
	}
	if checked < 100 {
		t.Errorf("only %d outputs checked; the fixtures are missing?", checked)
	}
}

func TestParseRejectsOtherText(t *testing.T) {
	for _, f := range []string{"../../README.md", "main.go"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parse(data); !errors.Is(err, errUnrecognised) {
			t.Errorf("%s: err = %v, want errUnrecognised", f, err)
		}
	}
}

// TestParseCutAndGarbage: a real capture cut right after its table header
// used to exit 0 with no rows and no word; it is "truncated" now, with what
// parsed. Input that is neither tool's is refused, also when it has a line
// that is just a number.
func TestParseCutAndGarbage(t *testing.T) {
	full, err := os.ReadFile("../../rocekittest/captures/trixie/perftest/send-bw-gbits/client.stdout")
	if err != nil {
		t.Fatal(err)
	}
	cut := full[:bytes.Index(full, []byte("MsgRate[Mpps]"))+len("MsgRate[Mpps]\n")]
	out, err := parse(cut)
	if !errors.Is(err, perftest.ErrTruncated) || out == nil {
		t.Fatalf("cut after the table header: %v", err)
	}
	var got struct {
		Tool       string `json:"tool"`
		ParseError struct {
			Kind string `json:"kind"`
			Line int    `json:"line"`
		} `json:"parse_error"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Tool != "perftest" || got.ParseError.Kind != "truncated" || got.ParseError.Line == 0 {
		t.Errorf("cut output: %+v, %v\n%s", got, err, out)
	}
	for _, in := range []string{"hello world\n7\n", "\x00\x01\x02garbage\n42\n"} {
		if _, err := parse([]byte(in)); !errors.Is(err, errUnrecognised) {
			t.Errorf("parse(%q) = %v, want errUnrecognised", in, err)
		}
	}
}
