package rxe

import (
	"io/fs"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// Root is the file system that /sys, /proc and /lib/modules are read from.
// The zero Root reads the live system ("/"); NewRoot and NewRootFS point it
// at a fixture tree. Paths inside are relative ("sys/class/infiniband").
//
// Root is the same root as nic.Root and irq.FS (internal/sysfs.Root), so
// one value converts into the others: rxe.Root(nic.NewRoot(dir)).
type Root sysfs.Root

// NewRoot returns a Root that reads the tree under dir, as if dir were "/".
func NewRoot(dir string) Root { return Root(sysfs.NewRoot(dir)) }

// NewRootFS returns a Root that reads fsys, as if it were "/". A file whose
// read fails with syscall.EINVAL stands for an empty GID slot's attribute.
func NewRootFS(fsys fs.FS) Root { return Root(sysfs.NewRootFS(fsys)) }

func (r Root) sys() sysfs.Root { return sysfs.Root(r) }

func (r Root) fs() fs.FS { return r.sys().FS() }

// readString reads a small kernel file and trims the trailing newline.
func (r Root) readString(name string) (string, error) { return r.sys().ReadString(name) }

// exists reports whether name exists (following symbolic links).
func (r Root) exists(name string) bool { return r.sys().Exists(name) }

const classInfiniband = "sys/class/infiniband"
