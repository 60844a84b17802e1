package irq

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rocekit/rocekit/internal/fixturefs"
	"github.com/rocekit/rocekit/nic"
)

func TestNetdevVirtio(t *testing.T) {
	tests := []struct {
		tree string
		name string
		want Netdev
	}{
		{"bookworm", "eth0", Netdev{Name: "eth0", Device: "/sys/devices/pci0000:00/0000:00:03.0/virtio1", PCI: "0000:00:03.0",
			Driver: "virtio_net", NUMANode: -1, LocalCPUs: CPUList{0, 1, 2, 3}, IRQs: []QueueIRQ{
				{IRQ: 26, Name: "virtio1-config", Role: RoleControl, Queue: -1},
				{IRQ: 27, Name: "virtio1-input.0", Role: RoleQueue, Queue: 0, Direction: DirRX},
				{IRQ: 28, Name: "virtio1-output.0", Role: RoleQueue, Queue: 0, Direction: DirTX},
			}}},
		{"trixie", "eth1", Netdev{Name: "eth1", Device: "/sys/devices/pci0000:00/0000:00:04.0/virtio2", PCI: "0000:00:04.0",
			Driver: "virtio_net", NUMANode: -1, LocalCPUs: CPUList{0, 1, 2, 3}, IRQs: []QueueIRQ{
				{IRQ: 29, Name: "virtio2-config", Role: RoleControl, Queue: -1},
				{IRQ: 30, Name: "virtio2-input.0", Role: RoleQueue, Queue: 0, Direction: DirRX},
				{IRQ: 31, Name: "virtio2-output.0", Role: RoleQueue, Queue: 0, Direction: DirTX},
			}}},
		{"host", "eth0", Netdev{Name: "eth0", Device: "/sys/devices/pci0000:00/0000:00:03.0/virtio2", PCI: "0000:00:03.0",
			Driver: "virtio_net", NUMANode: -1, LocalCPUs: CPUList{0, 1}, IRQs: []QueueIRQ{
				{IRQ: 37, Name: "virtio2-config", Role: RoleControl, Queue: -1},
				{IRQ: 38, Name: "virtio2-input.0", Role: RoleQueue, Queue: 0, Direction: DirRX},
				{IRQ: 39, Name: "virtio2-output.0", Role: RoleQueue, Queue: 0, Direction: DirTX},
			}}},
	}
	for _, tt := range tests {
		got, err := fixtureFS(t, tt.tree).Netdev(tt.name)
		if err != nil {
			t.Errorf("%s %s: %v", tt.tree, tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.tree, tt.name, diff)
		}
	}
}

