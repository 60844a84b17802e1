package nic

import (
	"io/fs"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// Root is the file system that /sys and /proc are read from. The zero Root
// reads the live system ("/"); NewRoot and NewRootFS point it at a fixture
// tree. Paths inside are relative ("sys/class/net").
//
// Root is the same root as rxe.Root and irq.FS (internal/sysfs.Root), so
// one value converts into the others: irq.FS(nic.NewRoot(dir)).
type Root sysfs.Root

// NewRoot returns a Root that reads the tree under dir, as if dir were "/".
func NewRoot(dir string) Root { return Root(sysfs.NewRoot(dir)) }

// NewRootFS returns a Root that reads fsys, as if it were "/". It must
// implement fs.ReadLinkFS for the sysfs symbolic links.
func NewRootFS(fsys fs.FS) Root { return Root(sysfs.NewRootFS(fsys)) }

func (r Root) sys() sysfs.Root { return sysfs.Root(r) }

func (r Root) fs() fs.FS { return r.sys().FS() }
