package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxFileSize bounds one copied file; /proc and /sys files are far smaller.
const maxFileSize = 16 << 20

// snapFile is a file to copy; required is false for files found by a walk or a glob.
type snapFile struct {
	path     string
	required bool
}

// runSnapshot copies the files of snap into the case's tree, one RoleFile side each.
func (r *runner) runSnapshot(ctx context.Context, c *caseRun, snap *Snapshot) {
	root := snap.Root
	if root == "" {
		root = DefaultSnapshotRoot
	}
	var files []snapFile
	for _, p := range r.values.expandAll(snap.Paths) {
		if snap.Netns != "" {
			files = append(files, snapFile{path: p, required: true})
			continue
		}
		found, notes := expandSnapshotPath(p, snap.NumberedBelow)
		files = append(files, found...)
		for _, n := range notes {
			c.logf("%s", n)
		}
	}
	for _, f := range files {
		rel := filepath.ToSlash(filepath.Join(root, strings.TrimPrefix(f.path, "/")))
		dst := filepath.Join(c.dir, rel)
		var side Side
		if snap.Netns != "" {
			side = r.catInNetns(ctx, c.dir, snap.Netns, f.path, rel)
		} else {
			side = copyFile(f.path, dst, rel)
		}
		c.add(side, f.required)
	}
}

// expandSnapshotPath turns a snapshot path into files: a glob gives its regular files, a
// directory (or a link to one) gives the regular files below it, anything else is a file
// that must be readable. A positive numberedBelow skips walked files named by a number at or
// above it. notes say what was skipped.
func expandSnapshotPath(p string, numberedBelow int) (files []snapFile, notes []string) {
	if strings.ContainsAny(p, "*?[") {
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, []string{"bad pattern " + p + ": " + err.Error()}
		}
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o444 != 0 {
				files = append(files, snapFile{path: m})
			}
		}
		if len(files) == 0 {
			notes = append(notes, "no readable file matches "+p)
		}
		return files, notes
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return []snapFile{{path: p, required: true}}, nil
	}
	skipped := 0
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, []string{"resolve " + p + ": " + err.Error()}
	}
	err = filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			notes = append(notes, "walk: "+err.Error())
			return nil // skip what cannot be listed, keep the rest
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if n, err := strconv.Atoi(d.Name()); err == nil && numberedBelow > 0 && n >= numberedBelow {
			skipped++
			return nil
		}
		if info, err := d.Info(); err != nil || info.Mode().Perm()&0o444 == 0 {
			return nil // write-only attribute
		}
		files = append(files, snapFile{path: p + strings.TrimPrefix(path, real)})
		return nil
	})
	if err != nil {
		notes = append(notes, "walk "+p+": "+err.Error())
	}
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("%s: skipped %d files named by a number >= %d", p, skipped, numberedBelow))
	}
	return files, notes
}

// copyFile copies src to dst byte for byte and describes it as "cat SRC". A file that
// cannot be read gets no copy; its side carries the error and the errno name.
func copyFile(src, dst, rel string) Side {
	side := Side{Role: RoleFile, Command: commandLine([]string{"cat", src}), Stdout: rel}
	start := time.Now()
	data, err := readBounded(src)
	side.Seconds = roundSeconds(time.Since(start))
	if err != nil {
		side.Exit = 1
		side.Error = err.Error()
		side.Errno = errnoName(err)
		if len(data) == 0 {
			side.Stdout = ""
			return side
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		side.Exit, side.Error, side.Stdout = 1, err.Error(), ""
		return side
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		side.Exit, side.Error, side.Stdout = 1, err.Error(), ""
	}
	return side
}

func readBounded(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileSize))
}

func errnoName(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return unix.ErrnoName(errno)
	}
	return ""
}

// catInNetns copies a per-namespace file (such as /proc/net/snmp) by running
// "ip netns exec NETNS cat PATH"; stderr goes into the side's Error.
func (r *runner) catInNetns(ctx context.Context, dir, netns, src, rel string) Side {
	side := Side{Role: RoleFile, Command: commandLine([]string{"cat", src}), Netns: netns, Stdout: rel, Exit: -1}
	dst := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		side.Error, side.Stdout = err.Error(), ""
		return side
	}
	out, err := os.Create(dst)
	if err != nil {
		side.Error, side.Stdout = err.Error(), ""
		return side
	}
	defer out.Close()
	var stderr bytes.Buffer
	p, err := startProcess(dir, []string{"ip", "netns", "exec", netns, "cat", src}, out, &stderr)
	if err != nil {
		side.Error = err.Error()
		return side
	}
	p.side = side
	p.waitUntil(ctx, p.start.Add(r.scale(15*time.Second)))
	side = p.side
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		side.Error = msg
	}
	if fi, err := os.Stat(dst); !side.OK() && err == nil && fi.Size() == 0 {
		_ = os.Remove(dst) // like copyFile: no copy of a file that could not be read
		side.Stdout = ""
	}
	return side
}
