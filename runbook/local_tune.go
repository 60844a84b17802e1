package runbook

import (
	"context"

	"github.com/rocekit/rocekit/tune"
)

// PauseIRQBalance pauses the host's irqbalance daemons (SIGSTOP),
// journaled: Restore resumes them. irqbalance would otherwise move
// affinities set by SpreadIRQs back. It returns the PIDs it paused; with
// none running there is nothing to pause, and nothing is journaled (a
// pause of no daemon would read back as not held).
//
// Similar to: systemctl stop irqbalance (and start after)
func (l *Local) PauseIRQBalance(ctx context.Context) ([]int, error) {
	pids, err := l.fs().IRQBalance()
	if err != nil || len(pids) == 0 {
		return nil, err
	}
	return pids, l.apply(ctx, tune.PauseIRQBalance())
}

// Verify reads back every change the side made and has not restored
// (tune.Session.Verify); no session yet, or no drift, gives nil.
func (l *Local) Verify(ctx context.Context) ([]tune.Drift, error) {
	l.mu.Lock()
	s := l.sess
	l.mu.Unlock()
	if s == nil {
		return nil, nil
	}
	return s.Verify(ctx)
}
