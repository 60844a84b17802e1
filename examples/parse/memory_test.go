package main

import (
	"bytes"
	"io"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// demoOutput is a netperf -D output of about size bytes: a real
// capture's banner, then its interim lines over and over, then its final
// table (netperf/testdata/loopback/tcp-stream-demo, netperf 2.7.0). It is
// generated as it is read, never held whole.
type demoOutput struct {
	head, interims, tail []byte
	left                 int
	pos                  int
}

func newDemoOutput(t testing.TB, size int) *demoOutput {
	data := []byte(readFile(t, capLoopback+"tcp-stream-demo/client.stdout"))
	i := bytes.Index(data, []byte("Interim result:"))
	j := bytes.Index(data, []byte("Recv "))
	if i < 0 || j < i {
		t.Fatal("tcp-stream-demo: no interim lines before the table")
	}
	return &demoOutput{head: data[:i], interims: data[i:j], tail: data[j:], left: size}
}

func (d *demoOutput) Read(p []byte) (int, error) {
	if len(d.head) > 0 {
		n := copy(p, d.head)
		d.head = d.head[n:]
		return n, nil
	}
	if d.left > 0 {
		n := 0
		for n < len(p) && d.left > 0 {
			c := copy(p[n:], d.interims[d.pos:])
			n += c
			d.left -= c
			d.pos = (d.pos + c) % len(d.interims)
		}
		if d.left <= 0 && d.pos != 0 {
			d.left = len(d.interims) - d.pos // end on a whole line
		}
		return n, nil
	}
	if len(d.tail) > 0 {
		n := copy(p, d.tail)
		d.tail = d.tail[n:]
		return n, nil
	}
	return 0, io.EOF
}

// peakHeap runs f and returns the highest heap in use seen while it ran
// (sampled every 10 ms, and at the end), and the bytes f allocated.
func peakHeap(f func()) (peak, allocated uint64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var p atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > p.Load() {
				p.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-sampled
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return max(p.Load(), after.HeapInuse), after.TotalAlloc - before.TotalAlloc
}

// countingWriter counts what parse writes and checks its end.
type countingWriter struct {
	n    int64
	last []byte
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.last = append(w.last[:0], p[max(0, len(p)-64):]...)
	return len(p), nil
}

// TestNetperfDemoMemory: 96 MiB of -D output (about 1.3 million interim
// lines, more than the bound itself) parse with the heap in use under
// 64 MiB, and every interim line
// is written out. Read whole, 200 MB took about 1 GB.
func TestNetperfDemoMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 96 MiB")
	}
	const size = 96 << 20
	var w countingWriter
	var err error
	peak, _ := peakHeap(func() { err = parseTo(newDemoOutput(t, size), &w) })
	if err != nil {
		t.Fatal(err)
	}
	if peak > 64<<20 {
		t.Errorf("heap in use reached %d MiB", peak>>20)
	}
	if w.n < size || !bytes.HasSuffix(w.last, []byte("}\n")) {
		t.Errorf("wrote %d bytes, ending %q", w.n, w.last)
	}
}

// BenchmarkParseNetperfDemo1GiB parses 1 GiB of netperf -D output through
// the command's reader and fails when the heap in use passes 64 MiB:
//
//	go test ./examples/parse -run '^$' -bench NetperfDemo1GiB -benchtime 1x
func BenchmarkParseNetperfDemo1GiB(b *testing.B) {
	const size = 1 << 30
	b.SetBytes(size)
	for b.Loop() {
		var err error
		peak, allocated := peakHeap(func() { err = parseTo(newDemoOutput(b, size), io.Discard) })
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(allocated)/size, "alloc-B/input-B")
		if peak > 64<<20 {
			b.Fatalf("heap in use reached %d MiB", peak>>20)
		}
	}
}
