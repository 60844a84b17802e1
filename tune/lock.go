package tune

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rocekit/rocekit/internal/ownfile"
)

// errHeld is lockFile's "another open file holds the lock".
var errHeld = errors.New("lock held")

// openLocked opens path for reading and writing (creating it when create
// is set) and locks it, so that one writer at a time owns a journal:
// Begin and Recover both go through it. A journal locked by a live
// process gives a *LockedError. Only a regular file of the running
// user's own, that others cannot write, in a folder they cannot write
// either, is opened (ownfile.Open): a journal someone else planted is
// refused (its error matches fs.ErrPermission), never replayed, and a
// link is not followed. The file is checked to still be the one
// at path once locked: another process may have removed it in between.
func openLocked(path string, create bool) (*os.File, error) {
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE
	}
	for range 10 {
		f, err := ownfile.Open(path, flags, 0o600)
		if err != nil {
			return nil, &JournalError{Path: path, Err: err}
		}
		if err := lockFile(f); err != nil {
			f.Close()
			if errors.Is(err, errHeld) {
				return nil, lockedError(path)
			}
			return nil, &JournalError{Path: path, Err: fmt.Errorf("lock: %w", err)}
		}
		fi, ferr := f.Stat()
		pi, perr := os.Stat(path)
		if ferr == nil && perr == nil && os.SameFile(fi, pi) {
			return f, nil
		}
		f.Close()
		if !create && errors.Is(perr, os.ErrNotExist) {
			return nil, &JournalError{Path: path, Err: perr}
		}
	}
	return nil, &JournalError{Path: path, Err: errors.New("the file kept being replaced while it was being locked")}
}

// lockedError names the process that holds path, from its header.
func lockedError(path string) error {
	j, _ := ReadJournal(path)
	return &LockedError{Path: path, PID: j.PID}
}

// readLocked reads the whole of a file opened by openLocked and leaves
// its offset at the end.
func readLocked(f *os.File) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, &JournalError{Path: f.Name(), Err: err}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, &JournalError{Path: f.Name(), Err: err}
	}
	return b, nil
}
