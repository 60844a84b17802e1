package sysroot

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Root says where /proc and /sys (and /lib/modules) are read: the zero
// Root is the live host; Dir, FS and ProcSys point it at a directory tree,
// an fs.FS or separate /proc and /sys folders. Names inside are relative
// to "/" ("sys/class/net/eth0"). A Root is a small value, compared with ==.
type Root struct {
	fsys fs.FS  // the whole tree; nil: the directories below
	dir  string // in place of "/"; "" is "/"
	proc string // in place of /proc; "" is dir/proc
	sys  string // in place of /sys; "" is dir/sys
}

// Host is the live system's Root, the zero value, named for readability
// at call sites: nic.Options{Root: sysroot.Host}.
var Host = Root{}

// Dir returns a Root that reads the tree under dir, as if dir were "/";
// Dir("/") is Host.
func Dir(dir string) Root {
	if dir = filepath.Clean(dir); dir == "/" {
		return Root{}
	}
	return Root{dir: dir}
}

// FromFS returns a Root that reads fsys, as if it were "/" (a lab capture, a
// fstest.MapFS). For the sysfs symbolic links fsys must implement
// fs.ReadLinkFS. It is read-only: writes through it fail.
func FromFS(fsys fs.FS) Root { return Root{fsys: fsys} }

// ProcSys returns a Root that reads procDir in place of /proc and sysDir
// in place of /sys ("" is the live one); everything else is read from the
// live "/". It is the form a tune journal records; ProcSys("/proc",
// "/sys") is Host.
func ProcSys(procDir, sysDir string) Root {
	clean := func(d, live string) string {
		if d == "" {
			return ""
		}
		if d = filepath.Clean(d); d == live {
			return ""
		}
		return d
	}
	return Root{proc: clean(procDir, "/proc"), sys: clean(sysDir, "/sys")}
}

// IsHost reports whether r reads the live system.
func (r Root) IsHost() bool { return r == Root{} }

// OSPath returns the operating system's path of name ("sys/class/net" →
// "/sys/class/net"), and false when the Root is an fs.FS, which has none
// (and cannot be written).
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

// ProcDir returns the folder read in place of /proc ("/proc" for the
// host), or "" for a Root on an fs.FS.
func (r Root) ProcDir() string { p, _ := r.OSPath("proc"); return p }

// SysDir returns the folder read in place of /sys ("/sys" for the host),
// or "" for a Root on an fs.FS.
func (r Root) SysDir() string { p, _ := r.OSPath("sys"); return p }

// String names the Root for messages: "host", "dir /t", "fs",
// "proc /f/proc sys /sys".
func (r Root) String() string {
	switch {
	case r.fsys != nil:
		return "fs"
	case r.IsHost():
		return "host"
	case r.proc == "" && r.sys == "":
		return "dir " + r.dir
	}
	return "proc " + r.ProcDir() + " sys " + r.SysDir()
}

// FS returns the Root as a file system whose names are relative to "/".
// It implements fs.ReadLinkFS; unlike os.DirFS its errors name the real
// path ("/sys/class/net/x").
func (r Root) FS() fs.FS {
	if r.fsys != nil {
		return r.fsys
	}
	return dirFS{r}
}

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
