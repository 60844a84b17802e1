package irq

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestReadThreadStatsCaptures parses the real captures: a Go program's
// threads, kernel threads (kworkers named after their work queue,
// ksoftirqd), and a comm with spaces and parentheses.
func TestReadThreadStatsCaptures(t *testing.T) {
	ts, err := ReadThreadStats(bytes.NewReader(readFixture(t, "threads/odd-comm.stat")))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 {
		t.Fatalf("%d threads, want 2", len(ts))
	}
	main, second := ts[0], ts[1]
	if main.TID != 30590 || main.Comm != "x (y) z)" || main.State != "R" || main.UTime != 5 || main.STime != 2 || main.Processor != 1 {
		t.Errorf("main thread %+v", main)
	}
	// exit_signal (field 38) is -1 for a thread that is not the leader;
	// processor (39) follows it.
	if second.TID != 30738 || second.Comm != "x (y) z)" || second.State != "S" || second.UTime != 0 || second.Processor != 0 {
		t.Errorf("second thread %+v", second)
	}

	ks, err := ReadThreadStats(bytes.NewReader(readFixture(t, "threads/kthreads.stat")))
	if err != nil {
		t.Fatal(err)
	}
	byComm := map[string]ThreadStat{}
	for _, k := range ks {
		byComm[k.Comm] = k
	}
	if k, ok := byComm["kworker/R-rcu_gp"]; !ok || k.TID != 4 || k.State != "I" || k.Processor != 0 {
		t.Errorf("kworker/R-rcu_gp = %+v (%v)", k, ok)
	}
	if k, ok := byComm["kthreadd"]; !ok || k.TID != 2 {
		t.Errorf("kthreadd = %+v", k)
	}
	soft := 0
	for _, k := range ks {
		if strings.HasPrefix(k.Comm, "ksoftirqd/") {
			soft++
			if (ThreadLoad{Comm: k.Comm}).Role() == "" {
				t.Errorf("%s has no role", k.Comm)
			}
		}
	}
	if soft != 2 {
		t.Errorf("%d ksoftirqd threads, want 2 (one per CPU)", soft)
	}

	self, err := ReadThreadStats(bytes.NewReader(readFixture(t, "threads/self-task.stat")))
	if err != nil || len(self) < 2 {
		t.Fatalf("%d threads, err %v", len(self), err)
	}
	for _, s := range self {
		if s.Comm != "capture" || s.Processor < 0 || s.Processor > 1 {
			t.Errorf("self thread %+v", s)
		}
	}
}

// TestParseThreadStatBad: mangled variants of a real line give a typed
// error, and what was read before the bad field is kept.
func TestParseThreadStatBad(t *testing.T) {
	real := strings.Split(string(readFixture(t, "threads/odd-comm.stat")), "\n")[0]
	cut := func(n int) string {
		f := strings.Fields(real[strings.LastIndexByte(real, ')')+1:])
		return real[:strings.LastIndexByte(real, ')')+1] + " " + strings.Join(f[:n], " ")
	}
	for _, c := range []struct {
		name, line string
		keepTID    bool
	}{
		{"empty", "", false},
		{"no parentheses", "12 foo R 1 2", false},
		{"bad tid", "x" + real, false},
		{"short", cut(5), true},
		{"no processor", cut(30), true},
		{"bad utime", strings.Replace(real, " 5 2 5 5 ", " five 2 5 5 ", 1), true},
	} {
		got, err := ParseThreadStat([]byte(c.line))
		if !errors.Is(err, ErrParse) {
			t.Errorf("%s: err %v, want ErrParse", c.name, err)
		}
		if c.keepTID && (got.TID != 30590 || got.Comm != "x (y) z)") {
			t.Errorf("%s: kept %+v", c.name, got)
		}
		if got.Processor != -1 {
			t.Errorf("%s: processor %d, want -1", c.name, got.Processor)
		}
	}
	// A bad line among good ones: the others are kept.
	b := readFixture(t, "threads/odd-comm.stat")
	ts, err := ReadThreadStats(bytes.NewReader(append([]byte("garbage\n"), b...)))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 1") || len(ts) != 2 {
		t.Errorf("err %v, %d threads", err, len(ts))
	}
}

// TestThreadsBetween: growth per thread, new threads from 0, ended ones
// left out, a reused TID from 0; most ticks first.
func TestThreadsBetween(t *testing.T) {
	before := ThreadSnapshot{Time: time.Unix(0, 0), Threads: []ThreadStat{
		{PID: 10, TID: 10, Comm: "ib_send_bw", UTime: 100, STime: 5, Processor: 1},
		{PID: 2, TID: 311, Comm: "kworker/u8:2-rxe_wq", STime: 40, Processor: 3},
		{PID: 7, TID: 7, Comm: "gone", UTime: 9},
		{PID: 8, TID: 8, Comm: "old", UTime: 500},
	}}
	after := ThreadSnapshot{Time: time.Unix(10, 0), Threads: []ThreadStat{
		{PID: 10, TID: 10, Comm: "ib_send_bw", UTime: 400, STime: 25, Processor: 1},
		{PID: 2, TID: 311, Comm: "kworker/u8:2-rxe_wq", STime: 940, Processor: 3},
		{PID: 2, TID: 40, Comm: "ksoftirqd/3", STime: 50, Processor: 3},
		{PID: 8, TID: 8, Comm: "new", UTime: 3, Processor: 0},
	}}
	got := after.Sub(before)
	want := []ThreadLoad{
		{PID: 2, TID: 311, Comm: "kworker/u8:2-rxe_wq", CPU: 3, SysTicks: 900},
		{PID: 10, TID: 10, Comm: "ib_send_bw", CPU: 1, UserTicks: 300, SysTicks: 20},
		{PID: 2, TID: 40, Comm: "ksoftirqd/3", CPU: 3, SysTicks: 50},
		{PID: 8, TID: 8, Comm: "new", CPU: 0, UserTicks: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	on3 := OnCPU(got, 3)
	d := DescribeThreads(on3, 1000, 2)
	if !strings.HasPrefix(d, "kworker/u8:2-rxe_wq (pid 2, tid 311) 90 % system, 0 % user [rdma_rxe's work queue") ||
		!strings.Contains(d, "; ksoftirqd/3 (pid 2, tid 40) 5 % system") {
		t.Errorf("DescribeThreads = %q", d)
	}
	if d := DescribeThreads(on3, 0, 2); d != "" {
		t.Errorf("no ticks: %q", d)
	}
	if d := DescribeThreads(OnCPU(got, 0), 1000, 2); d != "" {
		t.Errorf("under 5 %%: %q", d)
	}
}

func FuzzParseThreadStat(f *testing.F) {
	for _, p := range []string{"threads/odd-comm.stat", "threads/kthreads.stat", "threads/self-task.stat"} {
		for _, l := range strings.Split(string(readFixture(f, p)), "\n") {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte("1 () R"))
	f.Add([]byte("1 ()) ("))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseThreadStat(b)
		if err == nil && (s.TID <= 0 || s.Processor < 0) {
			t.Fatalf("no error but %+v", s)
		}
		if err != nil && !errors.Is(err, ErrParse) {
			t.Fatalf("untyped error %v", err)
		}
		if _, err := ReadThreadStats(bytes.NewReader(b)); err != nil && !errors.Is(err, ErrParse) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

// BenchmarkParseThreadStat parses the real kthreads capture line by line.
func BenchmarkParseThreadStat(b *testing.B) {
	data := readFixture(b, "threads/kthreads.stat")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadThreadStats(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
