package nic

import "context"

// Device finds where a netdev's hardware sits (PCI function, NUMA node,
// local CPUs). In the caller's namespace it follows /sys/class/net; for a
// named namespace, whose netdevs the host's sysfs does not show, it follows
// ethtool's bus info to /sys/bus/pci/devices (a netdev without bus info is
// reported as virtual).
//
// Similar to: cat /sys/class/net/NAME/device/numa_node; ethtool -i NAME | grep bus-info
func (h *Handle) Device(ctx context.Context, netdev string) (Device, error) {
	if !h.ns.IsOpen() {
		if err := h.ready(ctx); err != nil {
			return Device{}, err
		}
		return h.opts.root().Device(netdev)
	}
	di, err := h.Driver(ctx, netdev)
	if err != nil {
		return Device{Netdev: netdev, NUMANode: -1}, err
	}
	if !IsPCIAddress(di.BusInfo) {
		return Device{Netdev: netdev, Virtual: di.BusInfo == "", NUMANode: -1, Driver: di.Driver}, nil
	}
	d, err := h.opts.root().PCIDevice(di.BusInfo)
	d.Netdev = netdev
	d.Driver = di.Driver
	return d, err
}
