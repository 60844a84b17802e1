package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rocekit/rocekit/report"
)

// ErrInvalidPlan is wrapped by Plan.Run's errors about the plan itself.
var ErrInvalidPlan = errors.New("fleet: invalid plan")

// Measurer measures one pair of a fleet: a serves, b is the client. slot
// is the pair's place in its round (0, 1, ...), for what must differ
// between pairs running at once on one host (TCP ports). It returns the
// cell whatever happened; a failure is a cell with OK false and its
// error. It must end when ctx ends.
type Measurer interface {
	Measure(ctx context.Context, a, b Host, slot int) Cell
}

// MeasurerFunc adapts a function to Measurer.
type MeasurerFunc func(ctx context.Context, a, b Host, slot int) Cell

// Measure calls f.
func (f MeasurerFunc) Measure(ctx context.Context, a, b Host, slot int) Cell {
	return f(ctx, a, b, slot)
}

// Plan is a fleet run: the hosts, the schedule of pairs over them, how a
// pair is measured, and where the cells are kept.
type Plan struct {
	// Name identifies the run in the store: a run with the same name
	// resumes, skipping the pairs measured already.
	Name string
	// Hosts are the fleet; Schedule pairs them (by index).
	Hosts    []Host
	Schedule Schedule
	// Measurer measures a pair (PerftestMeasurer, NetperfMeasurer).
	Measurer Measurer
	// PairDeadline bounds each pair; 0 leaves it to the measurer.
	PairDeadline time.Duration
	// Store, when set, keeps every cell as it is measured (fsynced), and
	// is read first to resume.
	Store *report.Store
	// Progress, when set, gets a line per pair with the time left.
	Progress io.Writer
}

// Run measures the plan's pairs round after round, the pairs of a round
// at the same time. With a Store, pairs already measured under the same
// Name are read from it (Cell.Resumed) and not run again, failed ones are
// run again, and each new cell is appended as soon as it ends, so an
// interrupted run loses at most the pairs that were running. When ctx
// ends, the pairs not measured are listed in Matrix.Unmeasured and the
// error is ctx's cause; the matrix is returned whatever happened. A
// failed pair is a cell with OK false, not an error of Run.
//
// Similar to: a shell loop over host pairs with ssh, a results file and "skip if already in results"
func (p Plan) Run(ctx context.Context) (*Matrix, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	m := &Matrix{Name: p.Name}
	for _, h := range p.Hosts {
		m.Hosts = append(m.Hosts, h.Name)
	}
	var done *resumed
	if p.Store != nil {
		var err error
		if done, err = resume(p.Store, p.Name, m.Hosts); err != nil {
			return nil, fmt.Errorf("fleet: resume from %s: %w", p.Store.Path(), err)
		}
	}
	todo := p.Schedule.Without(func(pr Pair) bool { return done.has(pr.normal()) })
	prog := &progress{w: p.Progress, total: todo.Len(), start: time.Now()}
	if done.Len() > 0 {
		prog.printf("resuming %s: %d pairs in the store, %d to measure in %d rounds", p.Name, done.Len(), todo.Len(), len(todo.Rounds))
	}
	cells := map[Pair]Cell{} // measured in this run; the resumed ones stay compact in done
	var mu sync.Mutex
	var storeErr error
	for ri, round := range todo.Rounds {
		if ctx.Err() != nil {
			break
		}
		prog.printf("round %d/%d: %d pairs", ri+1, len(todo.Rounds), len(round))
		var wg sync.WaitGroup
		for slot, pr := range round {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := p.measure(ctx, pr, slot)
				if ctx.Err() != nil && !c.OK {
					return // cut short by the run's end: not measured
				}
				mu.Lock()
				defer mu.Unlock()
				cells[pr.normal()] = c
				if p.Store != nil {
					if err := p.Store.Append(CellRound(p.Name, c)); err != nil && storeErr == nil {
						storeErr = err
					}
				}
				prog.pair(c)
			}()
		}
		wg.Wait()
	}
	m.Cells = make([]Cell, 0, p.Schedule.Len())
	for _, pr := range p.Schedule.Pairs() {
		c, ok := cells[pr.normal()]
		if !ok {
			c, ok = done.cell(pr.normal())
		}
		if ok {
			m.Cells = append(m.Cells, c)
		} else {
			m.Unmeasured = append(m.Unmeasured, pr.normal())
		}
	}
	if err := context.Cause(ctx); err != nil && len(m.Unmeasured) > 0 {
		return m, err
	}
	return m, storeErr
}

// measure runs one pair under the pair deadline and fills what the
// measurer may have left out.
func (p Plan) measure(ctx context.Context, pr Pair, slot int) Cell {
	if p.PairDeadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, p.PairDeadline, ErrPairDeadline)
		defer cancel()
	}
	start := time.Now()
	a, b := p.Hosts[pr.A], p.Hosts[pr.B]
	c := p.Measurer.Measure(ctx, a, b, slot)
	c.Pair, c.A, c.B = pr.normal(), a.Name, b.Name
	if c.Start.IsZero() {
		c.Start = start
	}
	if c.Elapsed == 0 {
		c.Elapsed = time.Since(start)
	}
	if !c.OK && c.Error == "" {
		c.Error = "no result"
		if c.Err != nil {
			c.Error = c.Err.Error()
		}
	}
	return c
}

// ErrPairDeadline is the cause of a pair's context when Plan.PairDeadline
// passed.
var ErrPairDeadline = errors.New("fleet: pair deadline passed")

func (p Plan) check() error {
	if p.Name == "" {
		return fmt.Errorf("%w: no name", ErrInvalidPlan)
	}
	if p.Measurer == nil {
		return fmt.Errorf("%w: no measurer", ErrInvalidPlan)
	}
	if err := checkHosts(p.Hosts); err != nil {
		return err
	}
	if p.Schedule.Hosts != len(p.Hosts) {
		return fmt.Errorf("%w: schedule for %d hosts, %d given", ErrInvalidPlan, p.Schedule.Hosts, len(p.Hosts))
	}
	return p.Schedule.Check(len(p.Hosts))
}

// progress prints a line per pair with the time left, estimated from the
// pairs done so far.
type progress struct {
	mu          sync.Mutex
	w           io.Writer
	total, done int
	start       time.Time
}

func (p *progress) printf(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *progress) pair(c Cell) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	elapsed := time.Since(p.start)
	eta := "ETA 0s"
	if p.done < p.total {
		eta = "ETA " + (elapsed / time.Duration(p.done) * time.Duration(p.total-p.done)).Round(time.Second).String()
	}
	what := formatGbps(c.BWGbps) + " Gbit/s"
	if !c.OK {
		what = "FAILED: " + c.Error
	}
	fmt.Fprintf(p.w, "[%d/%d] %s–%s: %s (%s, %s elapsed, %s)\n", p.done, p.total, c.A, c.B, what,
		c.Elapsed.Round(100*time.Millisecond), elapsed.Round(time.Second), eta)
}
