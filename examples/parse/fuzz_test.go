package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseTo: whatever the input, parse exits 0, 2 or 3 (a string is
// always readable), writes nothing for 2 and one JSON object otherwise,
// and 3 carries a parse_error.
func FuzzParseTo(f *testing.F) {
	for _, glob := range []string{capPerftest + "*/client.stdout", capPerftest + "*/client.json", capNetperf + "*/client.stdout", capLoopback + "*/client.stdout"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b))
			}
		}
	}
	f.Add("")
	f.Add("\x1b[31mInterim result: 1.00 10^6bits/s over 1.000 seconds ending at 1.000\n")
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		err := parseTo(strings.NewReader(in), &out)
		switch st := exitStatus(err); st {
		case exitUnrecognised:
			if out.Len() != 0 {
				t.Fatalf("status 2 with output %q", out.Bytes())
			}
			return
		case exitOK, exitBroken:
			var m map[string]json.RawMessage
			if jerr := json.Unmarshal(out.Bytes(), &m); jerr != nil {
				t.Fatalf("status %d, output not one JSON object: %v\n%s", st, jerr, out.Bytes())
			}
			if _, ok := m["parse_error"]; ok != (st == exitBroken) {
				t.Fatalf("status %d, parse_error present %v (err %v)", st, ok, err)
			}
		default:
			t.Fatalf("status %d for a string input: %v", st, err)
		}
	})
}
