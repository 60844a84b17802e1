package sysroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestOSPath(t *testing.T) {
	tests := []struct {
		root       Root
		name, want string
	}{
		{Host, "sys/class/net", "/sys/class/net"},
		{Root{}, "proc", "/proc"},
		{Dir("/tmp/t/"), "lib/modules", "/tmp/t/lib/modules"},
		{Dir("/tmp/t"), "proc/interrupts", "/tmp/t/proc/interrupts"},
		{ProcSys("/f/proc", ""), "proc/interrupts", "/f/proc/interrupts"},
		{ProcSys("/f/proc", ""), "sys/devices", "/sys/devices"},
		{ProcSys("", "/f/sys"), "sys", "/f/sys"},
		{ProcSys("", "/f/sys"), "system", "/system"},
	}
	for _, tt := range tests {
		if got, ok := tt.root.OSPath(tt.name); !ok || got != tt.want {
			t.Errorf("%v.OSPath(%q) = %q, %v; want %q", tt.root, tt.name, got, ok, tt.want)
		}
	}
	if _, ok := FromFS(os.DirFS(".")).OSPath("sys"); ok {
		t.Error("an fs.FS root gave an OS path")
	}
}

func TestDirsAndString(t *testing.T) {
	for _, c := range []struct {
		r              Root
		proc, sys, str string
		host           bool
	}{
		{Host, "/proc", "/sys", "host", true},
		{Dir("/t"), "/t/proc", "/t/sys", "dir /t", false},
		{ProcSys("/f/proc", ""), "/f/proc", "/sys", "proc /f/proc sys /sys", false},
		{ProcSys("", ""), "/proc", "/sys", "host", true},
		{ProcSys("/proc/", "/sys"), "/proc", "/sys", "host", true},
		{Dir("/"), "/proc", "/sys", "host", true},
		{FromFS(fstest.MapFS{}), "", "", "fs", false},
	} {
		if got := c.r.ProcDir(); got != c.proc {
			t.Errorf("%v.ProcDir() = %q, want %q", c.r, got, c.proc)
		}
		if got := c.r.SysDir(); got != c.sys {
			t.Errorf("%v.SysDir() = %q, want %q", c.r, got, c.sys)
		}
		if got := c.r.String(); got != c.str {
			t.Errorf("String() = %q, want %q", got, c.str)
		}
		if got := c.r.IsHost(); got != c.host {
			t.Errorf("%v.IsHost() = %v, want %v", c.r, got, c.host)
		}
	}
}

// A Root on a directory reads through the OS and its errors name the real
// path; links are read as links.
func TestFSOnDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sys", "class", "net"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sys", "mtu"), []byte("1500\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../mtu", filepath.Join(dir, "sys", "class", "net", "eth0")); err != nil {
		t.Fatal(err)
	}
	f := Dir(dir).FS()
	b, err := fs.ReadFile(f, "sys/mtu")
	if err != nil || string(b) != "1500\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if tgt, err := fs.ReadLink(f, "sys/class/net/eth0"); err != nil || tgt != "../../mtu" {
		t.Fatalf("ReadLink = %q, %v", tgt, err)
	}
	if st, err := fs.Lstat(f, "sys/class/net/eth0"); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("Lstat = %v, %v", st, err)
	}
	if es, err := fs.ReadDir(f, "sys"); err != nil || len(es) != 2 {
		t.Fatalf("ReadDir = %v, %v", es, err)
	}
	_, err = f.Open("sys/gone")
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != filepath.Join(dir, "sys", "gone") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v; want a PathError naming the real path", err)
	}
	if _, err := f.Open("../etc/passwd"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Open(../etc/passwd) = %v; want fs.ErrInvalid", err)
	}
}

// A Root on an fs.FS hands the same fs.FS back.
func TestFromFS(t *testing.T) {
	m := fstest.MapFS{"proc/interrupts": {Data: []byte("x")}}
	b, err := fs.ReadFile(FromFS(m).FS(), "proc/interrupts")
	if err != nil || string(b) != "x" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
}
