package sysfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Device is the device behind a netdev, as sysfs links it.
type Device struct {
	// Path is the device's folder, relative to "/"
	// ("sys/devices/pci0000:00/0000:00:03.0/virtio1").
	Path string
	// Driver is the device's driver ("virtio_net", "mlx5_core"), or "".
	Driver string
	// PCI is the nearest PCI function at or above Path
	// ("sys/devices/pci0000:00/0000:00:03.0"), or "" when the device is
	// not below one.
	PCI string
}

// PCIAddress returns the PCI function's address ("0000:00:03.0"), or "".
func (d Device) PCIAddress() string {
	if d.PCI == "" {
		return ""
	}
	return path.Base(d.PCI)
}

// OwnPCI reports whether the PCI function belongs to the device alone: it
// is the device (mlx5, Intel) or its parent (virtio-net's virtioN device
// sits below the virtio-pci function). A USB NIC's PCI function is its
// host controller's, whose IRQs are not the NIC's.
func (d Device) OwnPCI() bool {
	return d.PCI != "" && (d.PCI == d.Path || d.PCI == path.Dir(d.Path))
}

// Virtio returns the virtio device's name ("virtio1") when the device is
// one, or "".
func (d Device) Virtio() string {
	b := path.Base(d.Path)
	if n, ok := strings.CutPrefix(b, "virtio"); ok && isDigits(n) {
		return b
	}
	return ""
}

var pciAddress = regexp.MustCompile(`^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

// IsPCIAddress reports whether s is a PCI address ("0000:00:03.0"), as
// ethtool's bus-info is for PCI NICs.
func IsPCIAddress(s string) bool { return pciAddress.MatchString(s) }

// ValidNetdevName reports whether name can be a netdev's name: not empty,
// no "/" or NUL, not "." or "..".
func ValidNetdevName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// NetdevDevice finds the device behind a netdev by following
// /sys/class/net/NAME/device, and the PCI function above it. A netdev that
// does not exist gives an error matching fs.ErrNotExist; a virtual one
// (lo, veth, bridge) one matching ErrNoDevice. sysfs shows the netdevs of
// the network namespace it was mounted in.
//
// Similar to: readlink -f /sys/class/net/NAME/device
func (r Root) NetdevDevice(netdev string) (Device, error) {
	if !ValidNetdevName(netdev) {
		return Device{}, fmt.Errorf("sysfs: bad netdev name %q", netdev)
	}
	class := path.Join("sys/class/net", netdev)
	dir, err := r.Resolve(class)
	if err != nil {
		if _, lerr := fs.ReadLink(r.FS(), class); lerr == nil {
			// The netdev is listed but its folder is not there (a
			// partial capture): there is no device link either.
			return Device{}, fmt.Errorf("%w: %s: %v", ErrNoDevice, netdev, err)
		}
		return Device{}, fmt.Errorf("sysfs: netdev %s: %w", netdev, err)
	}
	dev, err := r.Resolve(path.Join(dir, "device"))
	if errors.Is(err, fs.ErrNotExist) {
		return Device{}, fmt.Errorf("%w: %s is virtual (lo, veth, bridge, ...)", ErrNoDevice, netdev)
	}
	if err != nil {
		return Device{}, fmt.Errorf("sysfs: netdev %s: %w", netdev, err)
	}
	d := Device{Path: dev, Driver: r.LinkBase(path.Join(dev, "driver"))}
	for p := dev; strings.HasPrefix(p, "sys/devices/"); p = path.Dir(p) {
		if IsPCIAddress(path.Base(p)) {
			d.PCI = p
			break
		}
	}
	return d, nil
}

// PCIFunction finds a PCI function by address (/sys/bus/pci/devices/ADDR):
// the way to a NIC whose netdev lives in another network namespace.
//
// Similar to: readlink -f /sys/bus/pci/devices/ADDR
func (r Root) PCIFunction(address string) (Device, error) {
	if !IsPCIAddress(address) {
		return Device{}, fmt.Errorf("sysfs: %q is not a PCI address", address)
	}
	dir, err := r.Resolve(path.Join("sys/bus/pci/devices", address))
	if err != nil {
		return Device{}, fmt.Errorf("sysfs: PCI function %s: %w", address, err)
	}
	return Device{Path: dir, Driver: r.LinkBase(path.Join(dir, "driver")), PCI: dir}, nil
}

// NetdevDeviceOnBus is NetdevDevice for a netdev found by its PCI function
// (ethtool -i bus-info): the function itself, or its only virtioN child,
// which is a virtio-net netdev's device.
func (r Root) NetdevDeviceOnBus(address string) (Device, error) {
	d, err := r.PCIFunction(address)
	if err != nil {
		return d, err
	}
	ents, _ := fs.ReadDir(r.FS(), d.Path)
	var kids []string
	for _, e := range ents {
		if n, ok := strings.CutPrefix(e.Name(), "virtio"); ok && isDigits(n) {
			kids = append(kids, e.Name())
		}
	}
	if len(kids) == 1 {
		d.Path = path.Join(d.Path, kids[0])
		d.Driver = r.LinkBase(path.Join(d.Path, "driver"))
	}
	return d, nil
}

// NUMANode reads a device's NUMA node (dir/numa_node). -1, the kernel's
// "unknown" (single-node machines, most VMs), is also what a missing file
// gives, without error.
//
// Similar to: cat /sys/bus/pci/devices/ADDR/numa_node
func (r Root) NUMANode(dir string) (int, error) {
	s, err := r.ReadString(path.Join(dir, "numa_node"))
	if errors.Is(err, fs.ErrNotExist) {
		return -1, nil
	}
	if err != nil {
		return -1, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < -1 {
		return -1, fmt.Errorf("%w: %s/numa_node: %q is not a node", ErrParse, dir, s)
	}
	return n, nil
}

// LocalCPUs reads the CPUs local to a device (dir/local_cpulist); a missing
// file gives nil without error.
//
// Similar to: cat /sys/bus/pci/devices/ADDR/local_cpulist
func (r Root) LocalCPUs(dir string) (CPUList, error) {
	l, err := r.ReadCPUList(path.Join(dir, "local_cpulist"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return l, err
}

// MSIIRQs returns a PCI function's MSI and MSI-X IRQ numbers, ascending
// (dir/msi_irqs); a function without MSI gives nil without error.
//
// Similar to: ls /sys/bus/pci/devices/ADDR/msi_irqs
func (r Root) MSIIRQs(dir string) ([]int, error) {
	ents, err := fs.ReadDir(r.FS(), path.Join(dir, "msi_irqs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var irqs []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n >= 0 {
			irqs = append(irqs, n)
		}
	}
	slices.Sort(irqs)
	return irqs, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
