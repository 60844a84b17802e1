// Package sentinel makes package sentinel errors that also match the
// standard library's, so that a caller holding only the io/fs vocabulary
// can tell "not there" from other failures:
//
//	var ErrNetdevNotFound = sentinel.NotExist("nic: netdev not found")
//	errors.Is(err, nic.ErrNetdevNotFound) // true
//	errors.Is(err, fs.ErrNotExist)        // true as well
package sentinel

import "io/fs"

// NotExist returns a new sentinel error with message msg that errors.Is
// also matches with fs.ErrNotExist (os.ErrNotExist).
func NotExist(msg string) error { return &kinded{msg: msg, kind: fs.ErrNotExist} }

// Permission returns a new sentinel error with message msg that errors.Is
// also matches with fs.ErrPermission (os.ErrPermission).
func Permission(msg string) error { return &kinded{msg: msg, kind: fs.ErrPermission} }

// kinded is a sentinel of one of io/fs's kinds. Each is a distinct
// pointer, so two sentinels with the same text stay apart.
type kinded struct {
	msg  string
	kind error
}

func (e *kinded) Error() string { return e.msg }

// Is reports whether target is the io/fs kind of e.
func (e *kinded) Is(target error) bool { return target == e.kind }
