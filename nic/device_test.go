package nic

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocekit/rocekit/internal/fixturefs"
)

func TestDeviceFixtures(t *testing.T) {
	for _, s := range suites {
		root := suiteCapture(t, s)["virtio-veth"].root()
		pci := &PCIDevice{Address: "0000:00:03.0", Vendor: VendorVirtio, Device: 0x1000, SubsystemVendor: 0x1af4,
			SubsystemDevice: 0x0001, Class: 0x020000, Driver: "virtio-pci"}
		want := Device{Netdev: "eth0", DevicePath: "sys/devices/pci0000:00/0000:00:03.0/virtio1", Driver: "virtio_net",
			PCI: pci, NUMANode: -1, LocalCPUs: []int{0, 1}}
		got, err := root.Device("eth0")
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: Device(eth0) (-want +got):\n%s", s, d)
		}
		if pci.VendorName() != "Red Hat (virtio)" || pci.ID() != "1af4:1000" {
			t.Errorf("VendorName %q, ID %q", pci.VendorName(), pci.ID())
		}

		// By PCI address, as for a netdev in another namespace.
		byAddr, err := root.PCIDevice("0000:00:03.0")
		if err != nil {
			t.Fatal(err)
		}
		want.Netdev, want.DevicePath, want.Driver = "", "sys/devices/pci0000:00/0000:00:03.0", "virtio-pci"
		if d := cmp.Diff(want, byAddr); d != "" {
			t.Errorf("%s: PCIDevice (-want +got):\n%s", s, d)
		}

		v0, err := root.Device("v0")
		if err != nil || !v0.Virtual || v0.PCI != nil || v0.NUMANode != -1 {
			t.Errorf("%s: Device(v0) = %+v, %v; want virtual", s, v0, err)
		}
		if _, err := root.Device("eth9"); !errors.Is(err, ErrNetdevNotFound) {
			t.Errorf("%s: Device(eth9) error = %v", s, err)
		}
		if _, err := root.PCIDevice("eth0"); err == nil {
			t.Errorf("%s: PCIDevice(eth0): no error", s)
		}
		nodes, err := root.NUMANodes()
		if err != nil || !cmp.Equal(nodes, map[int][]int{0: {0, 1}}) {
			t.Errorf("%s: NUMANodes = %v, %v", s, nodes, err)
		}
	}
}

// TestDeviceNUMA puts the captured virtio function on NUMA node 0, the way a
// two-socket server's NIC reads, to check the node's CPU list is attached.
func TestDeviceNUMA(t *testing.T) {
	sc := suiteCapture(t, "trixie")["virtio-veth"]
	sc.Files["sys/devices/pci0000:00/0000:00:03.0/numa_node"].Data = []byte("0\n")
	got, err := sc.root().Device("eth0")
	if err != nil {
		t.Fatal(err)
	}
	if got.NUMANode != 0 || !cmp.Equal(got.NodeCPUs, []int{0, 1}) {
		t.Errorf("NUMANode %d, NodeCPUs %v", got.NUMANode, got.NodeCPUs)
	}
	sc.Files["sys/devices/pci0000:00/0000:00:03.0/numa_node"].Data = []byte("zero\n")
	if _, err := sc.root().Device("eth0"); !errors.Is(err, ErrParse) {
		t.Errorf("garbled numa_node: %v", err)
	}
}

// A USB NIC's nearest PCI function is its host controller's: Device
// reports no PCI, node or local CPUs for it, as irq.Root.Netdev does.
func TestDeviceUSBNotOwnPCI(t *testing.T) {
	got, err := Root(fixturefs.USBNetdev().Root()).Device("usb0")
	want := Device{Netdev: "usb0", DevicePath: "sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0", Driver: "cdc_ether", NUMANode: -1}
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Device(usb0) (-want +got):\n%s", d)
	}
}
