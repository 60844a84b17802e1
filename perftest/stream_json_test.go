package perftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// streamCaptures are the captured text outputs with a table, the form
// WriteStreamJSON reads.
func streamCaptures(t testing.TB) map[string][]byte {
	files, _ := filepath.Glob("../rocekittest/captures/*/perftest/*/client.stdout")
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch Detect(data) {
		case FormTextBW, FormTextLat, FormTextLatDuration:
			out[f] = data
		}
	}
	return out
}

// TestWriteStreamJSONMatchesMarshal: the streamed JSON of a real capture
// is the object Result.MarshalJSON writes for it read whole, and a parse
// error of the stream is one of ParseOutput's too.
func TestWriteStreamJSONMatchesMarshal(t *testing.T) {
	caps := streamCaptures(t)
	if len(caps) < 20 {
		t.Fatalf("only %d captures", len(caps))
	}
	for f, data := range caps {
		res, werr := ParseOutput(data, nil)
		whole, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var streamed bytes.Buffer
		serr := WriteStreamJSON(&streamed, bytes.NewReader(data))
		var pe *ParseError
		if serr != nil && (!errors.As(serr, &pe) || !errors.As(werr, &pe)) {
			t.Errorf("%s: streamed %v, whole %v", f, serr, werr)
		}
		var a, b map[string]any
		if err := json.Unmarshal(whole, &a); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := json.Unmarshal(streamed.Bytes(), &b); err != nil {
			t.Fatalf("%s: streamed JSON: %v\n%s", f, err, streamed.Bytes())
		}
		if _, ok := b["parse_error"]; ok != (serr != nil) {
			t.Errorf("%s: parse_error %v, error %v", f, b["parse_error"], serr)
		}
		delete(b, "parse_error")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: streamed object differs:\nwhole    %s\nstreamed %s", f, whole, streamed.Bytes())
		}
	}
}

// TestWriteStreamJSONGarbledRow: a row with a decimal comma is left out
// and named, with its line, in "parse_error"; the rows around it stay.
func TestWriteStreamJSONGarbledRow(t *testing.T) {
	data, err := os.ReadFile("../rocekittest/captures/trixie/perftest/send-bw-gbits/client.stdout")
	if err != nil {
		t.Fatal(err)
	}
	row := " 65536      300           0.102005            0.081929            0.000156\n"
	in := strings.Replace(string(data), row, row+strings.Replace(row, "0.081929", "0,081929", 1)+row, 1)
	var out bytes.Buffer
	serr := WriteStreamJSON(&out, strings.NewReader(in))
	var got struct {
		BW         []json.RawMessage `json:"bw"`
		ParseError ParseErrorJSON    `json:"parse_error"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.Bytes())
	}
	var pe *ParseError
	if !errors.As(serr, &pe) || len(got.BW) != 2 || got.ParseError.Kind != "garbled" || got.ParseError.Line != pe.Line || got.ParseError.Line != 24 {
		t.Errorf("err %v, JSON %s", serr, out.Bytes())
	}
}

// TestNewParseErrorJSON: a cut output is "truncated", anything else
// "garbled"; a *ParseError gives its line.
func TestNewParseErrorJSON(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind string
		line int
	}{
		{&ParseError{Line: 22, Msg: "no rows", Err: ErrTruncated, NoResult: true}, "truncated", 22},
		{&ParseError{Line: 9, Msg: "not a number", Err: ErrParse}, "garbled", 9},
		{&ParseError{Msg: "nothing perftest prints", Err: ErrUnrecognized, NoResult: true}, "garbled", 0},
		{errors.Join(errors.New("x"), &ParseError{Line: 4, Err: ErrTruncated}), "truncated", 4},
		{errors.New("read: EIO"), "garbled", 0},
	} {
		got := NewParseErrorJSON(c.err)
		if got.Kind != c.kind || got.Line != c.line || got.Message != c.err.Error() {
			t.Errorf("%v: %+v, want kind %q line %d", c.err, got, c.kind, c.line)
		}
	}
}

// FuzzWriteStreamJSON: whatever the input, the stream's JSON is one
// object, its error is nil or a *ParseError, and "parse_error" is there
// exactly when the error is.
func FuzzWriteStreamJSON(f *testing.F) {
	for _, data := range streamCaptures(f) {
		f.Add(string(data))
	}
	f.Add("")
	f.Add(" #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]\n 65536 1,0 x\n")
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		err := WriteStreamJSON(&out, strings.NewReader(in))
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error %v is no *ParseError", err)
		}
		var m map[string]json.RawMessage
		if jerr := json.Unmarshal(out.Bytes(), &m); jerr != nil {
			t.Fatalf("not one JSON object: %v\n%s", jerr, out.Bytes())
		}
		if _, ok := m["parse_error"]; ok != (err != nil) {
			t.Fatalf("parse_error present %v, error %v", ok, err)
		}
	})
}

// repeatRows is a perftest BW output of about size bytes: a real
// capture's header and table header, then its row over and over.
type repeatRows struct {
	head, row []byte
	left      int
}

func newRepeatRows(t testing.TB, size int) *repeatRows {
	data, err := os.ReadFile("../rocekittest/captures/trixie/perftest/send-bw-gbits/client.stdout")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("MsgRate[Mpps]\n")) + len("MsgRate[Mpps]\n")
	j := i + bytes.IndexByte(data[i:], '\n') + 1
	return &repeatRows{head: data[:i], row: data[i:j], left: size}
}

func (r *repeatRows) Read(p []byte) (int, error) {
	if r.head != nil {
		n := copy(p, r.head)
		r.head = r.head[n:]
		if len(r.head) == 0 {
			r.head = nil
		}
		return n, nil
	}
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := 0
	for n+len(r.row) <= len(p) && r.left > 0 {
		n += copy(p[n:], r.row)
		r.left -= len(r.row)
	}
	if n == 0 {
		return 0, io.ErrShortBuffer
	}
	return n, nil
}

// BenchmarkWriteStreamJSON1GiB writes the JSON of a 1 GiB perftest output
// as a stream and fails when the heap in use ever passes 64 MiB (read
// whole, a 200 MB file took 3 GB):
//
//	go test ./perftest -run '^$' -bench WriteStreamJSON1GiB -benchtime 1x
func BenchmarkWriteStreamJSON1GiB(b *testing.B) {
	const size = 1 << 30
	b.SetBytes(size)
	for b.Loop() {
		runtime.GC() // what earlier benchmarks left is not this one's heap
		var peak atomic.Uint64
		done := make(chan struct{})
		go func() {
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		err := WriteStreamJSON(io.Discard, newRepeatRows(b, size))
		close(done)
		if err != nil && !errors.Is(err, io.EOF) {
			b.Fatal(err)
		}
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		if peak.Load() > 64<<20 {
			b.Fatalf("heap in use reached %d MiB", peak.Load()>>20)
		}
	}
}
