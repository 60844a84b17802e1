//go:build unix

package cli

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/report"
)

// TestCheckPathsRefusesForeignOut: an -out folder holding files no
// rocekit run wrote (no report.md, summary.json or marker) is refused;
// their preflight.md and throughput.svg are left as they are.
func TestCheckPathsRefusesForeignOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	for _, n := range []string{"preflight.md", "throughput.svg"} {
		os.WriteFile(filepath.Join(out, n), []byte("theirs"), 0o644)
	}
	f := &Flags{Journal: filepath.Join(dir, "j.jsonl")}
	err := f.CheckPaths(out, filepath.Join(dir, "s.jsonl"), io.Discard)
	if !errors.Is(err, ErrForeignOut) || !strings.HasPrefix(err.Error(), "-out ") || !strings.Contains(err.Error(), "preflight.md") {
		t.Fatalf("CheckPaths = %v, want ErrForeignOut naming -out and the files", err)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 2 {
		t.Errorf("-out holds %v", ents)
	}
	for _, n := range []string{"preflight.md", "throughput.svg"} {
		if b, _ := os.ReadFile(filepath.Join(out, n)); string(b) != "theirs" {
			t.Errorf("%s: %q", n, b)
		}
	}
	if m, _ := filepath.Glob(out + ".prev-*"); len(m) != 0 {
		t.Errorf("moved: %v", m)
	}
}

// TestCheckPathsMovesAnInterruptedRun: a run stopped before its report
// leaves the marker CheckPaths wrote; the next run moves that folder
// aside as an earlier output.
func TestCheckPathsMovesAnInterruptedRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	f := &Flags{Journal: filepath.Join(dir, "j.jsonl")}
	if err := f.CheckPaths(out, filepath.Join(dir, "s.jsonl"), io.Discard); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "preflight.md"), []byte("ours"), 0o644)
	var log strings.Builder
	if err := f.CheckPaths(out, filepath.Join(dir, "s.jsonl"), &log); err != nil {
		t.Fatal(err)
	}
	moved, _ := filepath.Glob(out + ".prev-*/preflight.md")
	if len(moved) != 1 || !strings.Contains(log.String(), "were moved to") {
		t.Errorf("moved %v; said %q", moved, log.String())
	}
}

// TestCheckPathsStoreIsJournal: -store naming the -journal file (the same
// path, another spelling, or a link) is refused before anything changes.
func TestCheckPathsStoreIsJournal(t *testing.T) {
	dir := t.TempDir()
	j := filepath.Join(dir, "j.jsonl")
	journal := `{"rec":"header","time":"2026-12-01T10:00:00Z","version":1,"pid":4242}` + "\n"
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink(j, link)
	for name, store := range map[string]string{
		"same path":        j,
		"another spelling": filepath.Join(dir, ".", "x", "..", "j.jsonl"),
		"a link":           link,
	} {
		for _, exists := range []bool{false, true} {
			os.Remove(j)
			if exists {
				os.WriteFile(j, []byte(journal), 0o600)
			}
			f := &Flags{Journal: j}
			err := f.CheckPaths(filepath.Join(dir, "out"), store, io.Discard)
			if err == nil || !strings.Contains(err.Error(), "-store") || !strings.Contains(err.Error(), "-journal") {
				t.Errorf("%s (journal exists %v): %v", name, exists, err)
			}
		}
	}
	if b, _ := os.ReadFile(j); string(b) != journal {
		t.Errorf("journal changed: %q", b)
	}
}

// TestCheckPathsStoreNotAStore: a -store that is someone's file, not a
// round store, is refused before the run.
func TestCheckPathsStoreNotAStore(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("my notes\n"), 0o644)
	f := &Flags{Journal: filepath.Join(dir, "j.jsonl")}
	err := f.CheckPaths(filepath.Join(dir, "out"), notes, io.Discard)
	if !errors.Is(err, report.ErrNotStore) || !strings.HasPrefix(err.Error(), "-store ") {
		t.Errorf("CheckPaths = %v, want ErrNotStore for -store", err)
	}
	link := filepath.Join(dir, "j-link")
	os.Symlink(filepath.Join(dir, "elsewhere.jsonl"), link)
	f.Journal = link
	if err := f.CheckPaths(filepath.Join(dir, "out"), filepath.Join(dir, "s.jsonl"), io.Discard); !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "-journal") {
		t.Errorf("dangling -journal link: %v", err)
	}
}

// TestWriteFileDoesNotFollowLinks: a link planted as NAME.tmp (the old
// temporary name) or as NAME in -out is not written through.
func TestWriteFileDoesNotFollowLinks(t *testing.T) {
	dir, victims := t.TempDir(), t.TempDir()
	for _, n := range []string{"preflight.md.tmp", "r1.tar.gz", "r1.tar.gz.tmp"} {
		os.WriteFile(filepath.Join(victims, n), []byte("theirs"), 0o644)
		os.Symlink(filepath.Join(victims, n), filepath.Join(dir, n))
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "ours"); return err }
	for _, n := range []string{"preflight.md", "r1.tar.gz"} {
		if _, err := WriteFile(dir, n, write); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"preflight.md.tmp", "r1.tar.gz", "r1.tar.gz.tmp"} {
		if b, _ := os.ReadFile(filepath.Join(victims, n)); string(b) != "theirs" {
			t.Errorf("%s written through: %q", n, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "preflight.md")); string(b) != "ours" {
		t.Errorf("preflight.md %q", b)
	}
}

// TestStartupRefusesPlantedJournal: a journal user nobody left where the
// examples look for -journal is not replayed as root; the error names the
// file, its owner and mode.
func TestStartupRefusesPlantedJournal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown a journal to nobody")
	}
	path := filepath.Join(t.TempDir(), "rocekit-journal.jsonl")
	header := `{"rec":"header","version":1,"pid":4242,"proc_root":"/proc","sys_root":"/sys","time":"2026-11-30T00:00:00Z"}` + "\n"
	// The old value is the current one: even a build that replayed it
	// would leave this host as it is; the error tells the two apart.
	before, _ := os.ReadFile("/proc/sys/net/core/somaxconn")
	change := `{"rec":"change","seq":1,"time":"2026-11-30T00:00:01Z","entry":{"seq":1,"kind":"sysctl","target":{"key":"net.core.somaxconn"},"old":{"sysctl":"` + strings.TrimSpace(string(before)) + `"},"new":{"sysctl":"4096"}}}` + "\n"
	os.WriteFile(path, []byte(header+change), 0o644)
	os.Chown(path, 65534, 65534)
	err := recoverStale(t.Context(), path, nil)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "uid 65534") || !strings.Contains(err.Error(), "mode 0644") {
		t.Errorf("recoverStale = %v, want fs.ErrPermission naming the file, owner and mode", err)
	}
	if after, _ := os.ReadFile("/proc/sys/net/core/somaxconn"); string(after) != string(before) {
		t.Errorf("somaxconn %q -> %q", before, after)
	}
}
