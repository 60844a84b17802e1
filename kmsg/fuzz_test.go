package kmsg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func corpusFiles(tb testing.TB) [][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(realworldDir, "*", "*.txt"))
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzParse: no panic, and every record is sane, on any input.
func FuzzParse(f *testing.F) {
	for _, b := range corpusFiles(f) {
		f.Add(b)
	}
	f.Add([]byte("6,x;\n <1\n[Mon\n<>\n1,2,3,c;\\x0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, _ := Parse(bytes.NewReader(b))
		prev := 0
		for _, r := range l.Records {
			if r.Line <= prev || r.Priority < -1 || r.Priority > 7 || r.Facility < -1 || r.Facility > 127 {
				t.Fatalf("bad record %+v after line %d", r, prev)
			}
			prev = r.Line
			_ = r.String()
			Classify(r)
		}
		Summarize(l.Records)
		Since(l.Records, l.Records)
		for _, w := range l.Warnings {
			if !strings.Contains(w.Error(), "line ") {
				t.Fatalf("warning without a line: %v", w)
			}
		}
	})
}

// FuzzSourceOf: no panic on any message text.
func FuzzSourceOf(f *testing.F) {
	for _, b := range corpusFiles(f) {
		l, _ := ParseBytes(b)
		for i, r := range l.Records {
			if i < 20 {
				f.Add(r.Text)
			}
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		src := SourceOf(s)
		_ = src.String()
	})
}

func benchParse(b *testing.B, rel string) {
	data, err := os.ReadFile(filepath.Join(realworldDir, rel))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseKmsg(b *testing.B)   { benchParse(b, "lab-trixie-rxe-injected/kmsg.txt") }
func BenchmarkParseRaw(b *testing.B)    { benchParse(b, "lab-trixie-rxe-injected/dmesg-r.txt") }
func BenchmarkParseCtime(b *testing.B)  { benchParse(b, "lab-trixie-rxe-injected/dmesg-T.txt") }
func BenchmarkParseSyslog(b *testing.B) { benchParse(b, "pfring-780-i40e-journalctl/output.txt") }

func BenchmarkSummarize(b *testing.B) {
	data, _ := os.ReadFile(filepath.Join(realworldDir, "lab-trixie-rxe-injected/kmsg.txt"))
	l, _ := ParseBytes(data)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Summarize(l.Records)
	}
}
