package nic

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rocekit/rocekit/sysroot"
)

const realworldAERDir = "../testdata/realworld/aer"

// TestAERRealWorld parses every AER file of the real-world corpus; a case
// folder without an entry here fails.
func TestAERRealWorld(t *testing.T) {
	want := map[string]struct {
		names       int
		first, last string
		firstN, tot uint64
	}{
		"kernel-abi-4.19-correctable": {8, "Receiver Error", "Header Log Overflow", 2, 2},
		"procfs-fixture-correctable":  {8, "RxErr", "HeaderOF", 0, 0},
		"procfs-fixture-fatal":        {18, "Undefined", "PoisonTLPBlocked", 0, 0},
	}
	dirs, err := os.ReadDir(realworldAERDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		w, ok := want[d.Name()]
		if !ok {
			t.Errorf("%s: no expected values", d.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(realworldAERDir, d.Name(), "output.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []string{string(b), strings.ReplaceAll(string(b), " ", "\t"), strings.ReplaceAll(string(b), "\n", "\r\n")} {
			f, err := ParseAERFile([]byte(in))
			if err != nil || len(f.Names) != w.names || f.Names[0] != w.first || f.Names[len(f.Names)-1] != w.last ||
				f.Counts[w.first] != w.firstN || f.Total != w.tot {
				t.Errorf("%s: %+v, %v", d.Name(), f, err)
			}
		}
	}
}

// A cut line fails with its number; the counters before it are kept.
func TestAERParseErrorKeepsLines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(realworldAERDir, "kernel-abi-4.19-correctable", "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cut := strings.Replace(string(b), "Bad DLLP 0", "Bad DLLP", 1)
	f, err := ParseAERFile([]byte(cut))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 3") || len(f.Names) != 2 || f.Counts["Receiver Error"] != 2 {
		t.Errorf("%+v, %v", f, err)
	}
}

// Root.AER reads the three files of a function and Sub gives a round's
// growth; a function without them is ErrNotSupported.
func TestAERRootAndSub(t *testing.T) {
	read := func(c string) []byte {
		b, err := os.ReadFile(filepath.Join(realworldAERDir, c, "output.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dev := "sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0"
	fsys := fstest.MapFS{
		dev + "/aer_dev_correctable":                {Data: read("kernel-abi-4.19-correctable")},
		dev + "/aer_dev_fatal":                      {Data: read("procfs-fixture-fatal")},
		"sys/bus/pci/devices/0000:01:00.0":          {Data: []byte("../../../devices/pci0000:00/0000:00:1c.0/0000:01:00.0"), Mode: os.ModeSymlink},
		"sys/devices/pci0000:00/0000:00:02.0/class": {Data: []byte("0x020000\n")},
		"sys/bus/pci/devices/0000:00:02.0":          {Data: []byte("../../../devices/pci0000:00/0000:00:02.0"), Mode: os.ModeSymlink},
	}
	r := Root(sysroot.FromFS(fsys))
	c, err := r.AER("0000:01:00.0")
	if err != nil || c.Correctable.Counts["Receiver Error"] != 2 || len(c.Fatal.Names) != 18 || c.NonFatal.Names != nil || c.Total() != 2 {
		t.Fatalf("%+v, %v", c, err)
	}
	before := c
	before.Correctable = AERFile{Names: c.Correctable.Names, Counts: map[string]uint64{"Receiver Error": 1}, Total: 1}
	if d := c.Sub(before); d.Correctable.Counts["Receiver Error"] != 1 || d.Total() != 1 || d.Correctable.Counts["Bad TLP"] != 0 {
		t.Errorf("sub: %+v", d)
	}
	if _, err := r.AER("0000:00:02.0"); !errors.Is(err, ErrNotSupported) {
		t.Errorf("function without AER: %v", err)
	}
}

func FuzzParseAERFile(f *testing.F) {
	for _, c := range []string{"kernel-abi-4.19-correctable", "procfs-fixture-fatal"} {
		if b, err := os.ReadFile(filepath.Join(realworldAERDir, c, "output.txt")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("RxErr\nTOTAL_ERR_COR x\n \t\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ParseAERFile(b)
		if len(a.Names) != len(a.Counts) {
			t.Fatalf("%d names, %d counts", len(a.Names), len(a.Counts))
		}
		if err != nil && !errors.Is(err, ErrParse) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

// The live system: every PCI function reads as counters or as
// ErrNotSupported (this development VM's functions have no AER files).
func TestAERLive(t *testing.T) {
	fns, err := os.ReadDir("/sys/bus/pci/devices")
	if err != nil || len(fns) == 0 {
		t.Skipf("no PCI functions: %v", err)
	}
	for _, fn := range fns {
		if _, err := (Root{}).AER(fn.Name()); err != nil && !errors.Is(err, ErrNotSupported) {
			t.Errorf("%s: %v", fn.Name(), err)
		}
	}
}
