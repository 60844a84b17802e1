package irq

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// ThreadStat is what a thread's /proc/<pid>/task/<tid>/stat says of its CPU
// time: its name, its user and system time since it started, in USER_HZ
// ticks (1/100 s, as /proc/stat), and the CPU it last ran on.
type ThreadStat struct {
	PID  int    `json:"pid,omitempty"` // the process (thread group); 0 when read from a lone stat line
	TID  int    `json:"tid"`
	Comm string `json:"comm"` // "ib_send_bw", "kworker/u8:2-rxe_wq", "ksoftirqd/3"
	// State is the one-letter state ("R", "S", "I").
	State string `json:"state,omitempty"`
	UTime uint64 `json:"utime"`
	STime uint64 `json:"stime"`
	// Processor is the CPU the thread last ran on (field 39).
	Processor int `json:"cpu"`
}

// ParseThreadStat parses one /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat
// line. The name sits between the first "(" and the last ")": a thread may
// name itself "a (b) c" (prctl PR_SET_NAME), so nothing after the first
// ")" can be trusted to end it. A line too short to hold field 39 (kernels
// before 2.2) keeps what it has, with Processor -1, and an error.
func ParseThreadStat(line []byte) (ThreadStat, error) {
	t := ThreadStat{Processor: -1}
	s := strings.TrimRight(string(line), "\n")
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return t, threadParseError(s, "no (comm)")
	}
	tid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil || tid <= 0 {
		return t, threadParseError(s, "bad tid")
	}
	t.TID, t.Comm = tid, s[open+1:end]
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state); field N is f[N-3].
	if len(f) < 13 {
		return t, threadParseError(s, fmt.Sprintf("%d fields after the name, want at least 13", len(f)))
	}
	t.State = f[0]
	if t.UTime, err = strconv.ParseUint(f[11], 10, 64); err != nil {
		return t, threadParseError(s, "bad utime "+strconv.Quote(f[11]))
	}
	if t.STime, err = strconv.ParseUint(f[12], 10, 64); err != nil {
		return t, threadParseError(s, "bad stime "+strconv.Quote(f[12]))
	}
	if len(f) < 37 {
		return t, threadParseError(s, "no processor field (39)")
	}
	p, err := strconv.Atoi(f[36])
	if err != nil || p < 0 || p > sysfs.MaxCPUID {
		return t, threadParseError(s, "bad processor "+strconv.Quote(f[36]))
	}
	t.Processor = p
	return t, nil
}

func threadParseError(line, why string) error {
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	return fmt.Errorf("%w: thread stat %q: %s", ErrParse, line, why)
}

// ThreadSnapshot is every thread's CPU time at one moment. Threads that
// had used no CPU time yet are left out (their growth is all they will
// show), which keeps a host's snapshot small enough to cross the peer
// protocol in a runbook.Counters.
type ThreadSnapshot struct {
	Time    time.Time    `json:"time"`
	Threads []ThreadStat `json:"threads,omitempty"`
}

// Threads reads every thread's stat file under /proc (procfs shows the
// host's threads in any network namespace). Threads that end while it
// reads are skipped; a stat file that does not parse is an error, joined,
// and the others are kept.
//
// Similar to: ps -eLo pid,tid,comm,psr,utime,stime
func (fs Root) Threads() (ThreadSnapshot, error) {
	snap := ThreadSnapshot{Time: time.Now()}
	fsys := fs.root().FS()
	procs, err := iofs.ReadDir(fsys, fs.procPath())
	if err != nil {
		return snap, err
	}
	var errs []error
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid <= 0 {
			continue
		}
		tasks, err := iofs.ReadDir(fsys, fs.procPath(p.Name(), "task"))
		if err != nil {
			continue // the process ended
		}
		for _, task := range tasks {
			b, err := fs.readFile(fs.procPath(p.Name(), "task", task.Name(), "stat"))
			if err != nil {
				if !isGone(err) {
					errs = append(errs, err)
				}
				continue
			}
			t, err := ParseThreadStat(b)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", filepath.Join("/proc", p.Name(), "task", task.Name(), "stat"), err))
				if t.TID == 0 {
					continue
				}
			}
			t.PID = pid
			if t.UTime+t.STime > 0 {
				snap.Threads = append(snap.Threads, t)
			}
		}
	}
	return snap, errors.Join(errs...)
}

// isGone reports an error of a thread that ended between the listing and
// the read (ENOENT, ESRCH).
func isGone(err error) bool {
	return errors.Is(err, iofs.ErrNotExist) || strings.Contains(err.Error(), "no such process")
}

