package perftest

import (
	"bytes"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// expand does what expand(1) does, and what a terminal copy, most CI log
// viewers and web pages do to perftest's output: every TAB becomes the
// spaces up to the next multiple of 8 columns.
func expand(in []byte) []byte {
	var out bytes.Buffer
	col := 0
	for _, c := range in {
		switch c {
		case '\t':
			n := 8 - col%8
			out.Write(bytes.Repeat([]byte{' '}, n))
			col += n
		case '\n':
			out.WriteByte(c)
			col = 0
		default:
			out.WriteByte(c)
			col++
		}
	}
	return out.Bytes()
}

func TestExpand(t *testing.T) {
	got := string(expand([]byte(" Dual-port       : OFF\t\tDevice         : rxe0\n rdma_cm QPs\t : OFF\n")))
	want := " Dual-port       : OFF          Device         : rxe0\n rdma_cm QPs     : OFF\n"
	if got != want {
		t.Fatalf("expand = %q, want %q", got, want)
	}
}

// Every lab capture parses to the same header, rows, warnings and error
// after expand(1) as it does intact: the header pairs are split by key, not
// by TAB, and rows by any run of blanks. (Before the split by key, an
// expanded "Dual-port : OFF          Device : rxe0" gave an empty device,
// 0 QPs and the connection "RC           Using SRQ      : OFF".)
func TestCapturesExpanded(t *testing.T) {
	files, _ := filepath.Glob("../rocekittest/captures/*/perftest/*/*.stdout")
	if len(files) == 0 {
		t.Fatal("no lab captures")
	}
	// And the real-world outputs whose TABs survived.
	rw, _ := filepath.Glob(realWorldSeeds)
	files = append(files, rw...)
	opts := cmp.Options{cmpopts.EquateNaNs(), cmpopts.EquateComparable(netip.Addr{}),
		cmpopts.IgnoreFields(Warning{}, "Text"), cmpopts.IgnoreFields(Error{}, "Raw", "Message")}
	n := 0
	for _, file := range files {
		in, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(in, []byte("\t")) || Detect(in) == FormBare {
			continue
		}
		n++
		rel, _ := filepath.Rel("../testdata", file)
		t.Run(rel, func(t *testing.T) {
			want, wantErr := Parse(bytes.NewReader(in))
			got, gotErr := Parse(bytes.NewReader(expand(in)))
			if d := cmp.Diff(want, got, opts); d != "" {
				t.Errorf("expanded parse differs (-intact +expanded):\n%s", d)
			}
			if !sameError(wantErr, gotErr) {
				t.Errorf("err %v, expanded %v", wantErr, gotErr)
			}
			if want.Header.Device == "" && want.Test != "" {
				t.Errorf("intact capture has no device")
			}
		})
	}
	if n < 45 {
		t.Errorf("only %d captures with TABs", n)
	}
}

// sameError reports whether two parse errors are of the same kind and
// line.
func sameError(a, b error) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	var pa, pb *ParseError
	if errors.As(a, &pa) != errors.As(b, &pb) {
		return false
	}
	if pa != nil {
		return pa.Line == pb.Line && pa.Err == pb.Err
	}
	var ea, eb *Error
	if errors.As(a, &ea) && errors.As(b, &eb) {
		return ea.Kind == eb.Kind
	}
	return errors.Is(b, errors.Unwrap(a))
}
