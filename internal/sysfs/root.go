package sysfs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Root is the tree that /sys, /proc and /lib/modules are read from. Names
// inside are relative to "/" ("sys/class/net/eth0"). The zero Root reads
// the live system; NewRoot, NewRootFS and NewProcSys point it at fixture
// trees. nic.Root, rxe.Root and irq.FS are this type under their packages'
// names, so one value converts into the others.
type Root struct {
	fsys fs.FS  // the whole tree; nil: the directories below
	dir  string // in place of "/"; "" is "/"
	proc string // in place of /proc; "" is dir/proc
	sys  string // in place of /sys; "" is dir/sys
}

// NewRoot returns a Root that reads the tree under dir, as if dir were "/".
func NewRoot(dir string) Root { return Root{dir: filepath.Clean(dir)} }

// NewRootFS returns a Root that reads fsys, as if it were "/". For the
// sysfs symbolic links fsys must implement fs.ReadLinkFS. It is read-only.
func NewRootFS(fsys fs.FS) Root { return Root{fsys: fsys} }

// NewProcSys returns a Root that reads procRoot in place of /proc and
// sysRoot in place of /sys ("" is the live one); everything else is read
// from the live "/".
func NewProcSys(procRoot, sysRoot string) Root {
	r := Root{}
	if procRoot != "" {
		r.proc = filepath.Clean(procRoot)
	}
	if sysRoot != "" {
		r.sys = filepath.Clean(sysRoot)
	}
	return r
}

// OSPath returns the operating system's path of name ("sys/class/net" →
// "/sys/class/net"), and false when the Root is an fs.FS, which has none.
func (r Root) OSPath(name string) (string, bool) {
	if r.fsys != nil {
		return "", false
	}
	for _, top := range []struct{ name, dir string }{{"proc", r.proc}, {"sys", r.sys}} {
		if top.dir == "" {
			continue
		}
		if name == top.name {
			return top.dir, true
		}
		if rest, ok := strings.CutPrefix(name, top.name+"/"); ok {
			return filepath.Join(top.dir, filepath.FromSlash(rest)), true
		}
	}
	dir := r.dir
	if dir == "" {
		dir = "/"
	}
	return filepath.Join(dir, filepath.FromSlash(name)), true
}

// FS returns the Root as a file system whose names are relative to "/".
// It implements fs.ReadLinkFS.
func (r Root) FS() fs.FS {
	if r.fsys != nil {
		return r.fsys
	}
	return dirFS{r}
}

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

// dirFS reads a Root's directories through the operating system; unlike
// os.DirFS its errors name the real path ("/sys/class/net/x").
type dirFS struct{ r Root }

func (d dirFS) path(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	p, _ := d.r.OSPath(name)
	return p, nil
}

func (d dirFS) Open(name string) (fs.File, error) {
	p, err := d.path("open", name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err // a nil *os.File must not become a non-nil fs.File
	}
	return f, nil
}

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := d.path("readdir", name)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(p)
}

func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	p, err := d.path("stat", name)
	if err != nil {
		return nil, err
	}
	return os.Stat(p)
}

func (d dirFS) Lstat(name string) (fs.FileInfo, error) {
	p, err := d.path("lstat", name)
	if err != nil {
		return nil, err
	}
	return os.Lstat(p)
}

func (d dirFS) ReadLink(name string) (string, error) {
	p, err := d.path("readlink", name)
	if err != nil {
		return "", err
	}
	return os.Readlink(p)
}
