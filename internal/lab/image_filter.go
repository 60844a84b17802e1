package lab

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// What an image leaves out of the Debian root file system: documentation,
// package caches, and every kernel module the lab does not load.

// imageSkips are folders whose content stays out of the initramfs (the
// folders themselves are kept, as mount points or for tools that expect
// them).
var imageSkips = []string{
	"boot", "dev", "proc", "sys", "tmp", "run",
	"usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale",
	"var/cache/apt", "var/lib/apt/lists", "var/cache/debconf", "var/log",
}

func skipInImage(rel string, d fs.DirEntry) bool {
	for _, s := range imageSkips {
		if strings.HasPrefix(rel, s+"/") {
			return true
		}
	}
	return false
}

// pruneModules deletes every module under kernelDir that is not in keep.
func pruneModules(kernelDir string, keep []string) error {
	return filepath.WalkDir(kernelDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(kernelDir, p)
		if err != nil {
			return err
		}
		if keepModule(filepath.ToSlash(rel), keep) {
			return nil
		}
		return os.Remove(p)
	})
}

// keepModule reports whether the module file rel (e.g.
// "drivers/net/veth.ko.xz") is named by keep, as itself without its suffix
// or by a folder above it.
func keepModule(rel string, keep []string) bool {
	name := rel
	for _, ext := range []string{".ko.xz", ".ko.zst", ".ko.gz", ".ko"} {
		if strings.HasSuffix(name, ext) {
			name = strings.TrimSuffix(name, ext)
			break
		}
	}
	for _, k := range keep {
		if name == k || strings.HasPrefix(rel, k+"/") {
			return true
		}
	}
	return false
}
