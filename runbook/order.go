package runbook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/ownfile"

	"github.com/rocekit/rocekit/tune"
)

// Both ends of a run may share one kernel (-peer to this very host,
// containers or pods on one node, a namespace here): what is the kernel's
// (net.core.* limits, IRQ affinity, governors) is then changed by both
// journals, the later one recording the value the earlier one set. Undone
// end by end, the later end would write that value back. Sides.Restore
// therefore undoes both ends' changes in reverse global order: it knows
// when each change of a Local was asked for, and asks the far end to undo
// what it made since each of those moments, newest first.

// stamp is when the changes of one Apply, up to change #seq, were asked
// for.
type stamp struct {
	seq int
	at  time.Time
}

// stamp records at for the changes the session journaled since the last
// stamp. Called with l.mu held.
func (l *Local) stamp(at time.Time) {
	last := 0
	if n := len(l.stamps); n > 0 {
		last = l.stamps[n-1].seq
	}
	top := last
	for _, e := range l.sess.Entries() {
		top = max(top, e.Seq)
	}
	if top > last {
		l.stamps = append(l.stamps, stamp{seq: top, at: at})
	}
}

// times returns when the side's pending changes were asked for, oldest
// first.
func (l *Local) times() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ts []time.Time
	for _, s := range l.stamps {
		ts = append(ts, s.at)
	}
	return ts
}

// restoreSince undoes, newest first, the changes asked for at or after t.
func (l *Local) restoreSince(ctx context.Context, t time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess == nil {
		return nil
	}
	i := len(l.stamps)
	for i > 0 && !l.stamps[i-1].at.Before(t) {
		i--
	}
	if i == len(l.stamps) {
		return nil
	}
	after := 0
	if i > 0 {
		after = l.stamps[i-1].seq
	}
	if _, err := l.sess.RestoreAfter(ctx, after); err != nil {
		return fmt.Errorf("restore (journal %s): %w", l.Journal, err)
	}
	l.stamps = l.stamps[:i]
	return nil
}

// sinceRestorer is a side that undoes only what it changed since a moment.
type sinceRestorer interface {
	restoreSince(ctx context.Context, t time.Time) error
}

// timed is a side that knows when its pending changes were asked for.
type timed interface {
	times() []time.Time
}

// errNoOrderedRestore is a far end that cannot restore part of its
// changes (an agent before restore-since): it is restored whole after
// this host.
var errNoOrderedRestore = errors.New("runbook: side cannot restore in global order")

// restoreOrdered undoes both ends' changes in reverse global order: for
// each moment a change was asked for on either end, newest first, what
// the far end and then this host made since. What is left (the far end's
// changes before any of this host's, or everything when an end cannot
// restore in part) is undone by each end's Restore, this host first.
func restoreOrdered(ctx context.Context, near, far Side) []error {
	var errs []error
	nr, nok := near.(sinceRestorer)
	fr, fok := far.(sinceRestorer)
	if nok && fok {
		var ts []time.Time
		for _, s := range []Side{near, far} {
			if t, ok := s.(timed); ok {
				ts = append(ts, t.times()...)
			}
		}
		slices.SortFunc(ts, func(a, b time.Time) int { return b.Compare(a) })
		ts = slices.Compact(ts)
		var farErr error
		for _, t := range ts {
			if farErr == nil {
				// Unreachable, or an older agent: this host goes on
				// alone, the far end is restored whole below.
				farErr = fr.restoreSince(ctx, t)
			}
			if err := nr.restoreSince(ctx, t); err != nil {
				errs = append(errs, err)
			}
		}
		if farErr != nil && !errors.Is(farErr, errNoOrderedRestore) {
			// The far end failed: its Restore would only fail again.
			return append(errs, farErr, near.Restore(ctx))
		}
	}
	return append(errs, near.Restore(ctx), far.Restore(ctx))
}

// restoreSince asks the agent to undo the journals of the calls made at
// or after t (restore-since); an agent that does not know the operation
// gives errNoOrderedRestore.
func (p *Peer) restoreSince(ctx context.Context, t time.Time) error {
	if p.noSince {
		return errNoOrderedRestore
	}
	err := noOperation(p.call(ctx, "restore-since", sinceArg{Since: t}, nil))
	if errors.Is(err, ErrPeerNoOperation) {
		p.noSince = true
		return errNoOrderedRestore
	}
	return err
}

// sinceArg is restore-since's argument.
type sinceArg struct {
	Since time.Time `json:"since"`
}

// restoreSinceDir recovers, newest first, the journals of dir whose calls
// began at or after the time in arg (their names start with it, in
// nanoseconds); a missing folder held none.
func restoreSinceDir(ctx context.Context, dir, arg string) error {
	var a sinceArg
	if err := json.Unmarshal([]byte(arg), &a); err != nil || a.Since.IsZero() {
		return fmt.Errorf("%w: restore-since argument %q: want {\"since\":TIME}", tune.ErrInvalidInput, arg)
	}
	// The folder rule RestoreDir keeps: journals others could have put
	// there are not replayed.
	if err := ownfile.CheckPrivateDir(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("journal folder: %w (nothing was restored)", err)
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("journal folder: %w", err)
	}
	var names []string
	for _, e := range ents {
		stampPart, _, ok := strings.Cut(e.Name(), "-")
		ns, perr := strconv.ParseInt(stampPart, 10, 64)
		if e.IsDir() || !ok || perr != nil || !strings.HasSuffix(e.Name(), ".jsonl") || ns < a.Since.UnixNano() {
			continue
		}
		names = append(names, filepath.Join(dir, e.Name()))
	}
	return recoverNewestFirst(ctx, names)
}
