package sysfs

import "errors"

// ErrNoOSPath is wrapped by readers that need the Root as directories of
// the operating system (procfs reads paths, not an fs.FS).
var ErrNoOSPath = errors.New("sysfs: root is an fs.FS, not a directory")

// PCIeLink is a PCI function's PCIe link: the current and the maximum
// speed (GT/s per lane) and width (lanes). Zero fields are unknown: the
// kernel prints "Unknown", or the function is on a plain PCI bus (QEMU's
// i440fx: virtio-pci has no link files).
type PCIeLink struct {
	CurrentGTps  float64
	CurrentWidth int
	MaxGTps      float64
	MaxWidth     int
}

// Known reports whether the current speed and width were read.
func (l PCIeLink) Known() bool { return l.CurrentGTps > 0 && l.CurrentWidth > 0 }

// ErrUnsupportedOS is wrapped by readers that need Linux (procfs's sysfs
// package builds only there).
var ErrUnsupportedOS = errors.New("sysfs: not supported on this operating system")
