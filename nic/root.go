package nic

import (
	"io/fs"
	"os"
)

// Root is the file system that /sys and /proc are read from. The zero Root
// reads the live system ("/"); NewRoot and NewRootFS point it at a fixture
// tree. Paths inside are relative ("sys/class/net").
type Root struct {
	fsys fs.FS
}

// NewRoot returns a Root that reads the tree under dir, as if dir were "/".
func NewRoot(dir string) Root { return Root{fsys: os.DirFS(dir)} }

// NewRootFS returns a Root that reads fsys, as if it were "/". It must
// implement fs.ReadLinkFS for the sysfs symbolic links.
func NewRootFS(fsys fs.FS) Root { return Root{fsys: fsys} }

func (r Root) fs() fs.FS {
	if r.fsys == nil {
		return os.DirFS("/")
	}
	return r.fsys
}

func (r Root) readString(name string) (string, error) {
	b, err := fs.ReadFile(r.fs(), name)
	if err != nil {
		return "", err
	}
	return trimNewline(string(b)), nil
}

func trimNewline(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

func (r Root) exists(name string) bool {
	_, err := fs.Stat(r.fs(), name)
	return err == nil
}
