// Package fixturefs reads the capture files of rxe/testdata and
// nic/testdata (made by their capture.sh in lab guests): "# SCENARIO name"
// sections of D (folder), L (link), f/F (file, content line), E (read error)
// and X (command output) lines. Each scenario becomes a file system in
// which a file whose read failed in the guest (an empty GID slot's
// attribute, EINVAL) fails the same way, so tests read fixture trees as
// the packages read /sys.
//
//	sc := fixturefs.Load(t, "testdata/trixie/capture.txt.gz")["rxe-up"]
//	root := rxe.Root(sc.Root())
package fixturefs

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

	"github.com/rocekit/rocekit/sysroot"
)

// Scenario is one "# SCENARIO" section: the kernel files as they were, and
// the outputs of the commands run beside them.
type Scenario struct {
	Files fstest.MapFS
	Cmds  map[string]string // by command line
}

// FS returns the scenario's files as a file system whose failed reads fail
// again; it implements fs.ReadLinkFS for sysfs links.
func (s *Scenario) FS() fs.FS { return errFS{s.Files} }

// Root is FS as the root the packages read (nic.Root, rxe.Root are
// conversions of it).
func (s *Scenario) Root() sysroot.Root { return sysroot.FromFS(s.FS()) }

// Load reads a capture file, gzip-compressed when its name ends in .gz,
// and fails the test when it cannot.
func Load(t testing.TB, name string) map[string]*Scenario {
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
	out, err := Parse(r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// Parse reads the scenarios of a capture.
func Parse(r io.Reader) (map[string]*Scenario, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	out := map[string]*Scenario{}
	var cur *Scenario
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "# SCENARIO "); ok {
			cur = &Scenario{Files: fstest.MapFS{}, Cmds: map[string]string{}}
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
			if cur.Files[p] == nil {
				cur.Files[p] = &fstest.MapFile{Mode: 0o444}
			}
			return cur.Files[p]
		}
		switch f[0] {
		case "D":
			cur.Files[p] = &fstest.MapFile{Mode: fs.ModeDir | 0o555}
		case "L":
			cur.Files[p] = &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(arg)}
		case "f":
			file()
		case "F":
			mf := file()
			mf.Data = append(mf.Data, arg+"\n"...)
		case "E":
			file().Sys = errnoOf(arg)
		case "X":
			cur.Cmds[f[1]] += arg + "\n"
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
