package irq

import (
	"context"
	"errors"
	"sync"
	"time"
)

// LoadReport is what a LoadSampler saw.
type LoadReport struct {
	// Intervals holds one Load per interval, in order; the last one may
	// be shorter (it ends when the sampler stops).
	Intervals []Load
	// Overall is the load from the first to the last snapshot.
	Overall Load
	// Hot is the hot core over the whole run (Overall.Hot()).
	Hot HotCore
	// Peak is the highest softirq share of any CPU in any interval of at
	// least PeakMinTicks ticks (a short last interval of one or two ticks
	// would show 100% for a single tick of softirq).
	Peak HotCore
	// Errors are the snapshots that failed (the sampler goes on).
	Errors []error
}

// PeakMinTicks is the shortest interval, in USER_HZ ticks (1/100 s), that
// LoadReport.Peak considers.
const PeakMinTicks = 10

// LoadSampler samples per-CPU load in the background, as mpstat -P ALL 1
// does, until its context ends or Stop is called.
type LoadSampler struct {
	fs       Root
	interval time.Duration
	cancel   context.CancelFunc
	done     chan struct{}

	mu     sync.Mutex
	snaps  []LoadSnapshot
	errs   []error
	report LoadReport
}

// StartLoadSampler takes a first snapshot, then one every interval in the
// background until ctx ends or Stop is called, and a last one then. An
// error from the first snapshot is returned and nothing runs.
//
// Similar to: mpstat -P ALL INTERVAL (with /proc/softirqs and softnet_stat)
func (fs Root) StartLoadSampler(ctx context.Context, interval time.Duration) (*LoadSampler, error) {
	if interval <= 0 {
		return nil, errors.New("irq: load sampler interval must be positive")
	}
	first, err := fs.LoadSnapshot()
	if err != nil && first.Stat.CPUs == nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &LoadSampler{fs: fs, interval: interval, cancel: cancel, done: make(chan struct{}), snaps: []LoadSnapshot{first}}
	go s.run(ctx)
	return s, nil
}

func (s *LoadSampler) run(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.take()
			s.mu.Lock()
			s.report = buildReport(s.snaps, s.errs)
			s.mu.Unlock()
			return
		case <-t.C:
			s.take()
		}
	}
}

func (s *LoadSampler) take() {
	snap, err := s.fs.LoadSnapshot()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errs = append(s.errs, err)
		if snap.Stat.CPUs == nil {
			return
		}
	}
	s.snaps = append(s.snaps, snap)
}

// Done is closed when the sampler has stopped and its report is ready.
func (s *LoadSampler) Done() <-chan struct{} { return s.done }

// Stop stops the sampler, takes a last snapshot and returns the report. It
// may be called more than once, and after the context ended.
func (s *LoadSampler) Stop() LoadReport {
	s.cancel()
	<-s.done
	return s.Report()
}

// Report returns the report once the sampler has stopped, and what it has
// so far before that.
func (s *LoadSampler) Report() LoadReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return s.report
	default:
		return buildReport(s.snaps, s.errs)
	}
}

// buildReport turns a series of snapshots into a report.
func buildReport(snaps []LoadSnapshot, errs []error) LoadReport {
	r := LoadReport{Errors: append([]error(nil), errs...), Peak: HotCore{CPU: -1}, Hot: HotCore{CPU: -1}}
	if len(snaps) < 2 {
		return r
	}
	for i := 1; i < len(snaps); i++ {
		l := snaps[i].Sub(snaps[i-1])
		r.Intervals = append(r.Intervals, l)
		if h := l.hot(PeakMinTicks); h.CPU >= 0 && (r.Peak.CPU < 0 || h.SoftPct > r.Peak.SoftPct) {
			r.Peak = h
		}
	}
	r.Overall = (snaps[len(snaps)-1]).Sub(snaps[0])
	r.Hot = r.Overall.Hot()
	return r
}
