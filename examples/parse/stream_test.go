package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestStreamMatchesWhole: the streamed JSON of a real capture is the same
// object as the JSON of the capture read whole.
func TestStreamMatchesWhole(t *testing.T) {
	files, _ := filepath.Glob("../../rocekittest/captures/*/perftest/*/client.stdout")
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !streamable(data) {
			continue
		}
		whole, werr := parse(data)
		var streamed bytes.Buffer
		serr := parseStream(bytes.NewReader(data), &streamed)
		if (werr == nil) != (serr == nil) {
			t.Errorf("%s: whole %v, streamed %v", f, werr, serr)
			continue
		}
		var a, b map[string]any
		if err := json.Unmarshal(whole, &a); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := json.Unmarshal(streamed.Bytes(), &b); err != nil {
			t.Fatalf("%s: streamed JSON: %v\n%s", f, err, streamed.Bytes())
		}
		delete(a, "parse_error") // the stream's line numbers may differ
		delete(b, "parse_error")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: streamed object differs:\nwhole    %s\nstreamed %s", f, whole, streamed.Bytes())
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d captures checked", checked)
	}
}

// repeatRows is a perftest BW output of about size bytes: a real
// capture's header and table header, then its row over and over.
type repeatRows struct {
	head, row []byte
	left      int
}

func newRepeatRows(t testing.TB, size int) *repeatRows {
	data, err := os.ReadFile("../../rocekittest/captures/trixie/perftest/send-bw-gbits/client.stdout")
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

// BenchmarkParseStream1GiB parses a 1 GiB perftest output as a stream and
// fails when the heap in use ever passes 64 MiB (read whole, a 200 MB
// file took 3 GB).
func BenchmarkParseStream1GiB(b *testing.B) {
	const size = 1 << 30
	b.SetBytes(size)
	for b.Loop() {
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
		err := parseStream(newRepeatRows(b, size), io.Discard)
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
