package nic

import (
	"io/fs"

	"github.com/rocekit/rocekit/internal/sysfs"
	"github.com/rocekit/rocekit/sysroot"
)

// Root reads this package's files (/sys/class/net, /proc/net/snmp, PCI
// functions) below a sysroot.Root: nic.Root(sysroot.Dir("testdata/mlx5")).
// The zero Root reads the live system. rxe.Root and irq.Root are the same
// root under their packages' names.
type Root sysroot.Root

func (r Root) sys() sysfs.Root { return sysfs.Of(sysroot.Root(r)) }

func (r Root) fs() fs.FS { return r.sys().FS() }
