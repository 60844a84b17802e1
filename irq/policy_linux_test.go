package irq

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func itoa(n int) string { return strconv.Itoa(n) }

func TestApplyRestore(t *testing.T) {
	fs, dir := copyTree(t, "bookworm")
	plan := RoundRobin(guestNICs(t, "bookworm"), CPUList{3, 2, 1, 0})
	// Pre-set the effective lists the kernel would show after the write.
	for _, a := range plan.Assign {
		os.WriteFile(dir+"/proc/irq/"+itoa(a.IRQ)+"/effective_affinity_list", []byte(a.CPUs.String()+"\n"), 0o644)
	}
	ctx := context.Background()
	res, err := fs.Apply(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	want := Applied{
		Changes: []Change{
			{IRQ: 27, Name: "virtio1-input.0", Replaced: CPUList{0, 1, 2, 3}, Requested: CPUList{3}, Effective: CPUList{3}},
			{IRQ: 28, Name: "virtio1-output.0", Replaced: CPUList{0, 1, 2, 3}, Requested: CPUList{2}, Effective: CPUList{2}},
			{IRQ: 30, Name: "virtio2-input.0", Replaced: CPUList{0, 1, 2, 3}, Requested: CPUList{1}, Effective: CPUList{1}},
			{IRQ: 31, Name: "virtio2-output.0", Replaced: CPUList{0, 1, 2, 3}, Requested: CPUList{0}, Effective: CPUList{0}},
		},
		Skipped: plan.Skipped,
	}
	if diff := cmp.Diff(want, res, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Apply (-want +got):\n%s", diff)
	}
	for _, c := range want.Changes {
		a, _ := fs.Affinity(c.IRQ)
		if !a.CPUs.Equal(c.Requested) {
			t.Errorf("IRQ %d smp_affinity_list %v, want %v", c.IRQ, a.CPUs, c.Requested)
		}
	}
	undo, err := fs.Restore(ctx, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(undo.Changes) != 4 || undo.Changes[0].IRQ != 31 || undo.Changes[0].Replaced.String() != "0" {
		t.Errorf("Restore = %+v", undo.Changes)
	}
	for _, c := range want.Changes {
		a, _ := fs.Affinity(c.IRQ)
		if a.CPUs.String() != "0-3" {
			t.Errorf("IRQ %d after restore: %v", c.IRQ, a.CPUs)
		}
	}
}

// TestApplyManagedAndIRQBalance: read-only IRQs are recorded and skipped,
// a running irqbalance is a warning, and an effective affinity that has
// not followed yet is marked pending.
func TestApplyManagedAndIRQBalance(t *testing.T) {
	fs, _ := copyTree(t, "mlx5-2node")
	plan := Plan{Assign: []Assignment{
		{IRQ: 25, Name: "nvme0q1", CPUs: CPUList{1}},
		{IRQ: 121, Name: "mlx5_comp0@pci:0000:af:00.0", CPUs: CPUList{30}},
	}}
	// IRQ 121's fixture effective list stays 24: no kernel moves it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := fs.Apply(ctx, plan)
	if err != nil {
		t.Fatalf("Apply: %v (a managed IRQ must not fail it)", err)
	}
	if len(res.Changes) != 2 || !errors.Is(res.Changes[0].Err, ErrNotWritable) || res.Changes[1].Err != nil {
		t.Fatalf("changes %+v", res.Changes)
	}
	if c := res.Changes[1]; !c.Pending || c.Effective.String() != "24" || c.Requested.String() != "30" {
		t.Errorf("IRQ 121: %+v, want pending with effective 24", c)
	}
	if got := res.Changes[0].Replaced.String(); got != "0-11" {
		t.Errorf("managed IRQ replaced %q", got)
	}
	if len(res.Warnings) != 1 || !errors.Is(res.Warnings[0], ErrIRQBalance) {
		t.Errorf("warnings %v", res.Warnings)
	}
	// Restore skips the managed IRQ.
	undo, err := fs.Restore(ctx, res)
	if err != nil || len(undo.Changes) != 1 || undo.Changes[0].IRQ != 121 {
		t.Errorf("Restore %+v, %v", undo, err)
	}
	// A cancelled context stops Apply.
	cancel()
	if _, err := fs.Apply(ctx, plan); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
