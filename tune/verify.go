package tune

import (
	"context"
	"errors"
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

// VerifyJournals reads back the changes of finished journals not yet
// restored (the rocekit-peer agent's, one file per call), as
// Session.Verify does for its own: the journals are taken as one history
// in the order given (oldest first), so a target changed by two calls is
// checked against the later one. Each file is opened as Recover opens it
// (its owner's, no link, locked while read) and nothing is changed. What
// one journal's lines lack is joined into the error; the drifts found are
// still returned.
//
// Similar to: tuned-adm verify
func VerifyJournals(ctx context.Context, paths []string) ([]Drift, error) {
	type roots struct{ proc, sys string }
	var order []roots
	entries := map[roots][]Entry{}
	var errs []error
	for _, path := range paths {
		j, err := readJournalLocked(path)
		if err != nil {
			errs = append(errs, err)
		}
		if len(j.Entries) == 0 {
			continue
		}
		proc, sys, err := (Options{Root: j.Root}).roots()
		if err != nil {
			errs = append(errs, &JournalError{Path: path, Err: err})
			continue
		}
		r := roots{proc, sys}
		if _, ok := entries[r]; !ok {
			order = append(order, r)
		}
		entries[r] = append(entries[r], j.Entries...)
	}
	var drifts []Drift
	for _, r := range order {
		s := newLiveSystem(r.proc, r.sys)
		d, err := verify(ctx, s, entries[r])
		drifts = append(drifts, d...)
		errs = append(errs, err, s.close())
		if ctx.Err() != nil {
			break
		}
	}
	return drifts, errors.Join(errs...)
}

// readJournalLocked reads a journal of this format under its lock, as
// Recover does before it undoes one.
func readJournalLocked(path string) (Journal, error) {
	f, err := openLocked(path, false)
	if err != nil {
		return Journal{Path: path}, err
	}
	defer f.Close()
	b, err := readLocked(f)
	if err != nil {
		return Journal{Path: path}, err
	}
	j, jerr := parseJournal(path, b)
	switch {
	case j.Good == 0:
		return Journal{Path: path}, jerr
	case j.Version == 0:
		return Journal{Path: path}, errors.Join(jerr, &JournalError{Path: path, Line: 1, Err: errors.New("not a rocekit journal: line 1 is not a journal header; not read back")})
	case j.Version != JournalVersion:
		return Journal{Path: path}, errors.Join(jerr, &JournalError{Path: path, Line: 1, Err: fmt.Errorf("journal format version %d, this build knows %d: not read back", j.Version, JournalVersion)})
	}
	return j, jerr
}
