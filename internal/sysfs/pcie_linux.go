package sysfs

import (
	"fmt"
	"io/fs"
	"strings"

	procsysfs "github.com/prometheus/procfs/sysfs"
)

// PCIeLink reads the PCIe link of the PCI function at address through
// prometheus/procfs (sysfs.FS.PciDevices, the only reader of these files
// it has: it reads every function, and one unreadable function fails it).
// A function without link files gives a zero PCIeLink and no error.
//
// Similar to: cat /sys/bus/pci/devices/ADDR/{current,max}_link_{speed,width}
func (r Root) PCIeLink(address string) (PCIeLink, error) {
	if !IsPCIAddress(address) {
		return PCIeLink{}, fmt.Errorf("sysfs: %q is not a PCI address", address)
	}
	dir, ok := r.OSPath("sys")
	if !ok {
		return PCIeLink{}, fmt.Errorf("sysfs: PCIe link of %s: %w", address, ErrNoOSPath)
	}
	pfs, err := procsysfs.NewFS(dir)
	if err != nil {
		return PCIeLink{}, fmt.Errorf("sysfs: PCIe link of %s: %w", address, err)
	}
	devs, err := pfs.PciDevices()
	if err != nil {
		return PCIeLink{}, fmt.Errorf("sysfs: PCIe link of %s: %w", address, err)
	}
	// procfs keys functions as "0000:01:00:0", a colon before the function.
	i := strings.LastIndexByte(address, '.')
	d, ok := devs[address[:i]+":"+address[i+1:]]
	if !ok {
		return PCIeLink{}, fmt.Errorf("sysfs: PCIe link of %s: %w", address, fs.ErrNotExist)
	}
	var l PCIeLink
	if d.CurrentLinkSpeed != nil {
		l.CurrentGTps = *d.CurrentLinkSpeed
	}
	if d.CurrentLinkWidth != nil {
		l.CurrentWidth = int(*d.CurrentLinkWidth)
	}
	if d.MaxLinkSpeed != nil {
		l.MaxGTps = *d.MaxLinkSpeed
	}
	if d.MaxLinkWidth != nil {
		l.MaxWidth = int(*d.MaxLinkWidth)
	}
	return l, nil
}
