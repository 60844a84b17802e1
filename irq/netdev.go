package irq

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// Netdev is a network interface's device and its IRQs.
type Netdev struct {
	// Name is the interface name ("eth0").
	Name string
	// Device is the device's sysfs path as the kernel has it
	// ("/sys/devices/pci0000:00/0000:00:03.0/virtio1").
	Device string
	// PCI is the PCI function ("0000:00:03.0"), or "" if the device is
	// not on PCI.
	PCI string
	// Driver is the device's driver ("virtio_net", "mlx5_core"), or "".
	Driver string
	// NUMANode is the PCI function's NUMA node, or -1 when the kernel
	// does not know (single-node machines, most VMs).
	NUMANode int
	// LocalCPUs are the CPUs local to the device (local_cpulist), or nil.
	LocalCPUs CPUList
	// IRQs are the device's interrupts, by IRQ number.
	IRQs []QueueIRQ
	// Warnings say what could not be found ("IRQ 45 in msi_irqs is not
	// in /proc/interrupts").
	Warnings []error
}

// QueueIRQ is one of a NIC's IRQs and what it is for.
type QueueIRQ struct {
	IRQ int
	// Name is the action name from /proc/interrupts ("virtio1-input.0"),
	// or "" if the IRQ is not listed there.
	Name string
	Role Role
	// Queue is the queue index from the name, or -1.
	Queue     int
	Direction Direction
}

// Queues returns the IRQs whose role is RoleQueue.
func (d Netdev) Queues() []QueueIRQ {
	var out []QueueIRQ
	for _, q := range d.IRQs {
		if q.Role == RoleQueue {
			out = append(out, q)
		}
	}
	return out
}

// IRQNumbers returns the IRQ numbers of d.IRQs.
func (d Netdev) IRQNumbers() []int {
	out := make([]int, len(d.IRQs))
	for i, q := range d.IRQs {
		out[i] = q.IRQ
	}
	return out
}

// Netdev finds netdev name's device and its IRQs: from the PCI function's
// msi_irqs, as mlnx-tools' get_irq_list does, or, without MSI, from action
// names in /proc/interrupts that carry the interface name, the PCI address
// or the virtio device ("virtio1-…"). Each IRQ is classified by name (see
// ClassifyAction); for mlx5 the first vector is the control vector even
// when its name is unknown. A netdev without a device (lo, veth) gives an
// error matching ErrNoDevice.
//
// The interface must be visible in the Root's /sys: sysfs shows the netdevs
// of the network namespace it was mounted in, so find a NIC's IRQs before
// moving it to another namespace (its IRQs stay the same).
//
// Similar to: ls /sys/class/net/IF/device/msi_irqs; grep IF /proc/interrupts
func (fs Root) Netdev(name string) (Netdev, error) {
	d := Netdev{Name: name, NUMANode: -1}
	if !sysfs.ValidNetdevName(name) {
		return d, fmt.Errorf("irq: bad interface name %q", name)
	}
	dev, err := fs.root().NetdevDevice(name)
	if errors.Is(err, sysfs.ErrNoDevice) {
		return d, fmt.Errorf("%w: %s is virtual (lo, veth, bridge, ...): it has no queue IRQs to spread", ErrNoDevice, name)
	}
	if err != nil {
		return d, fmt.Errorf("irq: %w", err)
	}
	return fs.netdevAt(name, dev)
}

// NetdevOnBus is Netdev for an interface this Root's /sys cannot see (one in
// another network namespace), found by its PCI function instead ("ethtool
// -i" bus-info, "0000:00:04.0"). A virtio function's virtioN child is the
// device.
//
// An empty pci (a virtual netdev) gives an error matching ErrNoDevice.
func (fs Root) NetdevOnBus(name, pci string) (Netdev, error) {
	if pci == "" {
		// ethtool -i gives no bus-info for virtual netdevs.
		return Netdev{Name: name, NUMANode: -1}, fmt.Errorf("%w: %s is virtual (lo, veth, bridge, ...): it has no queue IRQs to spread", ErrNoDevice, name)
	}
	dev, err := fs.root().NetdevDeviceOnBus(pci)
	if err != nil {
		return Netdev{Name: name, NUMANode: -1}, fmt.Errorf("irq: netdev %s: %w", name, err)
	}
	return fs.netdevAt(name, dev)
}

