package fixturefs

import (
	"io/fs"
	"testing/fstest"
)

// USBNetdev is the sysfs of a USB Ethernet adapter (cdc_ether, netdev
// usb0) below an xHCI host controller at PCI 0000:00:14.0, laid out as
// Linux 6.x lays it out: the netdev's device is a USB interface, and the
// nearest PCI function, with its NUMA node 0, local CPUs 0-3 and MSI IRQ
// 125, is the controller's, not the NIC's. No lab guest has one, hence a
// tree built by hand rather than a capture.
func USBNetdev() *Scenario {
	const (
		hc    = "sys/devices/pci0000:00/0000:00:14.0"
		iface = hc + "/usb2/2-1/2-1:1.0"
	)
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(target)}
	}
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Mode: 0o444, Data: []byte(s)} }
	return &Scenario{Files: fstest.MapFS{
		"sys/class/net/usb0":                    link("../../devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/net/usb0"),
		iface + "/net/usb0/device":              link("../../../2-1:1.0"),
		iface + "/net/usb0/address":             file("02:00:00:00:00:01\n"),
		iface + "/driver":                       link("../../../../../../bus/usb/drivers/cdc_ether"),
		hc + "/driver":                          link("../../../bus/pci/drivers/xhci_hcd"),
		hc + "/numa_node":                       file("0\n"),
		hc + "/local_cpulist":                   file("0-3\n"),
		hc + "/msi_irqs/125":                    file("msix\n"),
		"sys/bus/pci/devices/0000:00:14.0":      link("../../../devices/pci0000:00/0000:00:14.0"),
		"sys/devices/system/node/node0/cpulist": file("0-3\n"),
		"proc/interrupts": file("           CPU0       CPU1       CPU2       CPU3\n" +
			" 125:       1042          0          0          0  IR-PCI-MSIX-0000:00:14.0    0-edge      xhci_hcd\n"),
	}, Cmds: map[string]string{}}
}
