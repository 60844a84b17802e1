package nic

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/sysfs"
	"github.com/rocekit/rocekit/limits"
)

// Device is where a netdev's hardware sits: its PCI function, NUMA node
// and the CPUs local to it. A virtual netdev (veth, bridge, lo) has none.
type Device struct {
	Netdev     string     `json:"netdev"`
	Virtual    bool       `json:"virtual"`
	DevicePath string     `json:"device_path,omitempty"` // "sys/devices/pci0000:00/0000:00:03.0/virtio1"
	Driver     string     `json:"driver,omitempty"`      // of the device: "virtio_net", "mlx5_core"
	PCI        *PCIDevice `json:"pci,omitempty"`
	NUMANode   int        `json:"numa_node"` // -1: no NUMA information
	LocalCPUs  []int      `json:"local_cpus,omitempty"`
	NodeCPUs   []int      `json:"node_cpus,omitempty"` // CPUs of NUMANode
}

// PCIDevice identifies a PCI function (lspci -nn).
type PCIDevice struct {
	Address         string `json:"address"` // "0000:3b:00.0"
	Vendor          uint16 `json:"vendor"`
	Device          uint16 `json:"device"`
	SubsystemVendor uint16 `json:"subsystem_vendor"`
	SubsystemDevice uint16 `json:"subsystem_device"`
	Class           uint32 `json:"class"`            // 0x020000: Ethernet controller
	Driver          string `json:"driver,omitempty"` // "virtio-pci", "mlx5_core"
	// Link is the function's PCIe link; nil when sysfs has none (a plain
	// PCI bus, as QEMU's i440fx gives virtio) or the root is an fs.FS.
	Link *PCIeLink `json:"pcie_link,omitempty"`
}

// PCIeLink is a PCI function's PCIe link: current and maximum speed per
// lane (GT/s) and width (lanes); 0 is unknown.
type PCIeLink struct {
	GTps     float64 `json:"gtps"`
	Width    int     `json:"width"`
	MaxGTps  float64 `json:"max_gtps,omitempty"`
	MaxWidth int     `json:"max_width,omitempty"`
}

// Degraded reports whether the link runs slower or narrower than the
// function can: a card in a narrower slot, or a link trained down.
//
// Similar to: lspci -vv | grep -E 'LnkCap|LnkSta'   ("(downgraded)")
func (l PCIeLink) Degraded() bool {
	return l.Current().Below(l.Max())
}

// Current returns the current link for the ceiling arithmetic.
func (l PCIeLink) Current() limits.PCIe { return limits.PCIe{GTps: l.GTps, Width: l.Width} }

// Max returns the maximum link for the ceiling arithmetic.
func (l PCIeLink) Max() limits.PCIe { return limits.PCIe{GTps: l.MaxGTps, Width: l.MaxWidth} }

// String is the link's current and maximum speed and width.
func (l PCIeLink) String() string {
	s := fmt.Sprintf("%g GT/s x%d", l.GTps, l.Width)
	if l.Degraded() {
		s += fmt.Sprintf(" (of %g GT/s x%d)", l.MaxGTps, l.MaxWidth)
	}
	return s
}

// PCI vendor ids that matter for RoCE and NIC tuning.
const (
	VendorMellanox = 0x15b3 // ConnectX (mlx5)
	VendorIntel    = 0x8086
	VendorBroadcom = 0x14e4
	VendorVirtio   = 0x1af4 // Red Hat, Inc. (virtio)
)

// VendorName names the vendors above, or returns the id in hex.
func (p PCIDevice) VendorName() string {
	switch p.Vendor {
	case VendorMellanox:
		return "Mellanox"
	case VendorIntel:
		return "Intel"
	case VendorBroadcom:
		return "Broadcom"
	case VendorVirtio:
		return "Red Hat (virtio)"
	case 0x1d0f:
		return "Amazon.com"
	case 0x1414:
		return "Microsoft"
	case 0x1077:
		return "QLogic"
	case 0x19e5:
		return "Huawei"
	}
	return fmt.Sprintf("0x%04x", p.Vendor)
}

// ID formats the vendor and device ids as lspci -n does ("15b3:1017").
func (p PCIDevice) ID() string { return fmt.Sprintf("%04x:%04x", p.Vendor, p.Device) }

// IsPCIAddress reports whether s looks like a PCI address ("0000:00:03.0"),
// as ethtool's bus-info is for PCI NICs.
func IsPCIAddress(s string) bool { return sysfs.IsPCIAddress(s) }