// ReadThreadStats parses stat lines, one a line (a capture of
// `cat /proc/*/task/*/stat`), keeping those that parse; the others are
// joined in the error.
func ReadThreadStats(r io.Reader) ([]ThreadStat, error) {
	b, err := io.ReadAll(io.LimitReader(r, sysfs.MaxFileBytes))
	if err != nil {
		return nil, err
	}
	var out []ThreadStat
	var errs []error
	for n, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		t, err := ParseThreadStat(line)
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", n+1, err))
			if t.TID == 0 {
				continue
			}
		}
		out = append(out, t)
	}
	return out, errors.Join(errs...)
}

// ThreadLoad is one thread's CPU time between two snapshots.
type ThreadLoad struct {
	PID  int    `json:"pid"`
	TID  int    `json:"tid"`
	Comm string `json:"comm"`
	// CPU is where the thread last ran in the later snapshot: the time is
	// put there, though a thread that moved ran part of it elsewhere.
	CPU       int    `json:"cpu"`
	UserTicks uint64 `json:"user_ticks"`
	SysTicks  uint64 `json:"sys_ticks"`
}

// Ticks is the thread's user and system time together.
func (t ThreadLoad) Ticks() uint64 { return t.UserTicks + t.SysTicks }

// Role says what a thread is to a network run: rdma_rxe's work queue,
// softirq deferred to ksoftirqd, a threaded IRQ handler, another kernel
// worker, or "" for a program (the tool itself, by its name).
func (t ThreadLoad) Role() string {
	c := t.Comm
	switch {
	case strings.HasPrefix(c, "kworker/") && strings.Contains(c, "rxe"):
		return "rdma_rxe's work queue (rxe_wq): its packet processing, counted as system time"
	case strings.HasPrefix(c, "ksoftirqd/"):
		return "softirq deferred to ksoftirqd: the core could not keep up in interrupt context"
	case strings.HasPrefix(c, "irq/"):
		return "a threaded IRQ handler"
	case strings.HasPrefix(c, "kworker/u"):
		// An unbound worker's name ends with the queue of its last work
		// item: one that ran rxe_wq's work all along can read
		// events_unbound by the time it is read (seen in the lab on 6.12).
		return "an unbound kernel worker (named after its last work item's queue; rxe_wq's work runs on these)"
	case strings.HasPrefix(c, "kworker/"):
		return "a kernel worker"
	}
	return ""
}

// Sub returns the threads that used CPU time between before and after
// (this snapshot), after.Sub(before), most ticks first (ties by TID). A thread missing from before
// (new, or idle until then) counts from 0; one missing from after ended
// and is left out.
func (after ThreadSnapshot) Sub(before ThreadSnapshot) []ThreadLoad {
	type key struct{ pid, tid int }
	was := make(map[key]ThreadStat, len(before.Threads))
	for _, t := range before.Threads {
		was[key{t.PID, t.TID}] = t
	}
	var out []ThreadLoad
	for _, a := range after.Threads {
		b := was[key{a.PID, a.TID}]
		if b.Comm != "" && b.UTime+b.STime > a.UTime+a.STime {
			b = ThreadStat{} // the TID was reused
		}
		l := ThreadLoad{PID: a.PID, TID: a.TID, Comm: a.Comm, CPU: a.Processor,
			UserTicks: sub(b.UTime, a.UTime), SysTicks: sub(b.STime, a.STime)}
		if l.Ticks() > 0 {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(x, y ThreadLoad) int {
		if d := int64(y.Ticks()) - int64(x.Ticks()); d != 0 {
			if d > 0 {
				return 1
			}
			return -1
		}
		return x.TID - y.TID
	})
	return out
}

// OnCPU returns the threads of ts that ran last on cpu, in ts's order.
func OnCPU(ts []ThreadLoad, cpu int) []ThreadLoad {
	var out []ThreadLoad
	for _, t := range ts {
		if t.CPU == cpu {
			out = append(out, t)
		}
	}
	return out
}

// DescribeThreads names up to max threads that took at least 5 % of a
// core's interval of ticks (its CPULoad.Ticks): "kworker/u8:2-rxe_wq
// (tid 311) 62 % system [rdma_rxe's work queue ...]; ib_send_bw (pid
// 900, tid 900) 30 % user". "" when none did, or ticks is 0.
func DescribeThreads(ts []ThreadLoad, ticks uint64, max int) string {
	if ticks == 0 {
		return ""
	}
	var parts []string
	for _, t := range ts {
		if len(parts) == max {
			break
		}
		if 100*t.Ticks() < 5*ticks {
			continue
		}
		pct := func(v uint64) float64 { return 100 * float64(v) / float64(ticks) }
		s := fmt.Sprintf("%s (pid %d, tid %d) %.0f %% system, %.0f %% user", t.Comm, t.PID, t.TID, pct(t.SysTicks), pct(t.UserTicks))
		if r := t.Role(); r != "" {
			s += " [" + r + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
