package irq

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func guestNICs(t *testing.T, tree string) []QueueIRQ {
	t.Helper()
	fs := fixtureFS(t, tree)
	var all []QueueIRQ
	for _, n := range []string{"eth0", "eth1"} {
		d, err := fs.Netdev(n)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, d.IRQs...)
	}
	return all
}

func TestRoundRobin(t *testing.T) {
	p := RoundRobin(guestNICs(t, "bookworm"), CPUList{0, 1, 2, 3})
	want := Plan{
		Policy: "round-robin over CPUs 0-3",
		Assign: []Assignment{
			{IRQ: 27, Name: "virtio1-input.0", CPUs: CPUList{0}},
			{IRQ: 28, Name: "virtio1-output.0", CPUs: CPUList{1}},
			{IRQ: 30, Name: "virtio2-input.0", CPUs: CPUList{2}},
			{IRQ: 31, Name: "virtio2-output.0", CPUs: CPUList{3}},
		},
		Skipped: []Skip{
			{IRQ: 26, Name: "virtio1-config", Reason: "control vector"},
			{IRQ: 29, Name: "virtio2-config", Reason: "control vector"},
		},
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Fewer CPUs than IRQs wrap around; duplicates are kept once.
	irqs := guestNICs(t, "bookworm")
	p = RoundRobin(append(irqs, irqs...), CPUList{5, 7})
	var got []string
	for _, a := range p.Assign {
		got = append(got, a.CPUs.String())
	}
	if diff := cmp.Diff([]string{"5", "7", "5", "7"}, got); diff != "" {
		t.Errorf("wrap (-want +got):\n%s", diff)
	}
	if p := RoundRobin(irqs, nil); len(p.Assign) != 0 || len(p.Warnings) != 1 {
		t.Errorf("empty list: %+v", p)
	}
}

func TestPinAll(t *testing.T) {
	p := PinAll(guestNICs(t, "trixie"), 3)
	if p.Policy != "all on CPU 3" || len(p.Assign) != 4 || len(p.Skipped) != 2 {
		t.Fatalf("%+v", p)
	}
	for _, a := range p.Assign {
		if a.CPUs.String() != "3" {
			t.Errorf("IRQ %d -> %v", a.IRQ, a.CPUs)
		}
	}
	want := "all on CPU 3\nIRQ 27 (virtio1-input.0) -> 3\nIRQ 28 (virtio1-output.0) -> 3\nIRQ 30 (virtio2-input.0) -> 3\nIRQ 31 (virtio2-output.0) -> 3\n" +
		"IRQ 26 (virtio1-config) skipped: control vector\nIRQ 29 (virtio2-config) skipped: control vector\n"
	if diff := cmp.Diff(want, p.String()); diff != "" {
		t.Errorf("String (-want +got):\n%s", diff)
	}
}

func TestByNode(t *testing.T) {
	fs := fixtureFS(t, "mlx5-2node")
	d, err := fs.Netdev("ens1f0np0")
	if err != nil {
		t.Fatal(err)
	}
	p, err := fs.ByNode(d, -1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Policy != "round-robin over NUMA node 1 (CPUs 24-47,72-95)" || len(p.Assign) != 48 || len(p.Warnings) != 0 {
		t.Fatalf("%s, %d assignments, %v", p.Policy, len(p.Assign), p.Warnings)
	}
	if diff := cmp.Diff([]Skip{{IRQ: 120, Name: "mlx5_async0@pci:0000:af:00.0", Reason: "control vector"}}, p.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	// comp0..23 on 24..47, comp24..47 on 72..95.
	if a := p.Assign[0]; a.IRQ != 121 || a.CPUs.String() != "24" {
		t.Errorf("first %+v", a)
	}
	if a := p.Assign[24]; a.IRQ != 145 || a.CPUs.String() != "72" {
		t.Errorf("25th %+v", a)
	}
	// Forcing node 0.
	p, _ = fs.ByNode(d, 0)
	if a := p.Assign[0]; a.CPUs.String() != "0" {
		t.Errorf("node 0 first %+v", a)
	}

	// The host and the guests do not know the NIC's node (-1): the
	// device's local CPUs are used, with a warning.
	h := fixtureFS(t, "host")
	hd, err := h.Netdev("eth0")
	if err != nil {
		t.Fatal(err)
	}
	p, err = h.ByNode(hd, -1)
	if err != nil || len(p.Assign) != 2 || len(p.Warnings) != 1 || p.Warnings[0].Error() != "irq: eth0: NUMA node unknown; using its local CPUs 0-1" {
		t.Errorf("host: %+v, %v", p, err)
	}
	hd.LocalCPUs = nil
	p, err = h.ByNode(hd, -1)
	if err != nil || len(p.Warnings) != 1 || p.Warnings[0].Error() != "irq: eth0: NUMA node unknown; using all online CPUs 0-1" {
		t.Errorf("host without local CPUs: %+v, %v", p, err)
	}
}
