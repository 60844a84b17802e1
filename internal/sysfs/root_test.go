package sysfs

import (
	"os"
	"path/filepath"
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
