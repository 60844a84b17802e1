package tune

import "context"

// RestoreAfter undoes, newest first, the changes journaled after change
// #seq (every change for 0), as Restore does, and leaves the older ones
// for a later call. Two sessions whose changes touch the same thing (two
// ends of a run on one kernel) are undone in their global order this way:
// runbook.Sides.Restore interleaves them.
func (s *Session) RestoreAfter(ctx context.Context, seq int) (Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Report{}, ErrClosed
	}
	i := len(s.entries)
	for i > 0 && s.entries[i-1].Seq > seq {
		i--
	}
	rep, err := undo(ctx, s.sys, s.jf, s.entries[i:])
	for j := i; j < len(s.entries); j++ {
		for _, u := range rep.Undone {
			if u.Seq == s.entries[j].Seq {
				s.entries[j].Restored = true
			}
		}
	}
	return rep, err
}
