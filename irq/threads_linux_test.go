package irq

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"unsafe"

	"golang.org/x/sys/unix"
)

// TestHostBusyThread: a goroutine on its own thread, named rocekit-busy
// and pinned to CPU 1 with taskset, spins in system calls; between two
// Threads snapshots it is one of the busiest threads on CPU 1, with
// system time, and DescribeThreads names it. No timing is asserted: the
// loop runs until the thread has used 30 ticks of system time.
func TestHostBusyThread(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("no taskset")
	}
	fs := hostFS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tidc := make(chan int)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // the thread ends with the goroutine
		if err := unix.Prctl(unix.PR_SET_NAME, uintptr(unsafePtr("rocekit-busy")), 0, 0, 0); err != nil {
			t.Error(err)
		}
		tidc <- unix.Gettid()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for range 1000 {
				unix.Getppid()
			}
		}
	}()
	tid := <-tidc
	defer func() { close(stop); <-done }()
	if out, err := exec.Command("taskset", "-p", "-c", "1", strconv.Itoa(tid)).CombinedOutput(); err != nil {
		t.Fatalf("taskset: %v: %s", err, out)
	}
	before, err := fs.Threads()
	if err != nil {
		t.Logf("before: %v", err)
	}
	self := func() ThreadStat {
		b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseThreadStat(b)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	start := self()
	for self().STime < start.STime+30 {
		if ctx.Err() != nil {
			t.Fatal("the busy thread did not get 30 ticks of system time")
		}
		time.Sleep(50 * time.Millisecond)
	}
	after, err := fs.Threads()
	if err != nil {
		t.Logf("after: %v", err)
	}
	on1 := OnCPU(after.Sub(before), 1)
	var mine *ThreadLoad
	for i := range on1 {
		if on1[i].TID == tid {
			mine = &on1[i]
			if i > 2 {
				t.Errorf("the busy thread is %d. on CPU 1: %+v", i+1, on1[:i+1])
			}
		}
	}
	if mine == nil {
		t.Fatalf("tid %d not on CPU 1: %+v", tid, on1)
	}
	if mine.Comm != "rocekit-busy" || mine.PID != os.Getpid() || mine.SysTicks < 30 {
		t.Errorf("busy thread %+v", *mine)
	}
	d := DescribeThreads([]ThreadLoad{*mine}, mine.Ticks(), 1)
	if !strings.HasPrefix(d, "rocekit-busy (pid "+strconv.Itoa(os.Getpid())+", tid "+strconv.Itoa(tid)+")") {
		t.Errorf("DescribeThreads = %q", d)
	}
	t.Logf("CPU 1: %s", DescribeThreads(on1, on1[0].Ticks(), 3))
}

func unsafePtr(s string) unsafe.Pointer {
	b := append([]byte(s), 0)
	return unsafe.Pointer(&b[0])
}

// BenchmarkHostThreads reads every thread of this host, as Counters does
// twice a round; threads/op says how many there were.
func BenchmarkHostThreads(b *testing.B) {
	fs, err := DefaultRoot()
	if err != nil {
		b.Skip(err)
	}
	n := 0
	for b.Loop() {
		s, _ := fs.Threads()
		n = len(s.Threads)
	}
	b.ReportMetric(float64(n), "threads/op")
}
