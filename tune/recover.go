package tune

import (
	"context"
	"errors"
)

// Recover restores the changes a session journaled in journalPath and did
// not restore: after a crash, a SIGKILL, or a Restore that failed in part.
// A torn last line (the process was killed while writing it) is skipped and
// the entries before it are kept; a change journaled but never marked done
// is undone too, by reading its current value and writing the old one back
// when they differ. Running it again changes nothing. Failed undos are
// *UndoErrors joined in the error, with unparsable lines (*JournalError).
//
// Similar to: tuned-adm off (tuned rolls back what its profile changed)
func Recover(ctx context.Context, journalPath string) (Report, error) {
	return recoverWith(ctx, journalPath, func(proc, sys string) system { return newLiveSystem(proc, sys) })
}

func recoverWith(ctx context.Context, path string, mk func(proc, sys string) system) (Report, error) {
	j, jerr := ReadJournal(path)
	if j.Good == 0 {
		// Nothing readable: no file, or not even a header was written.
		return Report{Torn: j.Torn}, jerr
	}
	proc, sys := j.ProcRoot, j.SysRoot
	if _, _, err := (Options{ProcRoot: proc, SysRoot: sys}).roots(); err != nil {
		return Report{Torn: j.Torn}, errors.Join(jerr, err)
	}
	if proc == "" {
		proc = "/proc"
	}
	if sys == "" {
		sys = "/sys"
	}
	jf, err := openJournal(j)
	if err != nil {
		return Report{Torn: j.Torn}, errors.Join(jerr, err)
	}
	defer jf.close()
	s := mk(proc, sys)
	defer s.close()
	rep, err := undo(ctx, s, jf, j.Entries)
	rep.Torn = j.Torn
	return rep, errors.Join(jerr, err)
}
