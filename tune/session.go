package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/sysroot"
)

// Options choose where a Session reads and writes /proc and /sys (for
// IRQs, CPUs, governors and sysctls). Netdevs and rxe links are reached
// over netlink in the namespace each Target names.
type Options struct {
	// Root is where /proc and /sys are, as for nic, rxe and irq; the zero
	// Root is the live system. Its folders must be absolute, and a Root
	// on an fs.FS, which cannot be written, is refused. It is kept in the
	// journal, so Recover uses the same one.
	Root sysroot.Root
}

func (o Options) roots() (proc, sys string, err error) {
	if _, ok := o.Root.OSPath("proc"); !ok {
		return "", "", invalid("root", o.Root.String(), "a root on an fs.FS cannot be written")
	}
	proc, sys = o.Root.ProcDir(), o.Root.SysDir()
	for _, r := range []string{proc, sys} {
		if err := ValidatePath(r, r); err != nil {
			return "", "", err
		}
	}
	return proc, sys, nil
}

// Session applies changes through nic, rxe and irq and journals each one
// in a file before it is made, so that Restore, or Recover after a crash,
// can undo them. Its methods may be called from several goroutines; they
// run one at a time.
type Session struct {
	mu      sync.Mutex
	sys     system
	jf      *journalFile
	path    string
	entries []Entry
	closed  bool
}

// Begin starts a session journaled in journalPath, which is created and
// locked for the session's lifetime. A journal another live process holds
// gives a *LockedError (ErrLocked). A journal left there by an earlier
// session is replaced when all its changes were restored; one with changes
// pending fails with ErrPending and must be given to Recover first. A file
// that is not a journal fails with ErrJournal and is left as it is.
func Begin(journalPath string, opts Options) (*Session, error) {
	proc, sys, err := opts.roots()
	if err != nil {
		return nil, err
	}
	return begin(journalPath, proc, sys, newLiveSystem(proc, sys))
}

func begin(path, proc, sys string, s system) (*Session, error) {
	if path == "" {
		return nil, invalid("journal", path, "empty path")
	}
	f, err := openLocked(path, true)
	if err != nil {
		return nil, err
	}
	if err := takeOver(f, path); err != nil {
		f.Close()
		return nil, err
	}
	jf, err := createJournal(f, proc, sys)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Session{sys: s, jf: jf, path: path}, nil
}

// takeOver empties f, the locked file at path, for a new journal: only
// when it is empty already or a journal whose changes were all restored.
func takeOver(f *os.File, path string) error {
	b, err := readLocked(f)
	if err != nil || len(b) == 0 {
		return err
	}
	j, jerr := parseJournal(path, b)
	if j.Version == 0 && j.Good > 0 {
		return &JournalError{Path: path, Line: 1, Err: errors.New("not a rocekit journal: line 1 is not a journal header; the file was left as it is, choose another journal path")}
	}
	if j.Version != 0 && j.Version != JournalVersion {
		return &JournalError{Path: path, Line: 1, Err: fmt.Errorf("journal format version %d, this build knows %d: restore it with the rocekit that wrote it", j.Version, JournalVersion)}
	}
	if len(j.Pending()) > 0 || jerr != nil {
		return errors.Join(&JournalError{Path: path, Err: ErrPending}, jerr)
	}
	if err := f.Truncate(0); err != nil {
		return &JournalError{Path: path, Err: err}
	}
	if _, err := f.Seek(0, 0); err != nil {
		return &JournalError{Path: path, Err: err}
	}
	return nil
}

// begun reports whether s was made by Begin: a nil or zero Session has
// no journal, and its methods return ErrNoSession instead of panicking.
func (s *Session) begun() bool { return s != nil && s.jf != nil }

// Path returns the journal file's path: what to give Recover ("" for a
// nil or zero Session).
func (s *Session) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

// Entries returns the changes journaled so far, in order (none for a nil
// or zero Session).
func (s *Session) Entries() []Entry {
	if !s.begun() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.entries...)
}

// Apply checks every change (names, numbers, CPU lists against the online
// CPUs, that each netdev, rxe link and IRQ is there) before making any, so
// invalid input changes nothing. Then it makes them in order: each is
// journaled with the value it replaces and fsynced, made through its
// package, and marked done. It stops at the first change that fails; that
// change stays journaled (Restore sets its old value back in case it was
// made in part). It returns the entries made. A nil or zero Session
// gives ErrNoSession.
func (s *Session) Apply(ctx context.Context, changes ...Change) ([]Entry, error) {
	if !s.begun() {
		return nil, ErrNoSession
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if err := check(ctx, s.sys, changes); err != nil {
		return nil, err
	}
	var made []Entry
	for _, c := range changes {
		e, err := s.apply(ctx, c)
		if err != nil {
			return made, err
		}
		made = append(made, e)
	}
	return made, nil
}

func (s *Session) apply(ctx context.Context, c Change) (Entry, error) {
	old, err := s.sys.read(ctx, c.Kind, c.Target)
	if err != nil {
		return Entry{}, err
	}
	old = narrowOld(c.Kind, old, c.New)
	e, err := s.jf.begin(Entry{Kind: c.Kind, Target: c.Target, Old: old, New: c.New})
	if err != nil {
		return Entry{}, err
	}
	s.entries = append(s.entries, e)
	if err := s.sys.write(ctx, c.Kind, c.Target, c.New); err != nil {
		return e, fmt.Errorf("tune: %s: %w", e, err)
	}
	if err := s.jf.mark(recDone, e.Seq); err != nil {
		return e, err
	}
	s.entries[len(s.entries)-1].Done = true
	return s.entries[len(s.entries)-1], nil
}

// check validates changes against the rules and the system, changing
// nothing.
func check(ctx context.Context, sys system, changes []Change) error {
	for i, c := range changes {
		if err := c.validate(); err != nil {
			return fmt.Errorf("change %d (%s): %w", i+1, c.Kind, err)
		}
	}
	var online irq.CPUList
	cpus := func() (irq.CPUList, error) {
		var err error
		if online == nil {
			online, err = sys.onlineCPUs()
		}
		return online, err
	}
	for i, c := range changes {
		d := c.Kind.def()
		var err error
		if d.check != nil {
			err = d.check(ctx, sys, c, cpus)
		}
		if err == nil {
			var cur Value
			cur, err = sys.read(ctx, c.Kind, c.Target)
			if err == nil && d.restorable != nil {
				err = d.restorable(c.Target, cur)
			}
		}
		if err != nil {
			return fmt.Errorf("change %d (%s %s): %w", i+1, c.Kind, c.Kind.target(c.Target), err)
		}
	}
	return nil
}

// Restore undoes every change not yet restored, newest first, and marks
// each in the journal. It is idempotent: a second call finds nothing to
// undo. A change whose undo fails is reported as an *UndoError (joined
// with the others) and the rest are still undone. A nil or zero Session
// gives ErrNoSession.
func (s *Session) Restore(ctx context.Context) (Report, error) {
	if !s.begun() {
		return Report{}, ErrNoSession
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Report{}, ErrClosed
	}
	rep, err := undo(ctx, s.sys, s.jf, s.entries)
	for i := range s.entries {
		for _, u := range rep.Undone {
			if u.Seq == s.entries[i].Seq {
				s.entries[i].Restored = true
			}
		}
	}
	return rep, err
}

// Close closes the journal and the handles. It does not restore: call
// Restore first. The journal file stays for Recover or inspection. A nil
// or zero Session gives ErrNoSession.
func (s *Session) Close() error {
	if !s.begun() {
		return ErrNoSession
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return errors.Join(s.jf.close(), s.sys.close())
}
