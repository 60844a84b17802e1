package sysfs

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocekit/rocekit/internal/fixturefs"
)

// TestNetdevDevice follows netdevs to their devices in trees captured in
// lab guests (virtio-net below virtio-pci) and in the two-node mlx5 tree
// (the netdev's device is the PCI function).
func TestNetdevDevice(t *testing.T) {
	tests := []struct {
		tree, netdev string
		want         Device
		own          bool
		virtio       string
		node         int
		local        string
		msi          []int // msi_irqs, ascending
	}{
		{"bookworm", "eth0", Device{Path: "sys/devices/pci0000:00/0000:00:03.0/virtio1", Driver: "virtio_net",
			PCI: "sys/devices/pci0000:00/0000:00:03.0"}, true, "virtio1", -1, "0-3", []int{26, 27, 28}},
		{"trixie", "eth1", Device{Path: "sys/devices/pci0000:00/0000:00:04.0/virtio2", Driver: "virtio_net",
			PCI: "sys/devices/pci0000:00/0000:00:04.0"}, true, "virtio2", -1, "0-3", []int{29, 30, 31}},
		{"mlx5-2node", "ens1f1np1", Device{Path: "sys/devices/pci0000:ae/0000:ae:00.0/0000:af:00.1", Driver: "mlx5_core",
			PCI: "sys/devices/pci0000:ae/0000:ae:00.0/0000:af:00.1"}, true, "", 1, "24-47,72-95", irqRange(169, 217)},
	}
	for _, tt := range tests {
		r := fixtureRoot(t, tt.tree)
		got, err := r.NetdevDevice(tt.netdev)
		if err != nil {
			t.Errorf("%s %s: %v", tt.tree, tt.netdev, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.tree, tt.netdev, d)
		}
		if got.OwnPCI() != tt.own || got.Virtio() != tt.virtio {
			t.Errorf("%s %s: OwnPCI %v, Virtio %q", tt.tree, tt.netdev, got.OwnPCI(), got.Virtio())
		}
		if n, err := r.NUMANode(got.PCI); n != tt.node || err != nil {
			t.Errorf("%s %s: NUMANode = %d, %v; want %d", tt.tree, tt.netdev, n, err, tt.node)
		}
		if l, err := r.LocalCPUs(got.PCI); l.String() != tt.local || err != nil {
			t.Errorf("%s %s: LocalCPUs = %v, %v; want %s", tt.tree, tt.netdev, l, err, tt.local)
		}
		msi, err := r.MSIIRQs(got.PCI)
		if err != nil {
			t.Errorf("%s %s: MSIIRQs: %v", tt.tree, tt.netdev, err)
		}
		if !cmp.Equal(msi, tt.msi) {
			t.Errorf("%s %s: MSIIRQs = %v, want %v", tt.tree, tt.netdev, msi, tt.msi)
		}
	}
}

// irqRange is first..last.
func irqRange(first, last int) []int {
	var out []int
	for n := first; n <= last; n++ {
		out = append(out, n)
	}
	return out
}

func TestNetdevDeviceErrors(t *testing.T) {
	r := fixtureRoot(t, "bookworm")
	if _, err := r.NetdevDevice("lo"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("lo: err = %v, want ErrNoDevice", err)
	}
	if _, err := r.NetdevDevice("eth9"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("eth9: err = %v, want fs.ErrNotExist", err)
	}
	for _, bad := range []string{"", ".", "..", "a/b", "x\x00"} {
		if _, err := r.NetdevDevice(bad); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("NetdevDevice(%q) err = %v, want a bad-name error", bad, err)
		}
	}
	if _, err := r.PCIFunction("eth0"); err == nil {
		t.Error("PCIFunction(eth0): no error")
	}
}

