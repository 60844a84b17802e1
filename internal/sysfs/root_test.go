package sysfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureRoot returns a Root on ../../irq/testdata/<name>/{proc,sys}, trees
// captured in lab guests and on real hosts (see that folder's README.md).
func fixtureRoot(t testing.TB, name string) Root {
	t.Helper()
	dir := filepath.Join("..", "..", "irq", "testdata", name)
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	return NewProcSys(filepath.Join(dir, "proc"), filepath.Join(dir, "sys"))
}

func TestOSPath(t *testing.T) {
	tests := []struct {
		root       Root
		name, want string
	}{
		{Root{}, "sys/class/net", "/sys/class/net"},
		{Root{}, "proc", "/proc"},
		{NewRoot("/tmp/t"), "lib/modules", "/tmp/t/lib/modules"},
		{NewProcSys("/f/proc", ""), "proc/interrupts", "/f/proc/interrupts"},
		{NewProcSys("/f/proc", ""), "sys/devices", "/sys/devices"},
		{NewProcSys("", "/f/sys"), "sys", "/f/sys"},
		{NewProcSys("", "/f/sys"), "system", "/system"},
	}
	for _, tt := range tests {
		if got, ok := tt.root.OSPath(tt.name); !ok || got != tt.want {
			t.Errorf("%+v.OSPath(%q) = %q, %v; want %q", tt.root, tt.name, got, ok, tt.want)
		}
	}
	if _, ok := NewRootFS(os.DirFS(".")).OSPath("sys"); ok {
		t.Error("an fs.FS root gave an OS path")
	}
}

// A file longer than the limit is an error, never a truncated read.
func TestReadAllLimit(t *testing.T) {
	for _, c := range []struct {
		n       int
		tooLong bool
	}{{0, false}, {16, false}, {17, true}, {4096, true}} {
		b, err := readAllLimit(strings.NewReader(strings.Repeat("x", c.n)), 16)
		switch {
		case c.tooLong && !errors.Is(err, ErrTooLarge):
			t.Errorf("%d bytes, limit 16: %d bytes, %v; want ErrTooLarge", c.n, len(b), err)
		case !c.tooLong && (err != nil || len(b) != c.n):
			t.Errorf("%d bytes, limit 16: %d bytes, %v", c.n, len(b), err)
		}
	}
}
