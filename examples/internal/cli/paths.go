package cli

import (
	"errors"
	"flag"
	"fmt"
	"github.com/rocekit/rocekit/workflow"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocekit/rocekit/internal/ownfile"
	"github.com/rocekit/rocekit/report"
)

// ErrForeignOut: the -out folder holds files no rocekit run wrote.
var ErrForeignOut = errors.New("the folder holds files no rocekit run wrote")

// OutputPath is a path a run writes, with the flag that names it.
type OutputPath struct {
	Flag string // "-out"
	Path string
	Dir  bool // a folder (created), else a file (appended or replaced)
}

// CheckOutputs makes sure every path can be written before a run changes
// or measures anything, so that an unwritable -out or -store is found in a
// second, not after the first round (90 s by default). Folders are created
// and a probe file is written and removed in them; for files, the folder
// must exist and take a probe file. Folders and files must pass ownfile's
// checks (not a link, the running user's own, not writable by others):
// what a run writes there is never written through someone else's link.
// The error names the flag.
func CheckOutputs(paths ...OutputPath) error {
	var errs []error
	for _, p := range paths {
		if err := checkOutput(p); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", p.Flag, p.Path, err))
		}
	}
	return errors.Join(errs...)
}

func checkOutput(p OutputPath) error {
	if p.Path == "" {
		return errors.New("empty path")
	}
	dir := p.Path
	if !p.Dir {
		dir = filepath.Dir(p.Path)
		if st, err := os.Lstat(p.Path); err == nil {
			if st.IsDir() {
				return errors.New("is a folder, a file is needed")
			}
			return ownfile.CheckFile(p.Path)
		}
	} else if err := ownfile.MkdirAll(dir); err != nil {
		return err
	}
	if err := ownfile.CheckDir(dir); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".rocekit-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, errors.Unwrap(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// OutMarker is the file CheckPaths leaves in a new -out folder: it tells
// the next run that the folder holds a rocekit run's outputs, even when
// that run stopped before its report.
const OutMarker = ".rocekit-out"

// MoveStaleOutputs moves an earlier run's outputs out of dir (to
// dir.prev-TIME), so that an interrupted run does not leave a folder
// mixing the old report with new archives. An earlier run's folder is one
// with OutMarker, report.md or summary.json in it. A folder that holds
// other files and none of those is someone else's: it is refused
// (ErrForeignOut, naming some of its files), nothing in it is touched. The
// working folder and / are never moved. It says what it moved on w.
func MoveStaleOutputs(dir string, w io.Writer) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(ents) == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	stale := false
	for _, name := range []string{OutMarker, "report.md", "summary.json"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			stale = true
		}
	}
	if !stale {
		var names []string
		for _, e := range ents[:min(len(ents), 5)] {
			names = append(names, e.Name())
		}
		if len(ents) > 5 {
			names = append(names, "...")
		}
		return fmt.Errorf("%w (%s): give -out a new or empty folder, or one an earlier run wrote", ErrForeignOut, strings.Join(names, ", "))
	}
	if wd, _ := os.Getwd(); abs == wd || abs == "/" {
		return nil // never move the working folder away
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	to := strings.TrimRight(dir, "/") + ".prev-" + st.ModTime().UTC().Format("20060102-150405")
	if err := os.Rename(dir, to); err != nil {
		return fmt.Errorf("moving the earlier run's outputs out of %s: %w", dir, err)
	}
	fmt.Fprintf(w, "the earlier run's outputs in %s were moved to %s\n", dir, to)
	return nil
}

// markOut leaves OutMarker in dir, a folder CheckOutputs checked.
func markOut(dir string) error {
	return ownfile.WriteFile(filepath.Join(dir, OutMarker), []byte("outputs of a rocekit example run: the next run moves this folder aside\n"), 0o644)
}

// samePath reports whether a and b name one file: one path once cleaned
// and links followed (also a dangling link to the other), or, when both
// exist, the same file (os.SameFile, hard links too).
func samePath(a, b string) bool {
	ra, rb := resolve(a), resolve(b)
	if ra == rb {
		return true
	}
	sa, ea := os.Stat(a)
	sb, eb := os.Stat(b)
	return ea == nil && eb == nil && os.SameFile(sa, sb)
}

// resolve makes p absolute and follows the links at its end, even to a
// file that does not exist yet.
func resolve(p string) string {
	p, _ = filepath.Abs(p)
	for range 40 {
		t, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(d, filepath.Base(p))
	}
	return p
}

// SaveRound is workflow.SaveRound: the archive, then the store.
func SaveRound(store *report.Store, dir string, r report.Round, files []report.ArchiveFile) error {
	return workflow.SaveRound(store, dir, r, files)
}

// NoArgs refuses positional arguments after the flags (which the flag
// package stops at: "-rounds A B" runs A only and drops B).
func NoArgs(fs *flag.FlagSet) error {
	if fs.NArg() == 0 {
		return nil
	}
	return fmt.Errorf("unexpected argument %q: this program takes flags only (a list is one flag value with commas, as in -rounds A,B,C); the flags after it were not read", fs.Arg(0))
}
