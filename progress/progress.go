// Package progress prints which step of a long run is going, with the
// elapsed time and an estimate of the time left from the steps done so
// far: the status line of the examples, for a framework's own runs.
// A *Printer is a runbook.Progress (Step), so runbook.RepeatPair,
// Sides.PrepareRXE and the workflow steps tell it of their steps.
//
// It is a leaf (it imports nothing of the module), so that any layer may
// take one without importing runbook.
//
// Similar to: pv's ETA, for steps instead of bytes.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Printer reports a run of a known number of steps. On a terminal it
// rewrites one status line; elsewhere (CI logs, pipes) it prints one
// plain line per step. It is safe for concurrent use.
type Printer struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	total int
	done  int
	start time.Time
	now   func() time.Time
}

// New reports on w a run of total steps (0 or less: not known, no ETA).
// w is treated as a terminal when it is an *os.File on a character
// device.
func New(w io.Writer, total int) *Printer {
	p := &Printer{w: w, total: total, now: time.Now}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	p.start = p.now()
	return p
}

// minHistory is the least elapsed time an ETA is made from: under a
// second says nothing of the steps to come (a first step that only read
// a file gave "ETA 0s" for a 30 s run).
const minHistory = time.Second

// Step announces the next step; the previous one counts as done. A step
// past the total grows the total, so the count never reads "[5/4]".
func (p *Printer) Step(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := p.now().Sub(p.start)
	if p.total > 0 && p.done >= p.total {
		p.total = p.done + 1
	}
	eta := "ETA unknown"
	if p.done > 0 && p.total > p.done && elapsed >= minHistory {
		left := time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))
		eta = "ETA " + left.Round(time.Second).String()
	}
	count := fmt.Sprintf("[%d/%d]", p.done+1, p.total)
	if p.total <= 0 {
		count = fmt.Sprintf("[%d]", p.done+1)
	}
	line := fmt.Sprintf("%s %s (%s elapsed, %s)", count, fmt.Sprintf(format, args...), elapsed.Round(time.Second), eta)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.done++
}

// Done ends the status line and prints the steps made and the total
// time.
func (p *Printer) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "done: %d steps in %s\n", p.done, p.now().Sub(p.start).Round(time.Second))
}
