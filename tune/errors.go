package tune

import (
	"errors"
	"fmt"
)

// Sentinel errors. The typed errors below match them with errors.Is.
var (
	// ErrInvalidInput: a name, number or list would reach the kernel or
	// the file system malformed or out of range. Nothing was changed.
	ErrInvalidInput = errors.New("tune: invalid input")
	// ErrJournal: the journal file cannot be used (no header, a line that
	// does not parse, a version this package does not know).
	ErrJournal = errors.New("tune: journal unusable")
	// ErrPending: the journal file holds changes that were never
	// restored; Recover it before starting another session on it.
	ErrPending = errors.New("tune: journal holds changes not restored")
	// ErrUndo: a change could not be undone; the value is left as it is.
	ErrUndo = errors.New("tune: change not undone")
	// ErrClosed: the session was closed.
	ErrClosed = errors.New("tune: session closed")
	// ErrNoSession: a nil or zero Session, not made by Begin.
	ErrNoSession = errors.New("tune: no session (a nil or zero Session: start one with tune.Begin)")
	// ErrLocked: another process holds the journal: a run in progress
	// writes it. Neither Begin nor Recover touches a journal in use.
	ErrLocked = errors.New("tune: journal in use by another process")
)

// LockedError names the journal and the process holding it. It matches
// ErrLocked.
type LockedError struct {
	Path string
	PID  int // from the journal's header; 0 when it could not be read
}

// Error names the file, the holder and what to do.
func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("process %d", e.PID)
	}
	return fmt.Sprintf("tune: journal %s is in use by %s (a run in progress): give this run a journal file of its own, or wait for that run to end", e.Path, who)
}

// Is matches ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// InputError says which input was refused and why. It matches
// ErrInvalidInput.
type InputError struct {
	Field  string // "netdev", "irq", "cpus", "mtu", ...
	Value  string
	Reason string
	// Err is the check of another package that refused the value
	// (host.ValidNetnsName's *host.NetnsNameError), nil when tune's own.
	Err error
}

// Unwrap returns Err.
func (e *InputError) Unwrap() error { return e.Err }

// Error names the field, the value and the reason.
func (e *InputError) Error() string {
	return fmt.Sprintf("tune: invalid %s %q: %s", e.Field, e.Value, e.Reason)
}

// Is matches ErrInvalidInput.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

// UndoError reports a change whose undo failed. Left is the value found
// (or "unknown" when it could not be read): the target is left as it is.
// It matches ErrUndo, and Unwrap gives the cause (a *nic.Error,
// *rxe.Error, *irq.AffinityError, ...).
type UndoError struct {
	Entry Entry
	Left  string
	Err   error
}

// Error names the change, what was left and the cause.
func (e *UndoError) Error() string {
	return fmt.Sprintf("tune: undo #%d %s %s (back to %s) failed, left as %s: %v",
		e.Entry.Seq, e.Entry.Kind, e.Entry.Kind.target(e.Entry.Target), e.Entry.Kind.show(e.Entry.Old), e.Left, e.Err)
}

// Is matches ErrUndo.
func (e *UndoError) Is(target error) bool { return target == ErrUndo }

// Unwrap returns the cause.
func (e *UndoError) Unwrap() error { return e.Err }

// JournalError says which line of a journal file is unusable. It matches
// ErrJournal.
type JournalError struct {
	Path string
	Line int // 1-based; 0 for the file as a whole
	Err  error
}

// Error names the file, the line and the cause.
func (e *JournalError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("tune: journal %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("tune: journal %s line %d: %v", e.Path, e.Line, e.Err)
}

// Is matches ErrJournal.
func (e *JournalError) Is(target error) bool { return target == ErrJournal }

// Unwrap returns the cause.
func (e *JournalError) Unwrap() error { return e.Err }
