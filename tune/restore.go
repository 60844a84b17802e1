package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rocekit/rocekit/nic"
)

// Report says what Restore or Recover did.
type Report struct {
	// Undone are the changes restored by this call, newest first.
	Undone []Entry
	// AlreadyRestored counts changes an earlier Restore had undone.
	AlreadyRestored int
	// Torn is the length of a torn last journal line that was skipped
	// (Recover only).
	Torn int
}

// undo restores entries newest first by sequence number, whatever their
// order in the slice. For each it reads the current value: equal to the
// old one (the change was never made, or undone already) it is only
// marked; otherwise the old value is written and read back.
func undo(ctx context.Context, sys system, jf *journalFile, entries []Entry) (Report, error) {
	entries = slices.SortedStableFunc(slices.Values(entries), func(a, b Entry) int { return cmp.Compare(a.Seq, b.Seq) })
	var rep Report
	var errs []error
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Restored {
			rep.AlreadyRestored++
			continue
		}
		if err := ctx.Err(); err != nil {
			errs = append(errs, &UndoError{Entry: e, Left: "not tried", Err: err})
			continue
		}
		if err := e.validateUndo(); err != nil {
			errs = append(errs, &UndoError{Entry: e, Left: "not touched", Err: err})
			continue
		}
		if err := undoOne(ctx, sys, e); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := jf.mark(recRestored, e.Seq); err != nil {
			errs = append(errs, err)
			continue
		}
		e.Restored = true
		rep.Undone = append(rep.Undone, e)
	}
	return rep, errors.Join(errs...)
}

func undoOne(ctx context.Context, sys system, e Entry) error {
	cur, err := sys.read(ctx, e.Kind, e.Target)
	if err == nil && matches(e.Kind, e.Old, cur) {
		return nil
	}
	if werr := sys.write(ctx, e.Kind, e.Target, e.Old); werr != nil {
		return &UndoError{Entry: e, Left: left(cur, err), Err: werr}
	}
	got, err := sys.read(ctx, e.Kind, e.Target)
	if err != nil {
		return &UndoError{Entry: e, Left: "unknown", Err: err}
	}
	if !matches(e.Kind, e.Old, got) {
		return &UndoError{Entry: e, Left: got.String(), Err: fmt.Errorf("wrote %s, read back %s", e.Old, got)}
	}
	return nil
}

func left(cur Value, err error) string {
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return cur.String()
}

// matches reports whether got holds what want sets: for ring and channels
// the counts want names, for the others the whole value.
func matches(k Kind, want, got Value) bool {
	switch k {
	case KindMTU:
		return want.MTU == got.MTU
	case KindLink:
		return want.Up != nil && got.Up != nil && *want.Up == *got.Up
	case KindRing:
		return want.Ring != nil && got.Ring != nil && sameCounts(
			[]*uint32{want.Ring.Rx, want.Ring.RxMini, want.Ring.RxJumbo, want.Ring.Tx},
			[]*uint32{got.Ring.Rx, got.Ring.RxMini, got.Ring.RxJumbo, got.Ring.Tx})
	case KindChannels:
		return want.Channels != nil && got.Channels != nil && sameCounts(
			[]*uint32{want.Channels.Rx, want.Channels.Tx, want.Channels.Other, want.Channels.Combined},
			[]*uint32{got.Channels.Rx, got.Channels.Tx, got.Channels.Other, got.Channels.Combined})
	case KindRXE:
		return want.RXE != nil && got.RXE != nil && want.RXE.Present == got.RXE.Present &&
			(!want.RXE.Present || want.RXE.Netdev == got.RXE.Netdev)
	case KindAffinity:
		return want.CPUs.Equal(got.CPUs)
	case KindGovernor:
		return want.Governor == got.Governor
	case KindSysctl:
		return want.Sysctl != nil && got.Sysctl != nil && foldBlanks(*want.Sysctl) == *got.Sysctl
	case KindCoalesce:
		if want.Coalesce == nil || got.Coalesce == nil {
			return false
		}
		var cur nic.Coalesce
		g := got.Coalesce
		for _, f := range []struct {
			dst *uint32
			src *uint32
		}{{&cur.RxUsecs, g.RxUsecs}, {&cur.RxFrames, g.RxFrames}, {&cur.TxUsecs, g.TxUsecs}, {&cur.TxFrames, g.TxFrames}} {
			if f.src != nil {
				*f.dst = *f.src
			}
		}
		if g.AdaptiveRx != nil {
			cur.AdaptiveRx = *g.AdaptiveRx
		}
		if g.AdaptiveTx != nil {
			cur.AdaptiveTx = *g.AdaptiveTx
		}
		return want.Coalesce.Matches(cur)
	case KindFeatures:
		for name, on := range want.Features {
			if g, ok := got.Features[name]; !ok || g != on {
				return false
			}
		}
		return want.Features != nil
	case KindNetns, KindVeth:
		return matchesTopology(k, want, got)
	case KindProcess:
		return matchesProcess(want, got)
	case KindIRQBalance:
		// Paused: every daemon stopped. Resumed: none of the journaled
		// ones is (or they are gone).
		return want.IRQBalance != nil && got.IRQBalance != nil &&
			(want.IRQBalance.Paused == got.IRQBalance.Paused || (!want.IRQBalance.Paused && len(got.IRQBalance.PIDs) == 0))
	}
	return false
}

func sameCounts(want, got []*uint32) bool {
	for i, w := range want {
		if w != nil && (got[i] == nil || *got[i] != *w) {
			return false
		}
	}
	return true
}
