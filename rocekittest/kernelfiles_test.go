package rocekittest_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rocekittest"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/sysroot"
)

// TestKernelFileCases: the kernel files and tool outputs the lab
// captured are embedded and read by the packages' parsers and roots as
// they are: /proc/interrupts, softirqs and softnet_stat of the 4-CPU
// guests, ethtool -S of a virtio NIC, rxe0's GID table from /sys.
func TestKernelFileCases(t *testing.T) {
	for _, suite := range []string{"bookworm", "trixie"} {
		c := lookup(t, suite+"/proc/interrupts")
		b, err := c.File("/proc/interrupts")
		if err != nil {
			t.Fatal(err)
		}
		in, err := irq.ParseInterrupts(bytes.NewReader(b))
		if err != nil || len(in.CPUs) != 4 || len(in.Lines) == 0 || c.Group != "proc" || c.Tool != "kernel" {
			t.Errorf("%s interrupts: %d CPUs, %d lines, %v", suite, len(in.CPUs), len(in.Lines), err)
		}
		b, _ = lookup(t, suite+"/proc/softnet-stat").File("proc/net/softnet_stat")
		if rows, err := irq.ParseSoftnet(bytes.NewReader(b)); err != nil || len(rows) != 4 {
			t.Errorf("%s softnet_stat: %d rows, %v", suite, len(rows), err)
		}
		b, _ = lookup(t, suite+"/proc/softirqs").File("/proc/softirqs")
		if s, err := irq.ParseSoftirqs(bytes.NewReader(b)); err != nil || len(s.CPUs) != 4 {
			t.Errorf("%s softirqs: %+v, %v", suite, s.CPUs, err)
		}
		cmd, ok := lookup(t, suite+"/ethtool/nic-a-stats").Side("cmd")
		if st, _, err := nic.ParseEthtoolStats(bytes.NewReader(cmd.Stdout)); !ok || err != nil || len(st.Ethtool) == 0 {
			t.Errorf("%s ethtool -S: %+v, %v", suite, st, err)
		}
		tab, err := rxe.Root(sysroot.FromFS(lookup(t, suite+"/sysfs/rxe0-port1").Tree())).GIDTable("rxe0", 1)
		if err != nil || len(tab.Entries) == 0 {
			t.Errorf("%s rxe0 GID table from the captured /sys: %+v, %v", suite, tab, err)
		}
		if _, err := c.File("/proc/nothing"); !errors.Is(err, rocekittest.ErrNoFile) || !errors.Is(err, rocekittest.ErrNoCase) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing file: %v", err)
		}
	}
	procs, err := rocekittest.Cases("proc", "")
	if err != nil || len(procs) < 2*8+13 {
		t.Errorf("%d proc cases (both suites' 8 and realworld's 13), %v", len(procs), err)
	}
}

// TestRealworldCases: the public outputs are embedded with their source
// and read by the parsers; each is a verbatim copy of testdata/realworld's.
func TestRealworldCases(t *testing.T) {
	c := lookup(t, "realworld/rdma/show_gids-mlx5-bond-vxlan")
	cmd, _ := c.Side("cmd")
	g, err := rxe.ParseShowGIDs(bytes.NewReader(cmd.Stdout))
	if err != nil || len(g.Tables) == 0 || c.Source != "https://github.com/openucx/ucx/pull/9484" || c.Group != "rdma" {
		t.Errorf("show_gids: %d tables, source %q, %v", len(g.Tables), c.Source, err)
	}
	b, err := lookup(t, "realworld/proc/interrupts-azure-mana-grep").File("before.txt")
	if err != nil || len(b) == 0 {
		t.Errorf("before.txt: %d bytes, %v", len(b), err)
	}
	n := 0
	err = filepath.WalkDir("realworld", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == filepath.Join("realworld", "README.md") {
			return err // the README is the copy's own
		}
		n++
		kit, _ := os.ReadFile(p)
		orig, err := os.ReadFile(filepath.Join("..", "testdata", p))
		if err != nil || !bytes.Equal(kit, orig) {
			t.Errorf("%s is not testdata/%s verbatim (%v)", p, p, err)
		}
		return nil
	})
	if err != nil || n < 50 {
		t.Errorf("%d files compared, %v", n, err)
	}
}
