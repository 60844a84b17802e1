package fleet

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocekit/rocekit/host"
)

// releaseGate holds the clients of parallel pairs until every pair's
// server is listening (or its pair has failed), then releases them all
// at once.
type releaseGate struct {
	mu       sync.Mutex
	expected int // pairs still to arrive or leave
	arrived  int
	open     chan struct{}
	at       time.Time
}

func newReleaseGate(n int) *releaseGate {
	g := &releaseGate{expected: n, open: make(chan struct{})}
	g.check()
	return g
}

// check opens the gate when every pair still expected has arrived.
// Callers hold mu (or own g exclusively).
func (g *releaseGate) check() {
	select {
	case <-g.open:
		return
	default:
	}
	if g.arrived >= g.expected {
		g.at = time.Now()
		close(g.open)
	}
}

// arrive counts a pair whose server is ready and waits for the release.
func (g *releaseGate) arrive(ctx context.Context) error {
	g.mu.Lock()
	g.arrived++
	g.check()
	g.mu.Unlock()
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// leave removes a pair that will never arrive (its server failed).
func (g *releaseGate) leave() {
	g.mu.Lock()
	g.expected--
	g.check()
	g.mu.Unlock()
}

// releasedAt returns when the gate opened (zero while closed).
func (g *releaseGate) releasedAt() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.at
}

// gatedRunner is a pair's client runner: its first Start (the client,
// which perftest.RunPair starts only once the server listens) waits at the
// gate; later commands (reading --out_json files) pass through.
type gatedRunner struct {
	host.Runner
	gate    *releaseGate
	arrived atomic.Bool
	started atomic.Int64 // UnixNano of the client's start, after release
}

// Start waits at the gate for the first command, then starts it.
func (r *gatedRunner) Start(ctx context.Context, c host.Cmd) (*host.Process, error) {
	if r.arrived.CompareAndSwap(false, true) {
		if err := r.gate.arrive(ctx); err != nil {
			return nil, &host.StartError{Where: r.String(), Argv: c.Argv, Err: err}
		}
		r.started.Store(time.Now().UnixNano())
	}
	return r.Runner.Start(ctx, c)
}

// done tells the gate about a pair that ended without reaching it.
func (r *gatedRunner) done() {
	if r.arrived.CompareAndSwap(false, true) {
		r.gate.leave()
	}
}

// startTime returns when the client was started (zero if never).
func (r *gatedRunner) startTime() time.Time {
	ns := r.started.Load()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}
