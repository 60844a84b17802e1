package rxe

import (
	"io/fs"

	"github.com/rocekit/rocekit/internal/sysfs"
	"github.com/rocekit/rocekit/sysroot"
)

// Root reads this package's files (/sys/class/infiniband, /proc/modules,
// /lib/modules) below a sysroot.Root: rxe.Root(sysroot.Dir(dir)). The zero
// Root reads the live system. nic.Root and irq.Root are the same root
// under their packages' names. A file whose read fails with syscall.EINVAL
// stands for an empty GID slot's attribute.
type Root sysroot.Root

func (r Root) sys() sysfs.Root { return sysfs.Of(sysroot.Root(r)) }

func (r Root) fs() fs.FS { return r.sys().FS() }

// readString reads a small kernel file and trims the trailing newline.
func (r Root) readString(name string) (string, error) { return r.sys().ReadString(name) }

// exists reports whether name exists (following symbolic links).
func (r Root) exists(name string) bool { return r.sys().Exists(name) }

const classInfiniband = "sys/class/infiniband"