// netdevAt finds the IRQs of the netdev whose device is dev. The PCI
// function counts only when it is the device's own (see
// sysfs.Device.OwnPCI): a USB NIC's host controller has other IRQs. Its
// NUMA node and local CPUs are read by the same rule as nic.Root.Device;
// what cannot be read is a warning.
func (fs Root) netdevAt(name string, dev sysfs.Device) (Netdev, error) {
	d := Netdev{Name: name, NUMANode: -1, Device: "/" + dev.Path, Driver: dev.Driver}
	var msi []int
	if dev.OwnPCI() {
		r := fs.root()
		d.PCI = dev.PCIAddress()
		var err error
		if d.NUMANode, err = r.NUMANode(dev.PCI); err != nil {
			d.Warnings = append(d.Warnings, parseErr(err))
		}
		if d.LocalCPUs, err = r.LocalCPUs(dev.PCI); err != nil {
			d.Warnings = append(d.Warnings, parseErr(err))
		}
		if msi, err = r.MSIIRQs(dev.PCI); err != nil {
			d.Warnings = append(d.Warnings, err)
		}
	}
	in, err := fs.Interrupts()
	if err != nil {
		if len(in.Lines) == 0 {
			return d, err
		}
		d.Warnings = append(d.Warnings, err)
	}
	d.IRQs, d.Warnings = matchIRQs(in, name, d.PCI, dev.Virtio(), msi, d.Warnings)
	return d, nil
}

// matchIRQs picks a device's IRQs out of /proc/interrupts and classifies
// them. With msi, those are the IRQs; without, names decide.
func matchIRQs(in Interrupts, netdev, pci, virtio string, msi []int, warns []error) ([]QueueIRQ, []error) {
	var out []QueueIRQ
	add := func(l Interrupt) {
		q := QueueIRQ{IRQ: l.IRQ, Name: l.Name(), Role: RoleOther, Queue: -1}
		if len(l.Actions) > 0 {
			// A shared IRQ is classified by its first action.
			q.Role, q.Queue, q.Direction = ClassifyAction(l.Actions[0], netdev)
		}
		out = append(out, q)
	}
	if len(msi) > 0 {
		for _, n := range msi {
			l, ok := in.ByIRQ(n)
			if !ok {
				warns = append(warns, fmt.Errorf("irq: IRQ %d of %s (msi_irqs) is not in /proc/interrupts", n, netdev))
				add(Interrupt{IRQ: n})
				continue
			}
			add(l)
		}
	} else {
		for _, l := range in.Lines {
			if l.IRQ < 0 {
				continue
			}
			for _, a := range l.Actions {
				if namesNetdev(a, netdev) || namesPCI(a, pci) ||
					(virtio != "" && strings.HasPrefix(a, virtio+"-")) ||
					(pci != "" && strings.HasSuffix(l.Chip, "-"+pci)) {
					add(l)
					break
				}
			}
		}
	}
	// mlnx-tools skips the first MSI vector of mlx5 (the async/command
	// EQ) whatever its name.
	if len(out) > 1 && out[0].Role == RoleOther && strings.HasPrefix(out[1].Name, "mlx5_") {
		out[0].Role = RoleControl
	}
	markCoreEQs(out, netdev)
	return out, warns
}

// markCoreEQs gives old mlx4_core's completion vectors ("mlx4-comp-0@pci:…")
// RoleCoreEQ when the netdev's rings have vectors of their own ("eth2-0"):
// mlx4_en then does not use them.
func markCoreEQs(irqs []QueueIRQ, netdev string) {
	own := false
	for _, q := range irqs {
		if q.Role == RoleQueue && namesNetdev(q.Name, netdev) {
			own = true
			break
		}
	}
	if !own {
		return
	}
	for i, q := range irqs {
		if q.Role == RoleQueue && strings.HasPrefix(q.Name, "mlx4-comp-") {
			irqs[i].Role = RoleCoreEQ
		}
	}
}
