package netperf

import (
	"math/rand/v2"
	"testing"
)

// TestDetectGarbage: a line that is just a number is -v 0 output only
// when nothing netperf would not print comes before it; examples/parse
// used to take "hello world\n7\n" for netperf and exit 0.
func TestDetectGarbage(t *testing.T) {
	for in, want := range map[string]Form{
		"hello world\n7\n":      FormUnknown,
		"some log line\n42.5\n": FormUnknown,
		"7\n":                   FormClassic,
		"\n\n1234.56\n":         FormClassic,
		"MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET : demo\n12345.67\n": FormClassic,
	} {
		if got := Detect([]byte(in)); got != want {
			t.Errorf("Detect(%q) = %q, want %q", in, got, want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		b := make([]byte, 1+r.IntN(4000))
		for j := range b {
			b[j] = byte(r.UintN(256))
		}
		if got := Detect(b); got != FormUnknown {
			t.Errorf("random input %d (%d bytes) detected as %q", i, len(b), got)
		}
	}
}
