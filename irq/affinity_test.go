package irq

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/sysroot"
)

func TestAffinity(t *testing.T) {
	tests := []struct {
		tree string
		irq  int
		want Affinity
	}{
		{"bookworm", 27, Affinity{IRQ: 27, CPUs: CPUList{0, 1, 2, 3}, Effective: CPUList{1}}},
		{"bookworm", 2, Affinity{IRQ: 2, CPUs: CPUList{0, 1, 2, 3}, Effective: CPUList{}}}, // the cascade: empty effective list
		{"mlx5-2node", 130, Affinity{IRQ: 130, CPUs: CPUList{33}, Effective: CPUList{33}}},
	}
	for _, tt := range tests {
		got, err := fixtureFS(t, tt.tree).Affinity(tt.irq)
		if err != nil {
			t.Errorf("%s IRQ %d: %v", tt.tree, tt.irq, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s IRQ %d (-want +got):\n%s", tt.tree, tt.irq, diff)
		}
	}
}

// TestAffinityReadOnly: the managed IRQs of the captures are read-only once
// their mode is restored (git does not keep it).
func TestAffinityReadOnly(t *testing.T) {
	for _, c := range []struct {
		tree string
		irq  int
	}{{"host", 36}, {"trixie", 0}, {"mlx5-2node", 25}} {
		fs, _ := copyTree(t, c.tree)
		a, err := fs.Affinity(c.irq)
		if err != nil || !a.ReadOnly {
			t.Errorf("%s IRQ %d: %+v, %v; want ReadOnly", c.tree, c.irq, a, err)
		}
	}
}

// A root made from an fs.FS reads, and refuses every write with
// ErrReadOnly before touching anything.
func TestSetAffinityFSRootReadOnly(t *testing.T) {
	fs := Root(sysroot.FromFS(os.DirFS("testdata/trixie")))
	old, err := fs.SetAffinity(10, CPUList{1})
	if !errors.Is(err, ErrReadOnly) || !cmp.Equal(old, CPUList{0, 1, 2, 3}) {
		t.Errorf("SetAffinity on an fs.FS root: replaced %v, %v; want 0-3 and ErrReadOnly", old, err)
	}
}

func TestAffinityMissing(t *testing.T) {
	_, err := fixtureFS(t, "bookworm").Affinity(999)
	var ae *AffinityError
	if !errors.As(err, &ae) || ae.IRQ != 999 || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want *AffinityError matching os.ErrNotExist", err)
	}
	// Without effective_affinity_list (kernels before 4.13) Effective is
	// nil, not an error.
	fs, dir := copyTree(t, "bookworm")
	if err := os.Remove(dir + "/proc/irq/27/effective_affinity_list"); err != nil {
		t.Fatal(err)
	}
	a, err := fs.Affinity(27)
	if err != nil || a.Effective != nil || a.CPUs.String() != "0-3" {
		t.Errorf("got %+v, %v", a, err)
	}
}

func TestWaitEffectiveTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	a, err := fixtureFS(t, "bookworm").WaitEffective(ctx, 27, CPUList{3})
	if !errors.Is(err, context.DeadlineExceeded) || a.Effective.String() != "1" {
		t.Errorf("got %+v, %v; want the last read and DeadlineExceeded", a, err)
	}
	a, err = fixtureFS(t, "bookworm").WaitEffective(context.Background(), 27, CPUList{0, 1})
	if err != nil || a.Effective.String() != "1" {
		t.Errorf("got %+v, %v", a, err)
	}
}
