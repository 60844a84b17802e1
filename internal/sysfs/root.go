package sysfs

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/rocekit/rocekit/sysroot"
)

// Root reads the kernel's files below a sysroot.Root, the one root type
// the exported packages take; its methods are the topology readers they
// share. nic.Root, rxe.Root and irq.Root are sysroot.Root under their
// packages' names; Of makes one of them a Root of this package.
type Root struct{ sysroot.Root }

// Of returns the reader of r.
func Of(r sysroot.Root) Root { return Root{r} }

// NewRoot returns a Root that reads the tree under dir, as if dir were "/".
func NewRoot(dir string) Root { return Root{sysroot.Dir(dir)} }

// NewRootFS returns a Root that reads fsys, as if it were "/".
func NewRootFS(fsys fs.FS) Root { return Root{sysroot.FromFS(fsys)} }

// NewProcSys returns a Root that reads procRoot in place of /proc and
// sysRoot in place of /sys ("" is the live one).
func NewProcSys(procRoot, sysRoot string) Root { return Root{sysroot.ProcSys(procRoot, sysRoot)} }

// MaxFileBytes bounds what is read from one kernel file; /proc/interrupts of
// a 8192-CPU machine with a thousand IRQs stays well below it.
const MaxFileBytes = 256 << 20

// ReadFile reads a whole kernel file. Like procfs's ReadFileNoStat it does
// not trust the size that stat reports (0 or 4096 for most kernel files).
// A file longer than MaxFileBytes is an error wrapping ErrTooLarge, never
// a truncated read.
func (r Root) ReadFile(name string) ([]byte, error) {
	f, err := r.FS().Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := readAllLimit(f, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// readAllLimit reads r to its end, or fails with ErrTooLarge once it has
// more than limit bytes.
func readAllLimit(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return b, nil
}

// ReadString reads a one-value kernel file without its trailing newline.
func (r Root) ReadString(name string) (string, error) {
	b, err := r.ReadFile(name)
	if err != nil {
		return "", err
	}
	return TrimNewline(string(b)), nil
}

// TrimNewline removes the line ends at the end of a kernel file's content,
// as ReadString does; parsers that take the content as a string use it.
func TrimNewline(s string) string { return strings.TrimRight(s, "\r\n") }

// ReadCPUList reads a file in the kernel's CPU list format (cpulist,
// local_cpulist, smp_affinity_list).
func (r Root) ReadCPUList(name string) (CPUList, error) {
	s, err := r.ReadString(name)
	if err != nil {
		return nil, err
	}
	l, err := ParseCPUList(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return l, nil
}

// Exists reports whether name exists, following symbolic links.
func (r Root) Exists(name string) bool {
	_, err := fs.Stat(r.FS(), name)
	return err == nil
}

// maxLinks bounds the symbolic links Resolve follows, as the kernel's
// MAXSYMLINKS does.
const maxLinks = 8

// Resolve follows a sysfs symbolic link (relative target) to the path it
// stands for, relative to "/"; a name that is no link is returned as is
// when it exists.
//
// Similar to: readlink -f /sys/class/net/NAME
func (r Root) Resolve(name string) (string, error) {
	for range maxLinks {
		target, err := fs.ReadLink(r.FS(), name)
		if err != nil {
			if _, serr := fs.Stat(r.FS(), name); serr == nil {
				return name, nil
			}
			return "", err
		}
		if path.IsAbs(target) {
			return "", fmt.Errorf("sysfs: %s links to absolute path %s", name, target)
		}
		name = path.Join(path.Dir(name), target)
		if name == ".." || strings.HasPrefix(name, "../") {
			return "", fmt.Errorf("sysfs: %s links out of the root", name)
		}
	}
	return "", fmt.Errorf("sysfs: %s: too many levels of symbolic links", name)
}

// LinkBase returns the last element of a symbolic link's target, or "":
// the driver's name for a device's driver link.
func (r Root) LinkBase(name string) string {
	t, err := fs.ReadLink(r.FS(), name)
	if err != nil {
		return ""
	}
	return path.Base(t)
}
