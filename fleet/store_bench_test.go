package fleet

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/report"
)

// writeCells writes the all-pairs cells of n hosts to a store file as
// Plan.Run appends them (CellRound, one JSON line each), with real NIC
// names and every 50th pair failed, and returns the file, its hosts and its number of good cells.
func writeCells(tb testing.TB, n int) (string, []string, int) {
	tb.Helper()
	m := synthetic(n, func(a, b int) float64 {
		if (a*7+b)%50 == 0 {
			return -1
		}
		return noisy(a, b)
	})
	path := filepath.Join(tb.TempDir(), "fleet.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	good := 0
	for i, c := range m.Cells {
		if c.OK {
			good++
		}
		c.ANIC, c.BNIC = "enp59s0f0np0", "enp59s0f0np0"
		c.Start, c.Elapsed = start.Add(time.Duration(i)*time.Second), 31*time.Second
		line, err := json.Marshal(CellRound("rack12", c))
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(append(line, '\n'))
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return path, m.Hosts, good
}

// peakHeap samples the heap in use (HeapInuse: the heap's objects and
// the free room in their spans) every 10 ms until stop is called and
// returns the highest value seen, in bytes. It reads runtime/metrics,
// which does not stop the world as runtime.ReadMemStats does: 100 stops a
// second would slow what is measured.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64() + sample[1].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// cpuTime is the CPU time the process used so far, user and system: a
// figure that, unlike the wall time, the other loads of a shared machine
// barely change.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkResume500k is the resume of a 1,000-host all-pairs run from
// its store (issue 26 item 5): 499,500 stored cells read back as the
// pairs to skip. Goal: at most 5 s and 200 MB. It reports the store's
// size, the peak heap in use while resuming (peak-MB), the heap the
// resumed cells hold (live-MB), the bytes allocated (alloc-MB) and the
// CPU time the resume took on all cores (cpu-s).
func BenchmarkResume500k(b *testing.B) {
	if testing.Short() {
		b.Skip("half a million cells")
	}
	path, hosts, good := writeCells(b, 1000)
	st, _ := os.Stat(path)
	store := report.OpenStore(path)
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		stop := peakHeap()
		cpu0 := cpuTime()
		done, err := resume(store, "rack12", hosts)
		b.ReportMetric((cpuTime() - cpu0).Seconds(), "cpu-s")
		peak := stop()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/1e6, "alloc-MB")
		if err != nil {
			b.Fatal(err)
		}
		if done.Len() != good {
			b.Fatalf("%d pairs to skip, want %d", done.Len(), good)
		}
		b.ReportMetric(float64(peak)/1e6, "peak-MB")
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "live-MB")
		b.ReportMetric(float64(st.Size())/1e6, "store-MB")
		runtime.KeepAlive(done)
	}
}
