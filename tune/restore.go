package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
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
		return &UndoError{Entry: e, Left: left(e.Kind, cur, err), Err: werr}
	}
	got, err := sys.read(ctx, e.Kind, e.Target)
	if err != nil {
		return &UndoError{Entry: e, Left: "unknown", Err: err}
	}
	if !matches(e.Kind, e.Old, got) {
		return &UndoError{Entry: e, Left: e.Kind.show(got), Err: fmt.Errorf("wrote %s, read back %s", e.Kind.show(e.Old), e.Kind.show(got))}
	}
	return nil
}

func left(k Kind, cur Value, err error) string {
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return k.show(cur)
}
