package report

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreAppendDoesNotFollowLinks: a store that is a link (to a file,
// or dangling) is refused; the target is neither written nor created.
func TestStoreAppendDoesNotFollowLinks(t *testing.T) {
	dir, victims := t.TempDir(), t.TempDir()
	target := filepath.Join(victims, "rounds.jsonl")
	os.WriteFile(target, nil, 0o644)
	os.Symlink(target, filepath.Join(dir, "linked.jsonl"))
	os.Symlink(filepath.Join(victims, "new.jsonl"), filepath.Join(dir, "dangling.jsonl"))
	for _, name := range []string{"linked.jsonl", "dangling.jsonl"} {
		s := OpenStore(filepath.Join(dir, name))
		if err := s.Append(testRound("a", "1500", 1)); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s: %v, want fs.ErrPermission", name, err)
		}
		if err := s.Check(); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s Check: %v, want fs.ErrPermission", name, err)
		}
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Errorf("written through the link: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(victims, "new.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dangling link's target was created: %v", err)
	}
}

// TestStoreRefusesNonStore: an existing file whose first line is not a
// round (a journal, a document) is not appended to.
func TestStoreRefusesNonStore(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"journal": `{"rec":"header","time":"2026-12-01T10:00:00Z","version":1,"pid":4242}` + "\n",
		"notes":   "# my notes\nkeep these\n",
		"binary":  "\x7fELF\x02\x01",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		s := OpenStore(p)
		err := s.Append(testRound("a", "1500", 1))
		if !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want ErrNotStore naming the file", name, err)
		}
		if err := s.Check(); !errors.Is(err, ErrNotStore) {
			t.Errorf("%s Check: %v", name, err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("%s changed: %q", name, b)
		}
	}
	// Stores it may append to: absent, empty, one with rounds, and one
	// whose first append was cut by a crash.
	ok := map[string]string{"empty": "", "torn": `{"name":"a","start":"2026-`}
	for name, content := range ok {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	for _, name := range []string{"absent", "empty", "torn", "empty"} {
		s := OpenStore(filepath.Join(dir, name))
		if err := s.Check(); err != nil {
			t.Errorf("%s Check: %v", name, err)
		}
		if err := s.Append(testRound("a", "1500", 1)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if rounds, _, _ := OpenStore(filepath.Join(dir, "empty")).Load(); len(rounds) != 2 {
		t.Errorf("appended %d rounds to the store", len(rounds))
	}
}

// TestNilStore: a nil *Store returns ErrNoStore from every method.
func TestNilStore(t *testing.T) {
	var s *Store
	if _, _, err := s.Load(); !errors.Is(err, ErrNoStore) {
		t.Errorf("Load: %v", err)
	}
	if _, _, err := s.Query("a"); !errors.Is(err, ErrNoStore) {
		t.Errorf("Query: %v", err)
	}
	if err := s.Append(testRound("a", "1500", 1)); !errors.Is(err, ErrNoStore) {
		t.Errorf("Append: %v", err)
	}
	if err := s.Check(); !errors.Is(err, ErrNoStore) {
		t.Errorf("Check: %v", err)
	}
	if p := s.Path(); p != "" {
		t.Errorf("Path %q", p)
	}
}
