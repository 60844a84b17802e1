package runbook

import (
	"context"

	"github.com/rocekit/rocekit/tune"
)

// PauseIRQBalance pauses the host's irqbalance daemons (SIGSTOP),
// journaled: Restore resumes them. irqbalance would otherwise move
// affinities set by SpreadIRQs back.
//
// Similar to: systemctl stop irqbalance (and start after)
func (l *Local) PauseIRQBalance(ctx context.Context) error {
	return l.apply(ctx, tune.PauseIRQBalance())
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