func TestNetdevMlx5(t *testing.T) {
	d, err := fixtureFS(t, "mlx5-2node").Netdev("ens1f0np0")
	if err != nil {
		t.Fatal(err)
	}
	if d.PCI != "0000:af:00.0" || d.Driver != "mlx5_core" || d.NUMANode != 1 || d.LocalCPUs.String() != "24-47,72-95" || len(d.Warnings) != 0 {
		t.Errorf("device = %+v", d)
	}
	if len(d.IRQs) != 49 {
		t.Fatalf("%d IRQs, want 49", len(d.IRQs))
	}
	want := []QueueIRQ{
		{IRQ: 120, Name: "mlx5_async0@pci:0000:af:00.0", Role: RoleControl, Queue: -1},
		{IRQ: 121, Name: "mlx5_comp0@pci:0000:af:00.0", Role: RoleQueue, Queue: 0, Direction: DirRXTX},
	}
	if diff := cmp.Diff(want, d.IRQs[:2]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	last := d.IRQs[48]
	if last.IRQ != 168 || last.Queue != 47 || last.Role != RoleQueue {
		t.Errorf("last IRQ = %+v", last)
	}
	if n := len(d.Queues()); n != 48 {
		t.Errorf("%d queues, want 48", n)
	}
	if got := d.IRQNumbers(); got[0] != 120 || got[48] != 168 {
		t.Errorf("IRQNumbers = %v", got)
	}
}

func TestNetdevErrors(t *testing.T) {
	fs := fixtureFS(t, "bookworm")
	if _, err := fs.Netdev("lo"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("lo: err = %v, want ErrNoDevice", err)
	}
	if _, err := fs.Netdev("eth9"); err == nil || errors.Is(err, ErrNoDevice) {
		t.Errorf("eth9: err = %v, want a not-found error", err)
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if _, err := fs.Netdev(bad); err == nil {
			t.Errorf("Netdev(%q) gave no error", bad)
		}
	}
}

// TestMatchIRQsByName covers devices without msi_irqs: IRQs are found by
// interface name, PCI address in the name or chip, or virtio device.
func TestMatchIRQsByName(t *testing.T) {
	in, err := ParseInterrupts(strings.NewReader(`            CPU0       CPU1
 40:  1  2  IR-PCI-MSI 1-edge  eth0
 41:  1  2  IR-PCI-MSI 2-edge  eth0-TxRx-0
 42:  1  2  IR-PCI-MSI 3-edge  eth0-TxRx-1
 43:  1  2  IR-PCI-MSI 4-edge  eth01-TxRx-0
 44:  1  2  IR-PCI-MSI 5-edge  i40e-0000:3b:00.0:misc
 45:  1  2  IR-PCI-MSI 6-edge  i40e-eth0-TxRx-2
 46:  1  2  IR-PCI-MSIX-0000:3b:00.0 7-edge  something
 47:  1  2  IR-PCI-MSI 8-edge  virtio3-input.0
`))
	if err != nil {
		t.Fatal(err)
	}
	got, warns := matchIRQs(in, "eth0", "0000:3b:00.0", "", nil, nil)
	want := []QueueIRQ{
		{IRQ: 40, Name: "eth0", Role: RoleControl, Queue: -1},
		{IRQ: 41, Name: "eth0-TxRx-0", Role: RoleQueue, Queue: 0, Direction: DirRXTX},
		{IRQ: 42, Name: "eth0-TxRx-1", Role: RoleQueue, Queue: 1, Direction: DirRXTX},
		{IRQ: 44, Name: "i40e-0000:3b:00.0:misc", Role: RoleControl, Queue: -1},
		{IRQ: 45, Name: "i40e-eth0-TxRx-2", Role: RoleQueue, Queue: 2, Direction: DirRXTX},
		{IRQ: 46, Name: "something", Role: RoleOther, Queue: -1},
	}
	if diff := cmp.Diff(want, got); diff != "" || len(warns) != 0 {
		t.Errorf("(-want +got):\n%s\nwarnings %v", diff, warns)
	}
	got, _ = matchIRQs(in, "eth5", "", "virtio3", nil, nil)
	if diff := cmp.Diff([]QueueIRQ{{IRQ: 47, Name: "virtio3-input.0", Role: RoleQueue, Queue: 0, Direction: DirRX}}, got); diff != "" {
		t.Errorf("virtio by device (-want +got):\n%s", diff)
	}
	// An msi_irqs entry missing from /proc/interrupts is kept, with a
	// warning; an unknown first vector of an mlx5 device is its control
	// vector.
	in2, _ := ParseInterrupts(strings.NewReader("  CPU0\n 60: 1 PCI-MSI 0-edge mlx5_comp0@pci:0000:04:00.0\n"))
	got, warns = matchIRQs(in2, "ens1", "0000:04:00.0", "", []int{59, 60}, nil)
	want = []QueueIRQ{
		{IRQ: 59, Role: RoleControl, Queue: -1},
		{IRQ: 60, Name: "mlx5_comp0@pci:0000:04:00.0", Role: RoleQueue, Queue: 0, Direction: DirRXTX},
	}
	if diff := cmp.Diff(want, got); diff != "" || len(warns) != 1 {
		t.Errorf("(-want +got):\n%s\nwarnings %v", diff, warns)
	}
}

func TestClassifyAction(t *testing.T) {
	type result struct {
		Role  Role
		Queue int
		Dir   Direction
	}
	tests := []struct {
		action, netdev string
		want           result
	}{
		{"mlx5_comp7@pci:0000:3b:00.0", "", result{RoleQueue, 7, DirRXTX}},
		{"mlx5_async0@pci:0000:3b:00.0", "", result{RoleControl, -1, DirUnknown}},
		{"mlx5_pages_eq@pci:0000:3b:00.0", "", result{RoleControl, -1, DirUnknown}},
		{"mlx4-3@0000:04:00.0", "", result{RoleQueue, 3, DirRXTX}},
		{"mlx4-async@pci:0000:04:00.0", "", result{RoleControl, -1, DirUnknown}},
		{"virtio1-input.0", "", result{RoleQueue, 0, DirRX}},
		{"virtio1-output.12", "", result{RoleQueue, 12, DirTX}},
		{"virtio1-config", "", result{RoleControl, -1, DirUnknown}},
		{"virtio0-virtqueues", "", result{RoleQueue, -1, DirRXTX}},
		{"eth0-TxRx-3", "eth0", result{RoleQueue, 3, DirRXTX}},
		{"ice-ens1f0-TxRx-15", "ens1f0", result{RoleQueue, 15, DirRXTX}},
		{"eth0-Tx-Rx-2", "", result{RoleQueue, 2, DirRXTX}},
		{"eth0-fp-4", "", result{RoleQueue, 4, DirRXTX}},
		{"eth0-rx-1", "", result{RoleQueue, 1, DirRX}},
		{"eth0-tx-1", "", result{RoleQueue, 1, DirTX}},
		{"gve-ntfy-blk5@pci:0000:00:04.0", "", result{RoleQueue, 5, DirRXTX}},
		{"gve-mgmnt@pci:0000:00:04.0", "", result{RoleControl, -1, DirUnknown}},
		{"ena-mgmnt@pci:0000:00:05.0", "", result{RoleControl, -1, DirUnknown}},
		{"i40e-0000:3b:00.0:misc", "", result{RoleControl, -1, DirUnknown}},
		{"eth0", "eth0", result{RoleControl, -1, DirUnknown}},
		{"eth0-3", "eth0", result{RoleQueue, 3, DirRXTX}},
		{"mana_q3@pci:7870:00:00.0", "", result{RoleQueue, 3, DirRXTX}},
		{"mana_hwc@pci:7870:00:00.0", "", result{RoleControl, -1, DirUnknown}},
		{"i40e-0000:01:00.0:fdir-TxRx-0", "", result{RoleSideband, -1, DirUnknown}},
		{"i40e-eth0-fdir-TxRx-0", "eth0", result{RoleSideband, -1, DirUnknown}},
		{"i40e-eth0-TxRx-3", "eth0", result{RoleQueue, 3, DirRXTX}},
		{"mlx4-comp-2@pci:0000:07:00.0", "", result{RoleQueue, 2, DirRXTX}},
		{"eth0-tx-0-rx-3", "", result{RoleQueue, 3, DirRXTX}},
		{"eth0-rx-2", "eth0", result{RoleQueue, 2, DirRX}},
		{"enp0s8f0:rx-4", "", result{RoleQueue, 4, DirRX}},
		{"enp0s8f0:tx-4", "", result{RoleQueue, 4, DirTX}},
		{"ens192-rxtx-0", "", result{RoleQueue, 0, DirRXTX}},
		{"ice-ens2f1-TxRx-2-3", "ens2f1", result{RoleQueue, 2, DirRXTX}},
		{"ahci[0000:00:17.0]", "", result{RoleOther, -1, DirUnknown}},
		{"", "", result{RoleOther, -1, DirUnknown}},
	}
	for _, tt := range tests {
		r, q, d := ClassifyAction(tt.action, tt.netdev)
		if diff := cmp.Diff(tt.want, result{r, q, d}); diff != "" {
			t.Errorf("ClassifyAction(%q, %q) (-want +got):\n%s", tt.action, tt.netdev, diff)
		}
	}
}

func FuzzClassifyAction(f *testing.F) {
	for _, s := range []string{"mlx5_comp7@pci:0000:3b:00.0", "virtio1-input.0", "eth0-TxRx-99999999999999999999", "eth0-3", "virtio1-output."} {
		f.Add(s, "eth0")
	}
	f.Fuzz(func(t *testing.T, action, netdev string) {
		r, q, _ := ClassifyAction(action, netdev)
		if q < -1 || (r != RoleQueue && q != -1) {
			t.Fatalf("ClassifyAction(%q, %q) = %v, %d", action, netdev, r, q)
		}
	})
}

// TestNetdevOnBus finds eth1 by its PCI function, as for a netdev moved to
// another namespace, and gets the same answer as by name.
func TestNetdevOnBus(t *testing.T) {
	fs := fixtureFS(t, "trixie")
	byName, err := fs.Netdev("eth1")
	if err != nil {
		t.Fatal(err)
	}
	byBus, err := fs.NetdevOnBus("eth1", "0000:00:04.0")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(byName, byBus); diff != "" {
		t.Errorf("(-by name +by bus):\n%s", diff)
	}
	if _, err := fs.NetdevOnBus("eth1", "virtio2"); err == nil {
		t.Error("a bus that is not PCI was accepted")
	}
	if _, err := fs.NetdevOnBus("eth1", "0000:00:09.0"); err == nil {
		t.Error("a missing PCI function was accepted")
	}
}

// A USB NIC: its PCI function is the host controller's, whose node, CPUs
// and IRQ (xhci_hcd) are not the NIC's; nic.Root.Device agrees.
func TestNetdevUSBNotOwnPCI(t *testing.T) {
	root := nic.Root(fixturefs.USBNetdev().Root())
	d, err := Root(root).Netdev("usb0")
	want := Netdev{Name: "usb0", Device: "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0", Driver: "cdc_ether", NUMANode: -1}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, d, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Netdev(usb0) (-want +got):\n%s", diff)
	}
	info, err := root.Device("usb0")
	if err != nil || info.NUMANode != d.NUMANode || !cmp.Equal([]int(info.LocalCPUs), []int(d.LocalCPUs), cmpopts.EquateEmpty()) {
		t.Errorf("nic Device(usb0) = %+v, %v; irq Netdev has node %d, CPUs %v", info, err, d.NUMANode, d.LocalCPUs)
	}
}

// A garbled numa_node or local_cpulist is a warning, not silently -1.
func TestNetdevPlacementWarnings(t *testing.T) {
	fs, dir := copyTree(t, "trixie")
	pci := filepath.Join(dir, "sys/devices/pci0000:00/0000:00:03.0")
	for _, f := range []string{"numa_node", "local_cpulist"} {
		if err := os.WriteFile(filepath.Join(pci, f), []byte("zero\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := fs.Netdev("eth0")
	if err != nil {
		t.Fatal(err)
	}
	var parse int
	for _, w := range d.Warnings {
		if errors.Is(w, ErrParse) {
			parse++
		}
	}
	if parse != 2 || d.NUMANode != -1 || d.LocalCPUs != nil || len(d.IRQs) == 0 {
		t.Errorf("Netdev(eth0) with garbled placement: node %d, CPUs %v, %d IRQs, warnings %v; want 2 ErrParse warnings", d.NUMANode, d.LocalCPUs, len(d.IRQs), d.Warnings)
	}
}