// Device finds a netdev's device in sysfs (/sys/class/net/NAME/device),
// climbs to its PCI function (a virtio-net device sits below one) and reads
// its NUMA node, local CPUs and ids. Only the NIC's own PCI function counts,
// as for irq.Root.Netdev: a USB NIC's nearest one is its host controller's,
// so it has no PCI, NUMA node -1 and no local CPUs. sysfs shows the netdevs
// of the network namespace it was mounted in.
//
// Similar to: readlink /sys/class/net/NAME/device; cat .../numa_node .../local_cpulist; lspci -nn -s ADDR
func (r Root) Device(netdev string) (Device, error) {
	d := Device{Netdev: netdev, NUMANode: -1}
	dev, err := r.sys().NetdevDevice(netdev)
	switch {
	case errors.Is(err, sysfs.ErrNoDevice):
		d.Virtual = true
		return d, nil
	case errors.Is(err, fs.ErrNotExist):
		return d, &Error{Op: "read device", Netdev: netdev, Kind: ErrNetdevNotFound, Err: err}
	case err != nil:
		return d, err
	}
	d.DevicePath, d.Driver = dev.Path, dev.Driver
	if !dev.OwnPCI() {
		return d, nil
	}
	return r.fillPCI(d, dev.PCI)
}

// PCIDevice reads a PCI function by address (/sys/bus/pci/devices/ADDR),
// with its NUMA node and local CPUs: the way to a NIC's placement when its
// netdev lives in another network namespace.
func (r Root) PCIDevice(address string) (Device, error) {
	d := Device{NUMANode: -1}
	dev, err := r.sys().PCIFunction(address)
	if err != nil {
		return d, err
	}
	d.DevicePath, d.Driver = dev.Path, dev.Driver
	return r.fillPCI(d, dev.PCI)
}

// fillPCI reads the PCI function in dir: its placement (NUMA node, local
// CPUs) and, when sysfs has them, its ids.
func (r Root) fillPCI(d Device, dir string) (Device, error) {
	sys := r.sys()
	var err error
	if d.NUMANode, err = sys.NUMANode(dir); err != nil {
		return d, sysfs.AlsoMatch(err, ErrParse)
	}
	if d.LocalCPUs, err = sys.LocalCPUs(dir); err != nil {
		return d, sysfs.AlsoMatch(err, ErrParse)
	}
	if d.NUMANode >= 0 {
		d.NodeCPUs, err = sys.NodeCPUs(d.NUMANode)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return d, sysfs.AlsoMatch(err, ErrParse)
		}
	}
	if !sys.Exists(path.Join(dir, "vendor")) {
		return d, nil // a tree without ids (a partial capture)
	}
	p := &PCIDevice{Address: path.Base(dir), Driver: sys.LinkBase(path.Join(dir, "driver"))}
	for _, f := range []struct {
		name string
		dst  *uint16
	}{{"vendor", &p.Vendor}, {"device", &p.Device}, {"subsystem_vendor", &p.SubsystemVendor}, {"subsystem_device", &p.SubsystemDevice}} {
		v, err := r.readHex(path.Join(dir, f.name), 16)
		if err != nil {
			return d, err
		}
		*f.dst = uint16(v)
	}
	class, err := r.readHex(path.Join(dir, "class"), 32)
	if err != nil {
		return d, err
	}
	p.Class = uint32(class)
	// The PCIe link is optional: an fs.FS root or a function without
	// link files leaves it nil, never a guess.
	if l, err := sys.PCIeLink(p.Address); err == nil && l.Known() {
		p.Link = &PCIeLink{GTps: l.CurrentGTps, Width: l.CurrentWidth, MaxGTps: l.MaxGTps, MaxWidth: l.MaxWidth}
	}
	d.PCI = p
	return d, nil
}

func (r Root) readHex(name string, bits int) (uint64, error) {
	s, err := r.sys().ReadString(name)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, bits)
	if err != nil {
		return 0, parseError(path.Base(name), 1, s, err)
	}
	return v, nil
}

// NUMANodes returns the CPUs of each NUMA node
// (/sys/devices/system/node/nodeN/cpulist). A kernel without NUMA shows
// node0 only.
//
// Similar to: lscpu | grep NUMA; numactl -H
func (r Root) NUMANodes() (map[int][]int, error) {
	nodes, err := r.sys().Nodes()
	if err != nil {
		return nil, sysfs.AlsoMatch(err, ErrParse)
	}
	out := make(map[int][]int, len(nodes))
	for _, n := range nodes {
		out[n.ID] = n.CPUs
	}
	return out, nil
}
