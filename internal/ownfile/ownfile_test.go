//go:build unix

package ownfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const nobody = 65534

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown test files to uid 65534")
	}
}

func wantRefused(t *testing.T, err error, path string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrNotOwn) || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("err = %v, want an *Error matching ErrNotOwn and fs.ErrPermission", err)
	}
	if e.Path != path || !strings.Contains(err.Error(), path) {
		t.Errorf("error names %q, want %q: %v", e.Path, path, err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteFileReplacesPlantedLinks: links planted at the name and at the
// old temporary name NAME.tmp are replaced or left, their targets never
// written.
func TestWriteFileReplacesPlantedLinks(t *testing.T) {
	dir, victims := t.TempDir(), t.TempDir()
	for _, n := range []string{"a", "b"} {
		os.WriteFile(filepath.Join(victims, n), []byte("theirs"), 0o644)
	}
	os.Symlink(filepath.Join(victims, "a"), filepath.Join(dir, "report.md"))
	os.Symlink(filepath.Join(victims, "b"), filepath.Join(dir, "report.md.tmp"))
	p := filepath.Join(dir, "report.md")
	if err := WriteFile(p, []byte("ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(victims, "a")) != "theirs" || read(t, filepath.Join(victims, "b")) != "theirs" {
		t.Error("a link's target was written")
	}
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || read(t, p) != "ours" {
		t.Errorf("report.md: %v %v", fi, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestWriteFileFolderRule(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode fs.FileMode) string {
		d := filepath.Join(base, name)
		os.Mkdir(d, 0o700)
		os.Chmod(d, mode)
		return d
	}
	gw := mk("gw", 0o775)
	if err := WriteFile(filepath.Join(gw, "x"), nil, 0o644); err == nil {
		t.Fatal("group-writable folder accepted")
	} else {
		wantRefused(t, err, gw)
		if !strings.Contains(err.Error(), "mode 0775") {
			t.Errorf("mode not named: %v", err)
		}
	}
	sticky := mk("sticky", 0o777|fs.ModeSticky)
	if err := WriteFile(filepath.Join(sticky, "x"), []byte("1"), 0o644); err != nil {
		t.Errorf("sticky folder like /tmp: %v", err)
	}
	if err := WriteFile(filepath.Join(base, "x"), []byte("1"), 0o644); err != nil {
		t.Errorf("own folder: %v", err)
	}
	link := filepath.Join(base, "link")
	os.Symlink(sticky, link)
	if err := WriteFile(filepath.Join(link, "y"), nil, 0o644); err == nil {
		t.Error("folder given as a link accepted")
	} else {
		wantRefused(t, err, link)
	}
}

func TestFolderOfAnotherUser(t *testing.T) {
	needRoot(t)
	d := filepath.Join(t.TempDir(), "theirs")
	os.Mkdir(d, 0o755)
	os.Chown(d, nobody, nobody)
	err := WriteFile(filepath.Join(d, "x"), nil, 0o644)
	wantRefused(t, err, d)
	if !strings.Contains(err.Error(), "uid 65534") {
		t.Errorf("owner not named: %v", err)
	}
	if _, err := Open(filepath.Join(d, "y"), os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		t.Error("Open in a folder of uid 65534 accepted")
	}
	if _, err := os.Stat(filepath.Join(d, "y")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("created anyway: %v", err)
	}
}

func TestOpenRefuses(t *testing.T) {
	dir, victims := t.TempDir(), t.TempDir()
	target := filepath.Join(victims, "empty")
	os.WriteFile(target, nil, 0o600)
	cases := map[string]func(p string){
		"symlink":  func(p string) { os.Symlink(target, p) },
		"dangling": func(p string) { os.Symlink(filepath.Join(victims, "new"), p) },
		"0666": func(p string) {
			os.WriteFile(p, []byte("x\n"), 0o600)
			os.Chmod(p, 0o666)
		},
		"hardlink": func(p string) {
			os.WriteFile(filepath.Join(victims, "h"), nil, 0o600)
			os.Link(filepath.Join(victims, "h"), p)
		},
		"fifo":   func(p string) { syscall.Mkfifo(p, 0o600) },
		"folder": func(p string) { os.Mkdir(p, 0o700) },
	}
	if os.Geteuid() == 0 {
		cases["nobody's"] = func(p string) {
			os.WriteFile(p, []byte("x\n"), 0o600)
			os.Chown(p, nobody, nobody)
		}
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, "'", ""))
			plant(p)
			f, err := Open(p, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
			if err == nil {
				f.Close()
				t.Fatal("opened")
			}
			if name == "folder" {
				return // EISDIR from the kernel, before any check
			}
			wantRefused(t, err, p)
		})
	}
	if read(t, target) != "" {
		t.Error("the link's target was written")
	}
	if _, err := os.Lstat(filepath.Join(victims, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dangling link's target was created: %v", err)
	}
}

func TestOpenOwnFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	f, err := Open(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("line\n")
	f.Close()
	f, err = Open(p, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 10)
	n, _ := f.Read(b)
	if string(b[:n]) != "line\n" {
		t.Errorf("read %q", b[:n])
	}
	if err := CheckFile(p); err != nil {
		t.Errorf("CheckFile: %v", err)
	}
	if err := CheckFile(filepath.Join(filepath.Dir(p), "absent")); err != nil {
		t.Errorf("CheckFile of a new file: %v", err)
	}
}

func TestMkdirPrivate(t *testing.T) {
	base := t.TempDir()
	fresh := filepath.Join(base, "a", "rocekit-peer")
	if err := MkdirPrivate(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", fi.Mode())
	}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777|fs.ModeSticky)
	wantRefused(t, MkdirPrivate(open), open)
	link := filepath.Join(base, "link")
	os.Symlink(fresh, link)
	wantRefused(t, MkdirPrivate(link), link)
	if err := CheckPrivateDir(filepath.Join(base, "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v", err)
	}
	if os.Geteuid() == 0 {
		// Root's own folder is fine for CheckDir, not nobody's for CheckPrivateDir.
		theirs := filepath.Join(base, "theirs")
		os.Mkdir(theirs, 0o700)
		os.Chown(theirs, nobody, nobody)
		wantRefused(t, MkdirPrivate(theirs), theirs)
	}
}
