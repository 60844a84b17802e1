package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rocekit/rocekit/runbook"
)

// Progress shows which step of a long run is going, with the elapsed time
// and an estimate of the time left from the steps done so far. On a
// terminal it rewrites one status line; elsewhere (CI logs, pipes) it
// prints one plain line per step.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	total int
	done  int
	start time.Time
	now   func() time.Time
}

// Progress tells runbook.RepeatPair and Sides.PrepareRXE's steps.
var _ runbook.Progress = (*Progress)(nil)

// NewProgress reports on w a run of total steps. w is treated as a
// terminal when it is an *os.File on a character device.
func NewProgress(w io.Writer, total int) *Progress {
	p := &Progress{w: w, total: total, now: time.Now}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	p.start = p.now()
	return p
}

// Step announces the next step; the previous one counts as done.
func (p *Progress) Step(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := p.now().Sub(p.start)
	eta := "ETA unknown"
	// Under a second of history says nothing of the steps to come (a
	// first step that only read a file gave "ETA 0s" for a 30 s run).
	if p.done > 0 && p.total > p.done && elapsed >= time.Second {
		left := time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))
		eta = "ETA " + left.Round(time.Second).String()
	}
	line := fmt.Sprintf("[%d/%d] %s (%s elapsed, %s)", p.done+1, p.total, fmt.Sprintf(format, args...),
		elapsed.Round(time.Second), eta)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.done++
}

// Done ends the status line and prints the total time.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "done: %d steps in %s\n", p.done, p.now().Sub(p.start).Round(time.Second))
}