// TestNetdevDeviceOnBus finds a virtio-net netdev's device from its PCI
// function, as for a netdev in another network namespace.
func TestNetdevDeviceOnBus(t *testing.T) {
	sc := fixturefs.Load(t, "../../nic/testdata/trixie/capture.txt.gz")["virtio-veth"]
	r := NewRootFS(sc.FS())
	d, err := r.NetdevDeviceOnBus("0000:00:03.0")
	want := Device{Path: "sys/devices/pci0000:00/0000:00:03.0/virtio1", Driver: "virtio_net", PCI: "sys/devices/pci0000:00/0000:00:03.0"}
	if err != nil || d != want {
		t.Errorf("NetdevDeviceOnBus = %+v, %v; want %+v", d, err, want)
	}
	fn, err := r.PCIFunction("0000:00:03.0")
	if err != nil || fn.Path != want.PCI || fn.Driver != "virtio-pci" {
		t.Errorf("PCIFunction = %+v, %v", fn, err)
	}
	if d.PCIAddress() != "0000:00:03.0" {
		t.Errorf("PCIAddress = %q", d.PCIAddress())
	}
	if _, err := r.NetdevDeviceOnBus("0000:00:09.0"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent function: err = %v", err)
	}
}

// TestNetdevDeviceFS reads a lab capture through an fs.FS (as nic and rxe
// tests do): the same walk, without an operating system path.
func TestNetdevDeviceFS(t *testing.T) {
	for _, suite := range []string{"bookworm", "trixie"} {
		sc := fixturefs.Load(t, "../../nic/testdata/"+suite+"/capture.txt.gz")["virtio-veth"]
		r := NewRootFS(sc.FS())
		d, err := r.NetdevDevice("eth0")
		want := Device{Path: "sys/devices/pci0000:00/0000:00:03.0/virtio1", Driver: "virtio_net", PCI: "sys/devices/pci0000:00/0000:00:03.0"}
		if err != nil || d != want {
			t.Errorf("%s: NetdevDevice(eth0) = %+v, %v; want %+v", suite, d, err, want)
		}
		if _, err := r.NetdevDevice("v0"); !errors.Is(err, ErrNoDevice) {
			t.Errorf("%s: veth v0: err = %v, want ErrNoDevice", suite, err)
		}
		if l, err := r.LocalCPUs(d.PCI); err != nil || l.String() != "0-1" {
			t.Errorf("%s: LocalCPUs = %v, %v", suite, l, err)
		}
		if nodes, err := r.Nodes(); err != nil || len(nodes) != 1 || nodes[0].CPUs.String() != "0-1" {
			t.Errorf("%s: Nodes = %v, %v", suite, nodes, err)
		}
		if _, ok := r.OSPath("sys"); ok {
			t.Errorf("%s: an fs.FS root has an OS path", suite)
		}
	}
}

func TestNUMANodeGarbled(t *testing.T) {
	sc := fixturefs.Load(t, "../../nic/testdata/trixie/capture.txt.gz")["virtio-veth"]
	sc.Files["sys/devices/pci0000:00/0000:00:03.0/numa_node"].Data = []byte("zero\n")
	if n, err := NewRootFS(sc.FS()).NUMANode("sys/devices/pci0000:00/0000:00:03.0"); n != -1 || !errors.Is(err, ErrParse) {
		t.Errorf("NUMANode = %d, %v; want -1, ErrParse", n, err)
	}
}

// TestOwnPCI: a USB NIC's nearest PCI function is its host controller's,
// which is not the NIC's own.
func TestOwnPCI(t *testing.T) {
	usb := Device{Path: "sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0", PCI: "sys/devices/pci0000:00/0000:00:14.0"}
	if usb.OwnPCI() || usb.PCIAddress() != "0000:00:14.0" || usb.Virtio() != "" {
		t.Errorf("USB NIC: OwnPCI %v, PCIAddress %q, Virtio %q", usb.OwnPCI(), usb.PCIAddress(), usb.Virtio())
	}
	if (Device{Path: "sys/devices/virtual/net/x"}).OwnPCI() {
		t.Error("no PCI function, yet OwnPCI")
	}
}
