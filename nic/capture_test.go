package nic

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

// scenario is one "# SCENARIO" section of a capture made by
// testdata/capture.sh: the kernel files as they were, and command outputs.
type scenario struct {
	files fstest.MapFS
	cmds  map[string]string
}

// root returns a Root over the scenario's files; files whose read failed in
// the guest fail the same way.
func (s *scenario) root() Root { return NewRootFS(errFS{s.files}) }

// loadCapture reads a capture, gzip-compressed or not (see testdata/README).
func loadCapture(t testing.TB, name string) map[string]*scenario {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	out, err := parseCapture(bufio.NewScanner(r))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func parseCapture(sc *bufio.Scanner) (map[string]*scenario, error) {
	sc.Buffer(nil, 1<<20)
	out := map[string]*scenario{}
	var cur *scenario
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "# SCENARIO "); ok {
			cur = &scenario{files: fstest.MapFS{}, cmds: map[string]string{}}
			out[name] = cur
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if cur == nil || len(f) < 2 {
			continue // the lab's "=== suite: cmd" banner and "--- ... exit" trailer
		}
		p := strings.TrimPrefix(f[1], "/")
		arg := ""
		if len(f) == 3 {
			arg = f[2]
		}
		file := func() *fstest.MapFile {
			if cur.files[p] == nil {
				cur.files[p] = &fstest.MapFile{Mode: 0o444}
			}
			return cur.files[p]
		}
		switch f[0] {
		case "D":
			cur.files[p] = &fstest.MapFile{Mode: fs.ModeDir | 0o555}
		case "L":
			cur.files[p] = &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(arg)}
		case "f":
			file()
		case "F":
			mf := file()
			mf.Data = append(mf.Data, arg+"\n"...)
		case "E":
			file().Sys = errnoOf(arg)
		case "X":
			cur.cmds[f[1]] += arg + "\n"
		default:
			return nil, errors.New("line " + strings.TrimSpace(line))
		}
	}
	return out, sc.Err()
}

// errnoOf maps the messages grep printed back to errnos.
func errnoOf(msg string) error {
	for _, e := range []syscall.Errno{syscall.EINVAL, syscall.EIO, syscall.EACCES, syscall.ENODATA, syscall.EOPNOTSUPP} {
		if e.Error() == strings.ToLower(msg) || strings.EqualFold(e.Error(), msg) {
			return e
		}
	}
	return errors.New(msg)
}

// errFS serves a MapFS whose files with an error in Sys fail on read, the
// way sysfs files do (an empty GID slot's gid_attrs read EINVAL).
type errFS struct{ m fstest.MapFS }

func (e errFS) Open(name string) (fs.File, error) {
	f, err := e.m.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil {
		if errno, ok := st.Sys().(error); ok {
			return errFile{File: f, err: &fs.PathError{Op: "read", Path: name, Err: errno}}, nil
		}
	}
	return f, nil
}

func (e errFS) ReadLink(name string) (string, error) { return e.m.ReadLink(name) }

func (e errFS) Lstat(name string) (fs.FileInfo, error) { return e.m.Lstat(name) }

type errFile struct {
	fs.File
	err error
}

func (f errFile) Read([]byte) (int, error) { return 0, f.err }
