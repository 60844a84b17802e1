package nic

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// DeviceInfo is where a netdev's hardware sits: its PCI function, NUMA node
// and the CPUs local to it. A virtual netdev (veth, bridge, lo) has none.
type DeviceInfo struct {
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

var pciAddress = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

// IsPCIAddress reports whether s looks like a PCI address ("0000:00:03.0"),
// as ethtool's bus-info is for PCI NICs.
func IsPCIAddress(s string) bool { return pciAddress.MatchString(s) }

// Device finds a netdev's device in sysfs (/sys/class/net/NAME/device),
// climbs to its PCI function (a virtio-net device sits below one) and reads
// its NUMA node, local CPUs and ids. sysfs shows the netdevs of the network
// namespace it was mounted in.
//
// Similar to: readlink /sys/class/net/NAME/device; cat .../numa_node .../local_cpulist; lspci -nn -s ADDR
func (r Root) Device(netdev string) (DeviceInfo, error) {
	d := DeviceInfo{Netdev: netdev, NUMANode: -1}
	classLink := path.Join("sys/class/net", netdev)
	dir, err := r.resolve(classLink)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return d, &Error{Op: "read device", Netdev: netdev, Kind: ErrNetdevNotFound, Err: err}
		}
		return d, err
	}
	dev, err := r.resolve(path.Join(dir, "device"))
	if errors.Is(err, fs.ErrNotExist) {
		d.Virtual = true
		return d, nil
	}
	if err != nil {
		return d, err
	}
	d.DevicePath = dev
	d.Driver = r.linkBase(path.Join(dev, "driver"))
	for p := dev; strings.HasPrefix(p, "sys/devices/"); p = path.Dir(p) {
		if IsPCIAddress(path.Base(p)) && r.exists(path.Join(p, "vendor")) {
			return r.fillPCI(d, p)
		}
	}
	return d, nil
}

// PCIDevice reads a PCI function by address (/sys/bus/pci/devices/ADDR),
// with its NUMA node and local CPUs: the way to a NIC's placement when its
// netdev lives in another network namespace.
func (r Root) PCIDevice(address string) (DeviceInfo, error) {
	d := DeviceInfo{NUMANode: -1}
	if !IsPCIAddress(address) {
		return d, fmt.Errorf("nic: %q is not a PCI address", address)
	}
	dir, err := r.resolve(path.Join("sys/bus/pci/devices", address))
	if err != nil {
		return d, err
	}
	d.DevicePath = dir
	d.Driver = r.linkBase(path.Join(dir, "driver"))
	return r.fillPCI(d, dir)
}

func (r Root) fillPCI(d DeviceInfo, dir string) (DeviceInfo, error) {
	p := &PCIDevice{Address: path.Base(dir), Driver: r.linkBase(path.Join(dir, "driver"))}
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
	d.PCI = p
	if s, err := r.readString(path.Join(dir, "numa_node")); err == nil {
		n, err := strconv.Atoi(s)
		if err != nil {
			return d, parseError("numa_node", 1, s, err)
		}
		d.NUMANode = n
	}
	if s, err := r.readString(path.Join(dir, "local_cpulist")); err == nil {
		if d.LocalCPUs, err = ParseCPUList(s); err != nil {
			return d, err
		}
	}
	if d.NUMANode >= 0 {
		nodes, err := r.NUMANodes()
		if err != nil {
			return d, err
		}
		d.NodeCPUs = nodes[d.NUMANode]
	}
	return d, nil
}

func (r Root) readHex(name string, bits int) (uint64, error) {
	s, err := r.readString(name)
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
	const dir = "sys/devices/system/node"
	ents, err := fs.ReadDir(r.fs(), dir)
	if err != nil {
		return nil, err
	}
	nodes := map[int][]int{}
	for _, e := range ents {
		id, ok := strings.CutPrefix(e.Name(), "node")
		n, err := strconv.Atoi(id)
		if !ok || err != nil {
			continue
		}
		s, err := r.readString(path.Join(dir, e.Name(), "cpulist"))
		if err != nil {
			return nil, err
		}
		if nodes[n], err = ParseCPUList(s); err != nil {
			return nil, err
		}
	}
	return nodes, nil
}

// resolve follows a sysfs symbolic link (relative target) to the real path;
// a path that is no link is returned as is when it exists.
func (r Root) resolve(name string) (string, error) {
	for i := 0; i < 8; i++ {
		target, err := fs.ReadLink(r.fs(), name)
		if err != nil {
			if _, serr := fs.Stat(r.fs(), name); serr == nil {
				return name, nil
			}
			return "", err
		}
		if path.IsAbs(target) {
			return "", fmt.Errorf("nic: %s links to absolute path %s", name, target)
		}
		name = path.Join(path.Dir(name), target)
	}
	return "", fmt.Errorf("nic: %s: too many levels of symbolic links", name)
}

// linkBase returns the last element of a symlink's target ("" if none): the
// driver name of a device's driver link.
func (r Root) linkBase(name string) string {
	t, err := fs.ReadLink(r.fs(), name)
	if err != nil {
		return ""
	}
	return path.Base(t)
}
