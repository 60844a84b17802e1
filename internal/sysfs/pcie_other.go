//go:build !linux

package sysfs

import "fmt"

// PCIeLink returns ErrUnsupportedOS: prometheus/procfs reads PCI functions
// only on Linux.
func (r Root) PCIeLink(address string) (PCIeLink, error) {
	return PCIeLink{}, fmt.Errorf("sysfs: PCIe link of %s: %w", address, ErrUnsupportedOS)
}
