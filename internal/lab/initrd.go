package lab

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cavaliergopher/cpio"
)

// The guest boots from an initramfs made of two newc cpio archives: the
// cached base image (the Debian root filesystem, gzip-compressed) and a small
// uncompressed overlay written for each run (the agent as /init, the plan,
// the binaries to run). The kernel unpacks concatenated archives in order,
// so the overlay adds to and overrides the base without rebuilding it.

// writeTree writes the tree under root into w as a cpio archive, in lexical
// order so that equal trees give equal archives. skip, if not nil, is given
// each slash-separated path relative to root; a true result leaves the entry
// out (and, for a directory, everything under it).
func writeTree(w *cpio.Writer, root string, skip func(rel string, d fs.DirEntry) bool) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if skip != nil && skip(rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return writeEntry(w, rel, p, info)
	})
}

// writeEntry writes one file system entry; the content of regular files is
// read from src. Sockets and device nodes are left out: the guest mounts
// devtmpfs on /dev.
func writeEntry(w *cpio.Writer, name, src string, info fs.FileInfo) error {
	hdr := &cpio.Header{
		Name:    name,
		Mode:    cpio.FileMode(info.Mode().Perm()),
		ModTime: info.ModTime(),
		Links:   1,
	}
	if info.Mode()&fs.ModeSetuid != 0 {
		hdr.Mode |= cpio.ModeSetuid
	}
	if info.Mode()&fs.ModeSetgid != 0 {
		hdr.Mode |= cpio.ModeSetgid
	}
	if info.Mode()&fs.ModeSticky != 0 {
		hdr.Mode |= cpio.ModeSticky
	}
	switch {
	case info.Mode().IsRegular():
		hdr.Mode |= cpio.TypeReg
		hdr.Size = info.Size()
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := w.WriteHeader(hdr); err != nil {
			return err
		}
		n, err := io.Copy(w, f)
		if err == nil && n != hdr.Size {
			err = fmt.Errorf("lab: %s changed size while archiving (%d of %d bytes)", src, n, hdr.Size)
		}
		return err
	case info.IsDir():
		hdr.Mode |= cpio.TypeDir
		hdr.Links = 2
		return w.WriteHeader(hdr)
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		hdr.Mode |= cpio.TypeSymlink
		return writeBody(w, hdr, []byte(target))
	}
	return nil
}

// writeBody writes a header and its whole content (a file or a link target).
func writeBody(w *cpio.Writer, hdr *cpio.Header, body []byte) error {
	hdr.Size = int64(len(body))
	if err := w.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}

// OverlayFile is one file of a per-run overlay.
type OverlayFile struct {
	Path string // absolute path in the guest, e.g. /lab/bin/rxe.test
	// Mode gives the permissions; with fs.ModeDir the entry is an empty
	// folder.
	Mode fs.FileMode
	Data []byte // content; used when Source is empty
	// Source is a host file whose content is copied (binaries can be large,
	// so they are streamed rather than held in memory).
	Source string
}

// WriteOverlay writes the per-run archive: every file with the directories
// that lead to it, in a stable order. The kernel does not create missing
// parent directories while unpacking, so they are written explicitly.
func WriteOverlay(out io.Writer, files []OverlayFile) error {
	w := cpio.NewWriter(out)
	dirs := map[string]bool{}
	sorted := append([]OverlayFile(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	for _, f := range sorted {
		clean := path.Clean(f.Path)
		if !path.IsAbs(f.Path) || clean == "/" {
			return fmt.Errorf("lab: overlay path %q is not an absolute file path", f.Path)
		}
		name := strings.TrimPrefix(clean, "/")
		for _, dir := range parentDirs(name) {
			if dirs[dir] {
				continue
			}
			dirs[dir] = true
			if err := w.WriteHeader(&cpio.Header{Name: dir, Mode: cpio.TypeDir | 0o755, Links: 2}); err != nil {
				return err
			}
		}
		mode := f.Mode.Perm()
		if f.Mode.IsDir() {
			if !dirs[name] {
				dirs[name] = true
				if err := w.WriteHeader(&cpio.Header{Name: name, Mode: cpio.TypeDir | cpio.FileMode(mode|0o700), Links: 2}); err != nil {
					return err
				}
			}
			continue
		}
		if mode == 0 {
			mode = 0o644
		}
		if f.Source != "" {
			info, err := os.Stat(f.Source)
			if err != nil {
				return err
			}
			if !info.Mode().IsRegular() {
				return fmt.Errorf("lab: overlay source %s is not a regular file", f.Source)
			}
			if err := writeEntry(w, name, f.Source, fixedMode{info, mode}); err != nil {
				return err
			}
			continue
		}
		if err := writeBody(w, &cpio.Header{Name: name, Mode: cpio.TypeReg | cpio.FileMode(mode), Links: 1}, f.Data); err != nil {
			return err
		}
	}
	return w.Close()
}

// parentDirs lists the directories above name, outermost first:
// "a/b/c" gives "a", "a/b".
func parentDirs(name string) []string {
	var dirs []string
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			dirs = append(dirs, name[:i])
		}
	}
	return dirs
}

// fixedMode reports a file's info with other permission bits.
type fixedMode struct {
	fs.FileInfo
	perm fs.FileMode
}

func (m fixedMode) Mode() fs.FileMode { return m.FileInfo.Mode().Type() | m.perm }

// concatInitrd writes base, zero padding to a 4-byte boundary (the kernel
// skips zeros between archives), and the overlay to dst.
func concatInitrd(dst, base string, overlay []byte) error {
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	in, err := os.Open(base)
	if err != nil {
		out.Close()
		return err
	}
	defer in.Close()
	n, err := io.Copy(out, in)
	if err == nil {
		_, err = out.Write(make([]byte, (4-n%4)%4))
	}
	if err == nil {
		_, err = out.Write(overlay)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
