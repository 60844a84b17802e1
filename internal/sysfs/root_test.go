package sysfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
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

// Resolve follows relative links, and refuses absolute ones, links that
// climb out of the root and loops.
func TestResolve(t *testing.T) {
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(target)}
	}
	r := NewRootFS(fstest.MapFS{
		"sys/devices/pci0000:00/0000:00:03.0/virtio1/net/eth0/mtu": {Data: []byte("1500\n")},
		"sys/class/net/eth0":   link("../../devices/pci0000:00/0000:00:03.0/virtio1/net/eth0"),
		"sys/class/net/abs":    link("/sys/devices/virtual/net/abs"),
		"sys/class/net/out":    link("../../../../etc"),
		"sys/class/net/loop":   link("loop2"),
		"sys/class/net/loop2":  link("loop"),
		"sys/class/net/broken": link("../../devices/gone"),
	})
	for _, c := range []struct {
		name, want, errText string
	}{
		{"sys/class/net/eth0", "sys/devices/pci0000:00/0000:00:03.0/virtio1/net/eth0", ""},
		{"sys/devices/pci0000:00", "sys/devices/pci0000:00", ""}, // no link: as is
		{"sys/class/net/abs", "", "links to absolute path /sys/devices/virtual/net/abs"},
		{"sys/class/net/out", "", "links out of the root"},
		{"sys/class/net/loop", "", "too many levels of symbolic links"},
	} {
		got, err := r.Resolve(c.name)
		if got != c.want || (c.errText == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.errText)) {
			t.Errorf("Resolve(%s) = %q, %v; want %q, error %q", c.name, got, err, c.want, c.errText)
		}
	}
	for _, name := range []string{"sys/class/net/broken", "sys/class/net/none"} {
		if _, err := r.Resolve(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Resolve(%s): %v, want fs.ErrNotExist", name, err)
		}
	}
}

// AlsoMatch adds a package's sentinel to this package's parse errors only.
func TestAlsoMatch(t *testing.T) {
	own := errors.New("irq: cannot parse")
	_, perr := ParseCPUList("3-1")
	if err := AlsoMatch(perr, own); !errors.Is(err, own) || !errors.Is(err, ErrParse) {
		t.Errorf("parse error: %v matches not both", err)
	}
	if err := AlsoMatch(AlsoMatch(perr, own), own); err.Error() != AlsoMatch(perr, own).Error() {
		t.Errorf("twice: %q", err)
	}
	if err := AlsoMatch(fs.ErrNotExist, own); err != fs.ErrNotExist {
		t.Errorf("other error: %v, want it unchanged", err)
	}
	if err := AlsoMatch(nil, own); err != nil {
		t.Errorf("nil: %v", err)
	}
}
