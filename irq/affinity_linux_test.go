package irq

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

func TestSetAffinity(t *testing.T) {
	fsys, dir := copyTree(t, "bookworm")
	old, err := fsys.SetAffinity(27, CPUList{2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(CPUList{0, 1, 2, 3}, old); diff != "" {
		t.Errorf("replaced (-want +got):\n%s", diff)
	}
	b, _ := os.ReadFile(dir + "/proc/irq/27/smp_affinity_list")
	if string(b) != "2\n" {
		t.Errorf("file holds %q, want \"2\\n\"", b)
	}
	old, err = fsys.SetAffinity(27, CPUList{0, 1, 2, 3})
	if err != nil || old.String() != "2" {
		t.Errorf("second write replaced %v, %v", old, err)
	}
	if _, err := fsys.SetAffinity(27, CPUList{}); err == nil {
		t.Error("empty list accepted")
	}
}

// TestSetAffinityReadOnly: a mode 0444 file is refused without writing,
// also as root, which could write it.
func TestSetAffinityReadOnly(t *testing.T) {
	fsys, dir := copyTree(t, "host")
	p := dir + "/proc/irq/36/smp_affinity_list"
	before, _ := os.ReadFile(p)
	old, err := fsys.SetAffinity(36, CPUList{0})
	var ae *AffinityError
	if !errors.Is(err, ErrNotWritable) || !errors.As(err, &ae) || ae.IRQ != 36 || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("err = %v, want *AffinityError matching ErrNotWritable and fs.ErrPermission", err)
	}
	if old.String() != "0-1" {
		t.Errorf("replaced = %v, want the current 0-1", old)
	}
	after, _ := os.ReadFile(p)
	if string(before) != string(after) {
		t.Errorf("read-only file was written: %q -> %q", before, after)
	}
}

// TestAffinityErrorErrno maps the kernel's answers to the sentinels.
func TestAffinityErrorErrno(t *testing.T) {
	wrap := func(e error) error {
		return &AffinityError{IRQ: 5, CPUs: CPUList{1}, Err: &os.PathError{Op: "write", Path: "/proc/irq/5/smp_affinity_list", Err: e}}
	}
	tests := []struct {
		errno               error
		notWritable, invald bool
	}{
		{unix.EIO, true, false},
		{unix.EPERM, true, false},
		{unix.EINVAL, false, true},
		{unix.ENOSPC, false, false},
	}
	for _, tt := range tests {
		err := wrap(tt.errno)
		if errors.Is(err, ErrNotWritable) != tt.notWritable || errors.Is(err, ErrInvalidCPUs) != tt.invald {
			t.Errorf("%v: ErrNotWritable %v, ErrInvalidCPUs %v", tt.errno, errors.Is(err, ErrNotWritable), errors.Is(err, ErrInvalidCPUs))
		}
		if !errors.Is(err, tt.errno) {
			t.Errorf("%v is not unwrapped", tt.errno)
		}
		if !strings.Contains(err.Error(), `IRQ 5: set affinity "1"`) {
			t.Errorf("message %q", err)
		}
	}
}
