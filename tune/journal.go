package tune

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rocekit/rocekit/sysroot"
)

// JournalVersion is the format version written in a journal's header.
const JournalVersion = 1

// Record types of a journal line.
const (
	recHeader   = "header"
	recChange   = "change"   // written and fsynced before the change is made
	recDone     = "done"     // the change was made
	recRestored = "restored" // the change was undone
)

// record is one line of a journal file (JSON lines).
type record struct {
	Rec  string    `json:"rec"`
	Seq  int       `json:"seq,omitempty"`
	Time time.Time `json:"time"`
	// Header fields.
	Version  int    `json:"version,omitempty"`
	PID      int    `json:"pid,omitempty"`
	ProcRoot string `json:"proc_root,omitempty"`
	SysRoot  string `json:"sys_root,omitempty"`
	// Change fields.
	Entry *Entry `json:"entry,omitempty"`
}

// Journal is the content of a journal file.
type Journal struct {
	Path string
	Root sysroot.Root // where the session read /proc and /sys
	PID  int          // of the process that wrote it
	// Version is the header's format version; 0 when line 1 is not a
	// journal header (the file is not a journal, or it is torn).
	Version int
	// Entries are the changes in sequence order (Entry.Seq), whatever
	// the order of their lines.
	Entries []Entry
	// Torn is the number of bytes after the last complete line: a line
	// cut short by a crash mid-write, skipped.
	Torn int
	// Good is the length of the complete lines: where appending resumes.
	Good int64
}

// Pending returns the entries not restored, in sequence order.
func (j Journal) Pending() []Entry {
	var out []Entry
	for _, e := range j.Entries {
		if !e.Restored {
			out = append(out, e)
		}
	}
	return out
}

// ReadJournal reads a journal file. A last line without its newline (the
// writer was killed mid-write) is skipped and counted in Torn; the entries
// before it are kept. A complete line that does not parse, a change
// number given twice, and a number missing between 1 and the last are
// each a *JournalError naming it, joined into the error; the other lines
// are still returned.
func ReadJournal(path string) (Journal, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Journal{Path: path}, &JournalError{Path: path, Err: err}
	}
	return parseJournal(path, b)
}

func parseJournal(path string, b []byte) (Journal, error) {
	j := Journal{Path: path}
	var errs []error
	bySeq := map[int]bool{}
	type mark struct {
		line int
		rec  string
		seq  int
	}
	var marks []mark
	header := false
	for n, rest := 1, b; len(rest) > 0; n++ {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			j.Torn = len(rest)
			break
		}
		line := rest[:i]
		rest = rest[i+1:]
		j.Good += int64(i + 1)
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			errs = append(errs, &JournalError{Path: path, Line: n, Err: err})
			continue
		}
		switch r.Rec {
		case recHeader:
			if n != 1 || r.Version != JournalVersion {
				errs = append(errs, &JournalError{Path: path, Line: n, Err: fmt.Errorf("header version %d, want %d as line 1", r.Version, JournalVersion)})
				if n == 1 {
					j.Version, j.PID = r.Version, r.PID
				}
				continue
			}
			header = true
			j.Root, j.PID, j.Version = sysroot.ProcSys(r.ProcRoot, r.SysRoot), r.PID, r.Version
		case recChange:
			switch {
			case r.Entry == nil || r.Entry.Seq != r.Seq:
				errs = append(errs, &JournalError{Path: path, Line: n, Err: errors.New("change without its entry")})
				continue
			case r.Seq < 1:
				errs = append(errs, &JournalError{Path: path, Line: n, Err: fmt.Errorf("change #%d: changes are numbered from 1", r.Seq)})
				continue
			case bySeq[r.Seq]:
				errs = append(errs, &JournalError{Path: path, Line: n, Err: fmt.Errorf("change #%d twice", r.Seq)})
				continue
			}
			bySeq[r.Seq] = true
			e := *r.Entry
			e.Done, e.Restored = false, false
			e.Old.Ext, e.New.Ext = compactExt(e.Old.Ext), compactExt(e.New.Ext)
			j.Entries = append(j.Entries, e)
		case recDone, recRestored:
			marks = append(marks, mark{n, r.Rec, r.Seq})
		default:
			errs = append(errs, &JournalError{Path: path, Line: n, Err: fmt.Errorf("unknown record %q", r.Rec)})
		}
	}
	if !header && len(b) > 0 && j.Good > 0 {
		errs = append(errs, &JournalError{Path: path, Line: 1, Err: errors.New("no header")})
	}
	// Undo goes by number, newest first, whatever order the lines are in.
	slices.SortFunc(j.Entries, func(a, b Entry) int { return cmp.Compare(a.Seq, b.Seq) })
	next := 1
	for _, e := range j.Entries {
		if e.Seq > next {
			gap := fmt.Sprintf("change #%d missing", next)
			if e.Seq > next+1 {
				gap = fmt.Sprintf("changes #%d to #%d missing", next, e.Seq-1)
			}
			errs = append(errs, &JournalError{Path: path, Err: fmt.Errorf("%s: the journal lost lines, what they changed cannot be restored from it", gap)})
		}
		next = e.Seq + 1
	}
	for _, m := range marks {
		i, ok := slices.BinarySearchFunc(j.Entries, m.seq, func(e Entry, seq int) int { return cmp.Compare(e.Seq, seq) })
		if !ok {
			errs = append(errs, &JournalError{Path: path, Line: m.line, Err: fmt.Errorf("%s mark for unknown change #%d", m.rec, m.seq)})
			continue
		}
		if m.rec == recDone {
			j.Entries[i].Done = true
		} else {
			j.Entries[i].Restored = true
		}
	}
	return j, errors.Join(errs...)
}

