package tune

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/nic"
)

// TestRootSysctlFeaturesIRQBalance: on the host's kernel, in a fresh
// namespace: a per-namespace sysctl (somaxconn) changed there and not
// here, a host-only one (rmem_max) refused there with the reason, an
// offload turned off on a veth, and an irqbalance daemon paused; all put
// back by Restore.
func TestRootSysctlFeaturesIRQBalance(t *testing.T) {
	tn := newNetns(t, "kinds")
	tn.veth(t, "tk0", "198.18.60.1/24", "tk1", "198.18.60.2/24")
	ctx := rootCtx(t)
	hostSomaxconn, _ := readSysctl("/proc", "", "net.core.somaxconn")

	// A stand-in daemon: comm "irqbalance" is what irq.Root.IRQBalance finds.
	bin := filepath.Join(t.TempDir(), "irqbalance")
	if b, err := os.ReadFile("/bin/sleep"); err != nil || os.WriteFile(bin, b, 0o755) != nil {
		t.Skip("cannot copy /bin/sleep")
	}
	daemon := exec.Command(bin, "600")
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Kill(); daemon.Wait() })

	s, err := Begin(filepath.Join(t.TempDir(), "j.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply(ctx, Sysctl(tn.Name, "net.core.rmem_max", "8388608")); err == nil || !strings.Contains(err.Error(), "only the host's namespace") {
		t.Errorf("rmem_max in a netns: %v", err)
	}
	groBefore := gro(t, tn.Name, "tk0") // veth: off unless XDP or GRO was asked for
	_, err = s.Apply(ctx,
		Sysctl(tn.Name, "net.core.somaxconn", "123"),
		Features(tn.Name, "tk0", map[string]bool{"rx-gro": !groBefore}),
		PauseIRQBalance())
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := readSysctl("/proc", tn.Name, "net.core.somaxconn"); v != "123" {
		t.Errorf("somaxconn in the netns = %q", v)
	}
	if v, _ := readSysctl("/proc", "", "net.core.somaxconn"); v != hostSomaxconn {
		t.Errorf("host somaxconn changed to %q", v)
	}
	if gro(t, tn.Name, "tk0") == groBefore {
		t.Error("GRO did not change")
	}
	// SIGSTOP takes effect when the kernel next schedules the process:
	// poll for it (seen as R under load) instead of reading once.
	st := procState(t, daemon.Process.Pid)
	for deadline := time.Now().Add(5 * time.Second); st != 'T' && time.Now().Before(deadline); st = procState(t, daemon.Process.Pid) {
		time.Sleep(10 * time.Millisecond)
	}
	if st != 'T' {
		t.Errorf("irqbalance state %c, want T (stopped)", st)
	}
	// #1 is the refused rmem_max: journaled before it was tried, never done.
	if e := s.Entries()[3]; !strings.Contains(e.String(), "irqbalance running -> irqbalance paused") {
		t.Errorf("entry %s", e)
	}

	if _, err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _ := readSysctl("/proc", tn.Name, "net.core.somaxconn"); v != hostSomaxconn {
		t.Errorf("somaxconn in the netns after restore = %q, want %q", v, hostSomaxconn)
	}
	if gro(t, tn.Name, "tk0") != groBefore {
		t.Error("GRO not back")
	}
	if st := procState(t, daemon.Process.Pid); st == 'T' {
		t.Errorf("irqbalance still stopped")
	}
}

func gro(t *testing.T, ns, dev string) bool {
	t.Helper()
	h, err := nic.Open(nic.Options{Netns: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	f, err := h.Features(rootCtx(t), dev)
	if err != nil {
		t.Fatal(err)
	}
	return f["rx-gro"].Active
}

// procState is the state letter of /proc/PID/stat, once it settles
// (SIGSTOP and SIGCONT are delivered asynchronously).
func procState(t *testing.T, pid int) byte {
	t.Helper()
	var st byte
	for range 100 {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		st = s[strings.LastIndexByte(s, ')')+2]
		if st == 'T' || st == 'S' || st == 'R' {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
	return st
}

// TestRootCoalesceOnVeth: veth has no interrupt coalescing; the kernel's
// answer comes back as nic.ErrNotSupported and nothing is changed.
func TestRootCoalesceOnVeth(t *testing.T) {
	tn := newNetns(t, "coal")
	tn.veth(t, "tc0", "198.18.60.5/24", "tc1", "198.18.60.6/24")
	s, err := Begin(filepath.Join(t.TempDir(), "j.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	zero := uint32(0)
	_, err = s.Apply(rootCtx(t), Coalesce(tn.Name, "tc0", nic.CoalesceUpdate{RxUsecs: &zero}))
	if !errors.Is(err, nic.ErrNotSupported) {
		t.Errorf("coalesce on a veth: %v, want nic.ErrNotSupported", err)
	}
	if len(s.Entries()) != 0 {
		t.Errorf("journaled %v", s.Entries())
	}
}
