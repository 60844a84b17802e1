package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rocekit/rocekit/internal/ownfile"
)

// Store is an append-only file of rounds, one JSON object per line. It is
// never rewritten: Append opens the file with O_APPEND, writes one line in
// one write and fsyncs it. A crash mid-append leaves a torn last line,
// which Load detects and skips; every line before it is kept, and the next
// Append starts a fresh line.
//
// Similar to: echo "$round" >> results.jsonl; sync
type Store struct {
	path string
}

// OpenStore returns the store kept in the file at path. The file is
// created on the first Append.
func OpenStore(path string) *Store { return &Store{path: path} }

// Path returns the store's file name ("" for a nil Store).
func (s *Store) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

// Append validates r, encodes it as one line and appends it, fsynced. If
// the file ends in a torn line, a newline is written first so that the new
// round does not join it. The error wraps ErrInvalidRound for a round that
// does not Validate. The store's folder is created if missing.
//
// The file is opened as ownfile.Open does: a link is not followed, and a
// file of another owner or that others can write is refused (the error
// matches fs.ErrPermission). An existing file whose first line is not a
// round (a journal, someone's notes) is not appended to: ErrNotStore.
func (s *Store) Append(r Round) error {
	if s == nil {
		return ErrNoStore
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("report: append to %s: %w", s.path, err)
	}
	if err := ownfile.MkdirAll(filepath.Dir(s.path)); err != nil {
		return fmt.Errorf("report: append: %w", err)
	}
	f, err := ownfile.Open(s.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("report: append: %w", err)
	}
	defer f.Close()
	torn, err := checkStore(f)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, len(line)+2)
	if torn {
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	if _, err := f.Write(buf); err != nil {
		return fmt.Errorf("report: append to %s: %w", s.path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("report: fsync %s: %w", s.path, err)
	}
	return f.Close()
}

// Check tells, writing nothing, whether Append could append to the store:
// its folder and file pass ownfile's checks, and the file is absent, empty
// or a round store (ErrNotStore otherwise). A run checks its store before
// it changes anything.
func (s *Store) Check() error {
	if s == nil {
		return ErrNoStore
	}
	f, err := ownfile.Open(s.path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		err = ownfile.CheckDir(filepath.Dir(s.path))
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil // Append creates the file, and the folder
		}
	}
	if err != nil {
		return fmt.Errorf("report: store: %w", err)
	}
	defer f.Close()
	_, err = checkStore(f)
	return err
}

// checkStore reads the first line of f: a store that holds anything must
// start with a round, or be one round cut by a crash (a JSON object
// without its newline). It reports whether the file ends in a torn line.
func checkStore(f *os.File) (torn bool, err error) {
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("report: append: %w", err)
	}
	if st.Size() == 0 {
		return false, nil
	}
	br := bufio.NewReader(io.NewSectionReader(f, 0, st.Size()))
	for {
		line, rerr := br.ReadBytes('\n')
		body := bytes.TrimSpace(line)
		switch {
		case rerr != nil && rerr != io.EOF:
			return false, fmt.Errorf("report: read store %s: %w", f.Name(), rerr)
		case len(body) == 0 && rerr == nil:
			continue
		case rerr == io.EOF && (len(body) == 0 || body[0] == '{'):
			// Nothing but one line cut short: the first append crashed.
		default:
			if _, derr := decodeRound(body); derr != nil {
				return false, fmt.Errorf("%w: %s: line 1 is not a round (%v): %q; give -store a file of its own", ErrNotStore, f.Name(), derr, cut(body, 60))
			}
		}
		break
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], st.Size()-1); err != nil {
		return false, fmt.Errorf("report: append: %w", err)
	}
	return b[0] != '\n', nil
}

// LoadResult says what Load found besides the rounds.
type LoadResult struct {
	// Lines is the number of lines read, the torn one included.
	Lines int
	// Torn is set when the last line was cut short by a crash mid-append
	// (not a whole round); it was skipped.
	Torn bool
	// TornLine is the 1-based number of the torn line (0 when none).
	TornLine int
	// Corrupt are lines before the last that did not decode; they were
	// skipped and the rounds around them kept.
	Corrupt []*LineError
}

// Load reads every round of the store, in append order. A missing file is
// an empty store. Reading follows links and takes any owner's file: a
// colleague's store can be compared against or redrawn.
func (s *Store) Load() ([]Round, LoadResult, error) {
	if s == nil {
		return nil, LoadResult{}, ErrNoStore
	}
	f, err := os.Open(s.path)
	if os.IsNotExist(err) {
		return nil, LoadResult{}, nil
	}
	if err != nil {
		return nil, LoadResult{}, fmt.Errorf("report: load: %w", err)
	}
	defer f.Close()
	return ReadRounds(f)
}

// Query returns the rounds named name (any name when "") whose parameters
// include every pair of params, in append order, with what Load found.
// When the store has rounds but none is named name, or none has one of
// the params' keys, the error is an *UnknownNameError (ErrUnknownName)
// listing the names there are: a typo is not an empty result. A key that
// rounds have, with a value none has, is an empty result.
func (s *Store) Query(name string, params ...Param) ([]Round, LoadResult, error) {
	all, res, err := s.Load()
	if err != nil {
		return nil, res, err
	}
	if err := checkQuery(all, name, params); err != nil {
		return nil, res, err
	}
	return Select(all, name, params...), res, nil
}

// checkQuery refuses a round name, then a parameter key, that no round
// of a non-empty store has.
func checkQuery(all []Round, name string, params []Param) error {
	if len(all) == 0 {
		return nil
	}
	names, keys := map[string]bool{}, map[string]bool{}
	for _, r := range all {
		names[r.Name] = true
		for _, p := range r.Params {
			keys[p.Key] = true
		}
	}
	if name != "" {
		if err := unknownNames("round", []string{name}, names); err != nil {
			return err
		}
	}
	asked := make([]string, len(params))
	for i, p := range params {
		asked[i] = p.Key
	}
	return unknownNames("parameter", asked, keys)
}

// Select returns the rounds named name (any name when "") that have every
// one of params.
func Select(rounds []Round, name string, params ...Param) []Round {
	var out []Round
	for _, r := range rounds {
		if name != "" && r.Name != name {
			continue
		}
		ok := true
		for _, p := range params {
			if v, has := r.Param(p.Key); !has || v != p.Value {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

// ReadRounds is the pure parser behind Load: it decodes one round per line.
// The last line is torn when it does not decode (a whole round without its
// final newline is kept); it is skipped and reported in LoadResult, not as an error. Other lines that
// do not decode are skipped and listed in LoadResult.Corrupt (each a
// *LineError wrapping ErrCorrupt); empty lines are ignored. The error is
// only for a failing reader.
func ReadRounds(r io.Reader) ([]Round, LoadResult, error) {
	var rounds []Round
	res, err := ScanRounds(r, func(rd Round) error {
		rounds = append(rounds, rd)
		return nil
	})
	return rounds, res, err
}

func decodeRound(b []byte) (Round, error) {
	var r Round
	if err := json.Unmarshal(b, &r); err != nil {
		return Round{}, err
	}
	if err := r.Validate(); err != nil {
		return Round{}, err
	}
	return r, nil
}
