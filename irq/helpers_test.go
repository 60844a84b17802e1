package irq

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/sysroot"
)

// fixtureFS returns a Root on testdata/<name>/{proc,sys}, for reading only.
func fixtureFS(t testing.TB, name string) Root {
	t.Helper()
	dir := filepath.Join("testdata", name)
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	return Root(sysroot.ProcSys(filepath.Join(dir, "proc"), filepath.Join(dir, "sys")))
}

// copyTree copies testdata/<name> into a temporary folder, keeping
// symlinks, makes the files listed in its readonly.txt mode 0444 (git
// keeps no modes), and returns a Root on the copy, which tests may write.
func copyTree(t testing.TB, name string) (Root, string) {
	t.Helper()
	src := filepath.Join("testdata", name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, out)
		case d.IsDir():
			return os.MkdirAll(out, 0o755)
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(out, b, 0o644)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(filepath.Join(src, "readonly.txt")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				if err := os.Chmod(filepath.Join(dst, l), 0o444); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return Root(sysroot.ProcSys(filepath.Join(dst, "proc"), filepath.Join(dst, "sys"))), dst
}

// readFixture returns the bytes of testdata/<p>.
func readFixture(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", p))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// genInterrupts builds a /proc/interrupts in the kernel's x86 layout with
// ncpu CPUs and nirq MSI-X lines plus the named rows.
func genInterrupts(ncpu, nirq int) []byte {
	var b strings.Builder
	b.WriteString("      ")
	for c := 0; c < ncpu; c++ {
		fmt.Fprintf(&b, "CPU%-8d", c)
	}
	b.WriteString("\n")
	for i := 0; i < nirq; i++ {
		fmt.Fprintf(&b, "%4d: ", 24+i)
		for c := 0; c < ncpu; c++ {
			fmt.Fprintf(&b, "%10d ", (i*7919+c*104729)%1000003)
		}
		fmt.Fprintf(&b, " IR-PCI-MSIX-0000:af:00.0 %4d-edge      mlx5_comp%d@pci:0000:af:00.0\n", i+1, i)
	}
	for _, l := range []string{"NMI", "LOC", "RES", "CAL", "TLB"} {
		fmt.Fprintf(&b, "%4s: ", l)
		for c := 0; c < ncpu; c++ {
			fmt.Fprintf(&b, "%10d ", c)
		}
		b.WriteString("  Some interrupts\n")
	}
	b.WriteString(" ERR:          0\n MIS:          0\n")
	return []byte(b.String())
}

// seq returns the CPUs a to z.
func seq(a, z int) CPUList {
	var out CPUList
	for c := a; c <= z; c++ {
		out = append(out, c)
	}
	return out
}
