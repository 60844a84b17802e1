package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/nic"
)

// sysctlFixture is a /proc/sys tree with the kernel's own formats:
// rmem_max as one number, udp_mem as three TAB-separated ones.
func sysctlFixture(t *testing.T) (Options, func(key string) string) {
	fx := newIRQFixture(t)
	for name, content := range map[string]string{
		"proc/sys/net/core/rmem_max": "212992\n",
		"proc/sys/net/ipv4/udp_mem":  "575799\t767734\t1151598\n",
	} {
		p := filepath.Join(fx.dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	return fx.opts, func(key string) string {
		b, err := os.ReadFile(sysctlPath(fx.opts.Root.ProcDir(), key))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

func TestSysctlApplyRestore(t *testing.T) {
	opts, read := sysctlFixture(t)
	s, err := Begin(filepath.Join(t.TempDir(), "j.jsonl"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	made, err := s.Apply(ctx, Sysctl("", "net.core.rmem_max", "4194304"), Sysctl("", "net/ipv4/udp_mem", "1 2 3"))
	if err != nil {
		t.Fatal(err)
	}
	if got := made[0].String(); got != `#1 sysctl sysctl net.core.rmem_max: "212992" -> "4194304"` {
		t.Errorf("entry %s", got)
	}
	if read("net.core.rmem_max") != "4194304\n" || read("net.ipv4.udp_mem") != "1 2 3\n" {
		t.Errorf("after apply: %q %q", read("net.core.rmem_max"), read("net.ipv4.udp_mem"))
	}
	rep, err := s.Restore(ctx)
	if err != nil || len(rep.Undone) != 2 {
		t.Fatalf("Restore = %+v, %v", rep, err)
	}
	// The kernel reads "575799 767734 1151598" as it read the TABs.
	if read("net.core.rmem_max") != "212992\n" || read("net.ipv4.udp_mem") != "575799 767734 1151598\n" {
		t.Errorf("after restore: %q %q", read("net.core.rmem_max"), read("net.ipv4.udp_mem"))
	}
}

// TestSysctlCrashRecover: a run that raised rmem_max and was killed with
// SIGKILL is undone from its journal.
func TestSysctlCrashRecover(t *testing.T) {
	opts, read := sysctlFixture(t)
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	crashAfterApply(t, crashPlan{Journal: journal, Options: opts, Changes: []Change{
		Sysctl("", "net.core.rmem_max", "8388608"),
	}})
	if read("net.core.rmem_max") != "8388608\n" {
		t.Fatalf("the child did not change it: %q", read("net.core.rmem_max"))
	}
	if rep, err := Recover(context.Background(), journal); err != nil || len(rep.Undone) != 1 {
		t.Fatalf("Recover = %+v, %v", rep, err)
	}
	if read("net.core.rmem_max") != "212992\n" {
		t.Errorf("after Recover: %q", read("net.core.rmem_max"))
	}
}

func TestSysctlRefusesEscapes(t *testing.T) {
	opts, _ := sysctlFixture(t)
	s, err := Begin(filepath.Join(t.TempDir(), "j.jsonl"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, key := range []string{"", "../../etc/passwd", "net..core", "net/../../../etc/shadow", "/net/core/rmem_max", "net.core.rmem max", "net.core.no_such_key"} {
		_, err := s.Apply(context.Background(), Sysctl("", key, "1"))
		if err == nil {
			t.Errorf("key %q accepted", key)
		}
		if key != "net.core.no_such_key" && !errors.Is(err, ErrInvalidInput) {
			t.Errorf("key %q: %v, want ErrInvalidInput", key, err)
		}
		if key == "net.core.no_such_key" && !strings.Contains(err.Error(), "no such kernel parameter") {
			t.Errorf("missing key: %v", err)
		}
	}
	if len(s.Entries()) != 0 {
		t.Errorf("journaled %v", s.Entries())
	}
}

// TestCoalesceApplyRestore: ethtool -C adaptive-rx off rx-usecs 0 through
// the journal, and back.
func TestCoalesceApplyRestore(t *testing.T) {
	f := newFake()
	s := fakeSession(t, f)
	off, zero := false, uint32(0)
	ctx := context.Background()
	made, err := s.Apply(ctx, Coalesce("", "eth0", nic.CoalesceUpdate{AdaptiveRx: &off, RxUsecs: &zero}))
	if err != nil {
		t.Fatal(err)
	}
	if got := made[0].String(); got != "#1 coalesce netdev eth0: adaptive-rx on, adaptive-tx off, rx-usecs 8 rx-frames 128 tx-usecs 0 tx-frames 0 -> adaptive-rx off, rx-usecs 0" {
		t.Errorf("entry %s", got)
	}
	if got := f.get(t, "coalesce//eth0"); got != "adaptive-rx off, adaptive-tx off, rx-usecs 0 rx-frames 128 tx-usecs 0 tx-frames 0" {
		t.Errorf("after apply: %s", got)
	}
	if _, err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "coalesce//eth0"); got != "adaptive-rx on, adaptive-tx off, rx-usecs 8 rx-frames 128 tx-usecs 0 tx-frames 0" {
		t.Errorf("after restore: %s", got)
	}
	if _, err := s.Apply(ctx, Coalesce("", "eth0", nic.CoalesceUpdate{})); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("empty update: %v", err)
	}
}
