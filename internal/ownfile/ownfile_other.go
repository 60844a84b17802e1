//go:build !unix

package ownfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// MkdirAll is os.MkdirAll: owners and modes are not checked off unix.
func MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// MkdirPrivate is os.MkdirAll with mode 0700.
func MkdirPrivate(dir string) error { return os.MkdirAll(dir, 0o700) }

// CheckDir checks that dir is a folder.
func CheckDir(dir string) error { return isDir(dir) }

// CheckPrivateDir checks that dir is a folder.
func CheckPrivateDir(dir string) error { return isDir(dir) }

func isDir(dir string) error {
	fi, err := os.Stat(dir)
	if err == nil && !fi.IsDir() {
		return &fs.PathError{Op: "open", Path: dir, Err: fs.ErrInvalid}
	}
	return err
}

// WriteFile writes a temporary file in path's folder and renames it.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// Open is os.OpenFile.
func Open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

// CheckFile checks that path's folder exists.
func CheckFile(path string) error { return isDir(filepath.Dir(path)) }
