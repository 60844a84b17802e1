package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocekit/rocekit/report"
)

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
// must exist and take a probe file, and an existing file must open for
// appending. The error names the flag.
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
		if st, err := os.Stat(p.Path); err == nil {
			if st.IsDir() {
				return errors.New("is a folder, a file is needed")
			}
			f, err := os.OpenFile(p.Path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			return f.Close()
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
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

// MoveStaleOutputs moves an earlier run's outputs out of dir (to
// dir.prev-TIME), so that an interrupted run does not leave a folder
// mixing the old report with new archives. A folder without a report.md
// or summary.json is left alone. It says what it moved on w.
func MoveStaleOutputs(dir string, w io.Writer) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if wd, _ := os.Getwd(); abs == wd || abs == "/" {
		return nil // never move the working folder away
	}
	stale := false
	for _, name := range []string{"report.md", "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			stale = true
		}
	}
	if !stale {
		return nil
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

// SaveRound writes the round's archive into dir, then appends the round to
// the store, so that every round in the store has its archive.
func SaveRound(store *report.Store, dir string, r report.Round, files []report.ArchiveFile) error {
	if _, err := SaveArchive(dir, r, files); err != nil {
		return err
	}
	return store.Append(r)
}

// NoArgs refuses positional arguments after the flags (which the flag
// package stops at: "-rounds A B" runs A only and drops B).
func NoArgs(fs *flag.FlagSet) error {
	if fs.NArg() == 0 {
		return nil
	}
	return fmt.Errorf("unexpected argument %q: this program takes flags only (a list is one flag value with commas, as in -rounds A,B,C); the flags after it were not read", fs.Arg(0))
}
