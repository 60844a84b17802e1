package workflow

import (
	"context"
	"testing"
	"time"

	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/runbook"
)

// farWatcher is a far side whose agent watches the sockets itself (as a
// runbook.Peer does): it answers once "the test ended", or when stopped.
type farWatcher struct {
	runbook.Side // nil: only WatchUDPSockets is called
	ended        chan struct{}
	asked        runbook.UDPWatchAsk
	startup      time.Duration
}

func (f *farWatcher) WatchUDPSockets(ctx context.Context, a runbook.UDPWatchAsk) (runbook.UDPWatch, error) {
	f.asked = a
	if f.startup > 0 {
		time.Sleep(f.startup) // the agent's start over SSH
	}
	if a.Ready != nil {
		a.Ready()
	}
	select {
	case <-f.ended:
		return runbook.UDPWatch{Closed: true, Samples: 40, RxQueueMaxBytes: 212992,
			Last:     []nic.UDPSocket{{Inode: 7, Drops: 120}, {Inode: 8, Drops: 3}},
			Counters: &nic.UDPCounters{RcvbufErrors: 1123}}, nil
	case <-ctx.Done():
		return runbook.UDPWatch{Samples: 2}, ctx.Err()
	}
}

// TestFarSocketWatch: a far side that watches its own sockets is watched
// through it (every FarSampleEvery), stop waits for its answer, and the
// reading sums its sockets' drops and holds RcvbufErrors against the
// run's start; a watch that never answers is ended and says why.
func TestFarSocketWatch(t *testing.T) {
	f := &farWatcher{ended: make(chan struct{})}
	if !canWatch(f) {
		t.Fatal("a watcher side cannot be watched")
	}
	w := watchSockets(context.Background(), f, 4242)
	close(f.ended)
	got := w.stop(nic.UDPCounters{RcvbufErrors: 1000}, false)
	if f.asked.PID != 4242 || f.asked.Every != FarSampleEvery {
		t.Errorf("asked %+v", f.asked)
	}
	if got.Sockets != 2 || got.Drops != 123 || got.RcvbufErrors != 123 || !got.CountersRead || got.Samples != 40 || got.RxQueueMaxBytes != 212992 || got.Error != "" {
		t.Errorf("reading %+v", got)
	}
	defer func(g time.Duration) { watchGrace = g }(watchGrace)
	watchGrace = 50 * time.Millisecond
	start := time.Now()
	got = watchSockets(context.Background(), &farWatcher{ended: make(chan struct{})}, 4242).stop(nic.UDPCounters{}, false)
	if took := time.Since(start); took < watchGrace || got.Error == "" || got.CountersRead {
		t.Errorf("a watch that never answers: %+v after %v", got, took)
	}
}

// TestFarSocketWatchReady: a run starts only once the far watch took its
// first reading, so the agent's start-up stays out of it; a watch that
// fails before that does not hold the run.
func TestFarSocketWatchReady(t *testing.T) {
	f := &farWatcher{ended: make(chan struct{}), startup: 200 * time.Millisecond}
	start := time.Now()
	w := watchSockets(context.Background(), f, 4242)
	w.waitReady(context.Background())
	if took := time.Since(start); took < f.startup {
		t.Errorf("ready after %v, before the watch's start-up of %v", took, f.startup)
	}
	close(f.ended)
	w.stop(nic.UDPCounters{}, false)

	failed := watchSockets(context.Background(), failingWatcher{}, 4242)
	done := make(chan struct{})
	go func() { failed.waitReady(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a watch that failed at its start held the run")
	}
	if got := failed.stop(nic.UDPCounters{}, false); got.Error == "" {
		t.Errorf("a failed watch's reading %+v says nothing", got)
	}
}

// failingWatcher is a far side whose watch fails at once (an agent too
// old for the operation).
type failingWatcher struct{ runbook.Side }

func (failingWatcher) WatchUDPSockets(context.Context, runbook.UDPWatchAsk) (runbook.UDPWatch, error) {
	return runbook.UDPWatch{}, runbook.ErrPeerNoOperation
}
