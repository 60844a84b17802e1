package ownfile

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrNotOwn is matched by every *Error: the file or folder is not one the
// running user alone controls.
var ErrNotOwn = errors.New("not the running user's own")

// Error says which file or folder was refused and why. It matches
// ErrNotOwn and fs.ErrPermission, so callers outside the module write
// errors.Is(err, fs.ErrPermission).
type Error struct {
	Path   string
	What   string      // "file" or "folder"
	UID    int         // the owner; -1 when not known
	Mode   fs.FileMode // as Lstat gives it; 0 when not known
	Reason string
}

// Error names the path, its owner and mode, and the reason.
func (e *Error) Error() string {
	if e.UID < 0 {
		return fmt.Sprintf("%s %s: %s", e.What, e.Path, e.Reason)
	}
	return fmt.Sprintf("%s %s (owner uid %d, mode %04o %s): %s", e.What, e.Path, e.UID, uint32(e.Mode.Perm())|stickyBits(e.Mode), e.Mode, e.Reason)
}

// stickyBits gives the octal high bits of m (fs.FileMode keeps them apart
// from the permission bits).
func stickyBits(m fs.FileMode) uint32 {
	var b uint32
	if m&fs.ModeSetuid != 0 {
		b |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		b |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		b |= 0o1000
	}
	return b
}

// Is matches ErrNotOwn and fs.ErrPermission.
func (e *Error) Is(target error) bool { return target == ErrNotOwn || target == fs.ErrPermission }