// compactExt is an Ext as json.Marshal writes it back (no blanks), so
// that an entry reads the same after a round trip through the file.
func compactExt(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// journalFile appends fsynced records to a journal file.
type journalFile struct {
	f   *os.File
	seq int
}

// createJournal writes the header into f, a locked empty file, and
// fsyncs it and its folder, so the journal survives a crash.
func createJournal(f *os.File, procRoot, sysRoot string) (*journalFile, error) {
	jf := &journalFile{f: f}
	err := jf.append(record{Rec: recHeader, Version: JournalVersion, PID: os.Getpid(), ProcRoot: procRoot, SysRoot: sysRoot})
	if err == nil {
		err = syncDir(filepath.Dir(f.Name()))
	}
	return jf, err
}

// openJournal takes over f, the locked file j was read from, for
// appending marks, first cutting a torn last line so the next record
// starts on a line of its own. Only a journal with a valid header gets
// here: nothing else is ever cut.
func openJournal(f *os.File, j Journal) (*journalFile, error) {
	if j.Torn > 0 {
		if err := f.Truncate(j.Good); err != nil {
			return nil, &JournalError{Path: j.Path, Err: err}
		}
	}
	if _, err := f.Seek(j.Good, 0); err != nil {
		return nil, &JournalError{Path: j.Path, Err: err}
	}
	jf := &journalFile{f: f}
	for _, e := range j.Entries {
		jf.seq = max(jf.seq, e.Seq)
	}
	return jf, nil
}

// append writes one record as a line and fsyncs it.
func (jf *journalFile) append(r record) error {
	r.Time = time.Now().UTC()
	b, err := json.Marshal(r)
	if err != nil {
		return &JournalError{Path: jf.f.Name(), Err: err}
	}
	if _, err := jf.f.Write(append(b, '\n')); err != nil {
		return &JournalError{Path: jf.f.Name(), Err: err}
	}
	if err := jf.f.Sync(); err != nil {
		return &JournalError{Path: jf.f.Name(), Err: err}
	}
	return nil
}

// begin journals a change before it is made and returns its entry.
func (jf *journalFile) begin(e Entry) (Entry, error) {
	jf.seq++
	e.Seq = jf.seq
	return e, jf.append(record{Rec: recChange, Seq: e.Seq, Entry: &e})
}

// mark journals that change seq was made (recDone) or undone
// (recRestored).
func (jf *journalFile) mark(rec string, seq int) error {
	return jf.append(record{Rec: rec, Seq: seq})
}

func (jf *journalFile) close() error { return jf.f.Close() }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return &JournalError{Path: dir, Err: err}
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return &JournalError{Path: dir, Err: err}
	}
	return nil
}
