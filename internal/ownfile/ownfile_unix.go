//go:build unix

package ownfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// MkdirAll creates dir and its parents as os.MkdirAll does (mode 0755)
// and checks dir by the folder rule (CheckDir).
//
// Similar to: mkdir -p DIR
func MkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return CheckDir(dir)
}

// MkdirPrivate creates dir and its parents (dir with mode 0700) and
// checks dir by the private folder rule (CheckPrivateDir): an existing
// folder of another owner or that others can write is refused, not used.
//
// Similar to: install -d -m 0700 DIR
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return CheckPrivateDir(dir)
}

// CheckDir checks that files may be written in dir: a folder, not a
// symbolic link, owned by the running euid or root, not writable by group
// or others unless sticky.
func CheckDir(dir string) error {
	fd, err := openDir(dir, false)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// CheckPrivateDir checks that dir is a folder of the running euid's own
// that no one else can write (no sticky exception), not a symbolic link.
// A missing folder gives an error matching fs.ErrNotExist.
func CheckPrivateDir(dir string) error {
	fd, err := openDir(dir, true)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// WriteFile replaces path with data, whole or not at all: a temporary file
// created with O_EXCL|O_NOFOLLOW in path's folder (which must pass
// CheckDir), fsynced and renamed over path. A link at path is replaced,
// not followed. perm is filtered by the umask.
//
// Similar to: install -m PERM /dev/stdin PATH
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir, name := filepath.Split(path)
	if name == "" || name == "." || name == ".." {
		return &fs.PathError{Op: "write", Path: path, Err: fs.ErrInvalid}
	}
	dfd, err := openDir(dir, false)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	var tmp string
	var fd int
	for range 100 {
		var r [6]byte
		if _, err := rand.Read(r[:]); err != nil {
			return err
		}
		tmp = "." + name + ".tmp-" + hex.EncodeToString(r[:])
		if len(tmp) > 255 {
			tmp = ".tmp-" + hex.EncodeToString(r[:])
		}
		fd, err = unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err != unix.EEXIST {
			break
		}
	}
	if err != nil {
		return &fs.PathError{Op: "create", Path: filepath.Join(dir, tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, tmp))
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
			werr = &fs.PathError{Op: "rename", Path: path, Err: err}
		}
	}
	if werr != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return werr
	}
	return nil
}

// Open opens path with flag (os.O_RDWR, os.O_APPEND, os.O_CREATE, ...)
// and perm for a new file, never following a link at path, in a folder
// that passes CheckDir. The file must be a regular file with one link,
// owned by the running euid and not writable by group or others;
// otherwise it is closed and the error is an *Error. A FIFO or device at
// path is refused without blocking on it.
func Open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	dir, name := filepath.Split(path)
	if name == "" || name == "." || name == ".." {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
	}
	dfd, err := openDir(dir, false)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		if err == unix.ELOOP || err == unix.EMLINK {
			return nil, lstatError(path, "file", "a symbolic link: it is not followed; give the file itself")
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if err := checkFile(path, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// CheckFile checks that path could be opened by Open, changing nothing: an
// existing path is opened for reading and checked; a missing one needs a
// folder that passes CheckDir.
func CheckFile(path string) error {
	f, err := Open(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return CheckDir(filepath.Dir(path))
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// openDir opens dir as a folder without following a link at its last
// element and checks its owner and mode.
func openDir(dir string, private bool) (int, error) {
	dir = filepath.Clean(dir)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if fi, lerr := os.Lstat(dir); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return -1, lstatError(dir, "folder", "a symbolic link: it is not followed; give the folder itself")
		}
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, &fs.PathError{Op: "stat", Path: dir, Err: err}
	}
	if err := checkDir(dir, &st, private); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func checkDir(dir string, st *unix.Stat_t, private bool) error {
	euid := os.Geteuid()
	uid := int(st.Uid)
	e := &Error{Path: dir, What: "folder", UID: uid, Mode: fileMode(st)}
	switch {
	case private && uid != euid:
		e.Reason = fmt.Sprintf("not owned by this process's uid %d: its journals could be anyone's; remove it or choose another folder", euid)
	case uid != euid && uid != 0:
		e.Reason = fmt.Sprintf("owned by neither this process's uid %d nor root: its owner could replace what is written there; choose a folder of your own", euid)
	case st.Mode&0o022 != 0 && (private || st.Mode&unix.S_ISVTX == 0):
		e.Reason = "group or others can write it: they could replace what is written there; chmod go-w it or choose a folder of your own"
		if private {
			e.Reason = "group or others can write it: they could plant journals there; chmod 0700 it"
		}
	default:
		return nil
	}
	return e
}

func checkFile(path string, st *unix.Stat_t) error {
	euid := os.Geteuid()
	e := &Error{Path: path, What: "file", UID: int(st.Uid), Mode: fileMode(st)}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		e.Reason = "not a regular file"
	case int(st.Uid) != euid:
		e.Reason = fmt.Sprintf("not owned by this process's uid %d: it could be anyone's; it was neither read nor written", euid)
	case st.Mode&0o022 != 0:
		e.Reason = "group or others can write it: its content could be anyone's; it was neither read nor written (chmod go-w it if it is yours)"
	case st.Nlink > 1:
		e.Reason = fmt.Sprintf("has %d hard links: another name of it could be someone else's; it was neither read nor written", st.Nlink)
	default:
		return nil
	}
	return e
}

// lstatError is an *Error for path with the owner and mode of the link.
func lstatError(path, what, reason string) error {
	e := &Error{Path: path, What: what, UID: -1, Reason: reason}
	var st unix.Stat_t
	if unix.Lstat(path, &st) == nil {
		e.UID, e.Mode = int(st.Uid), fileMode(&st)
	}
	return e
}

// fileMode converts a stat mode to an fs.FileMode.
func fileMode(st *unix.Stat_t) fs.FileMode {
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	if st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	if st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	return m
}
