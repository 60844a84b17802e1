package tune

import (
	"context"
	"fmt"
)

// Drift is a change whose value did not hold: read back, the target has
// another value than the one set (irqbalance rewrote an affinity, a driver
// clamped a ring size, someone ran ip link set), or it could not be read.
type Drift struct {
	Entry Entry
	Got   Value // what the target holds now
	Err   error // why it could not be read (a removed netdev), or nil
}

// String says what was set and what is there: "#2 affinity IRQ 27: set
// cpus 1, now cpus 0-3".
func (d Drift) String() string {
	if d.Err != nil {
		return fmt.Sprintf("#%d %s %s: set %s, cannot read it back: %v", d.Entry.Seq, d.Entry.Kind, d.Entry.Kind.target(d.Entry.Target), d.Entry.Kind.show(d.Entry.New), d.Err)
	}
	return fmt.Sprintf("#%d %s %s: set %s, now %s", d.Entry.Seq, d.Entry.Kind, d.Entry.Kind.target(d.Entry.Target), d.Entry.Kind.show(d.Entry.New), d.Entry.Kind.show(d.Got))
}

// Verify reads back every change made and not restored, and reports
// those whose target no longer holds the value set. When a target was
// changed more than once, the last change is the one checked. No drift
// gives nil.
//
// Similar to: tuned-adm verify
func (s *Session) Verify(ctx context.Context) ([]Drift, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	return verify(ctx, s.sys, s.entries)
}

func verify(ctx context.Context, sys system, entries []Entry) ([]Drift, error) {
	type key struct {
		k Kind
		t Target
	}
	seen := map[key]bool{}
	var drifts []Drift
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		k := key{e.Kind, e.Target}
		if seen[k] || !e.Done || e.Restored {
			continue
		}
		seen[k] = true
		if err := ctx.Err(); err != nil {
			return drifts, err
		}
		got, err := sys.read(ctx, e.Kind, e.Target)
		if err != nil || !matches(e.Kind, e.New, got) {
			drifts = append(drifts, Drift{Entry: e, Got: got, Err: err})
		}
	}
	// Report in the order the changes were made.
	for i, j := 0, len(drifts)-1; i < j; i, j = i+1, j-1 {
		drifts[i], drifts[j] = drifts[j], drifts[i]
	}
	return drifts, nil
}
