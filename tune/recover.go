package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Recover restores the changes a session journaled in journalPath and did
// not restore: after a crash, a SIGKILL, or a Restore that failed in part.
// A torn last line (the process was killed while writing it) is skipped and
// the entries before it are kept; a change journaled but never marked done
// is undone too, by reading its current value and writing the old one back
// when they differ. Running it again changes nothing. Failed undos are
// *UndoErrors joined in the error, with unparsable lines (*JournalError).
//
// Recover refuses, changing nothing, a journal that a live session holds
// (*LockedError, ErrLocked), a file that is not a journal and a journal of
// another format version (ErrJournal). A journal with no change in it (a
// session that ended before its first change) is removed.
//
// Similar to: tuned-adm off (tuned rolls back what its profile changed)
func Recover(ctx context.Context, journalPath string) (Report, error) {
	return recoverWith(ctx, journalPath, func(proc, sys string) system { return newLiveSystem(proc, sys) })
}

func recoverWith(ctx context.Context, path string, mk func(proc, sys string) system) (Report, error) {
	f, err := openLocked(path, false)
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	b, err := readLocked(f)
	if err != nil {
		return Report{}, err
	}
	j, jerr := parseJournal(path, b)
	if j.Good == 0 {
		// Nothing readable: an empty file, or a header cut mid-write.
		return Report{Torn: j.Torn}, jerr
	}
	switch {
	case j.Version == 0:
		return Report{}, &JournalError{Path: path, Line: 1, Err: errors.New("not a rocekit journal: line 1 is not a journal header; nothing was restored and the file was left as it is")}
	case j.Version != JournalVersion:
		return Report{}, &JournalError{Path: path, Line: 1, Err: fmt.Errorf("journal format version %d, this build knows %d: nothing was restored; restore it with the rocekit that wrote it", j.Version, JournalVersion)}
	case len(j.Entries) == 0 && jerr == nil:
		// A change is journaled before it is made: none journaled, none made.
		if err := os.Remove(path); err != nil {
			return Report{Torn: j.Torn}, &JournalError{Path: path, Err: err}
		}
		return Report{Torn: j.Torn}, nil
	}
	proc, sys, err := (Options{Root: j.Root}).roots()
	if err != nil {
		return Report{Torn: j.Torn}, errors.Join(jerr, err)
	}
	jf, err := openJournal(f, j)
	if err != nil {
		return Report{Torn: j.Torn}, errors.Join(jerr, err)
	}
	s := mk(proc, sys)
	defer s.close()
	rep, err := undo(ctx, s, jf, j.Entries)
	rep.Torn = j.Torn
	return rep, errors.Join(jerr, err)
}
