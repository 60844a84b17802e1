package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests boot real guests. They need root, QEMU and a built image
// (make lab-image); without them they skip and say why.

var (
	agentOnce sync.Once
	agentPath string
	agentErr  error
)

// labEnv returns a cached bookworm image and a built agent, or skips.
func labEnv(t *testing.T) (*Image, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("boots a QEMU guest; skipped with -short")
	}
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		t.Skip("qemu-system-x86_64 not installed (make deps)")
	}
	img, err := Cache{Dir: DefaultCacheDir()}.Lookup(DefaultSpec("bookworm"))
	if err != nil {
		t.Skipf("no lab image: %v (make lab-image)", err)
	}
	agentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rocekit-lab-agent-")
		if err != nil {
			agentErr = err
			return
		}
		agentPath, agentErr = BuildAgent(context.Background(), dir)
	})
	if agentErr != nil {
		t.Fatal(agentErr)
	}
	return img, agentPath
}

func TestRunReportsOutputExitAndFiles(t *testing.T) {
	img, agent := labEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	g := Guest{Name: "basics", Image: img, Plan: Plan{
		Modules: []string{"no_such_module_x"},
		Steps: []Step{
			{Name: "mixed", Path: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2; printf 'no newline'; exit 3"}},
			{Name: "files", Path: "/bin/sh", Args: []string{"-c",
				"mkdir -p /tmp/out/sub && uname -r > /tmp/out/sub/kernel && head -c 200000 /dev/urandom > /tmp/out/big && echo $ROCEKIT_LAB $ROCEKIT_LAB_SUITE $ROCEKIT_LAB_GUEST $(hostname)"}},
			{Name: "missing", Path: "/no/such/binary"},
			{Name: "slow", Path: "/bin/sleep", Args: []string{"600"}, Timeout: 2 * time.Second},
		},
		Collect: "/tmp/out",
	}}
	res, err := Run(ctx, []Guest{g}, RunOptions{Agent: agent})
	if err != nil {
		t.Fatalf("run: %v\nconsole:\n%s", err, tail(res[0].Console, 2000))
	}
	r := res[0]
	if !r.Done || !strings.HasPrefix(r.Agent.Kernel, "6.1.") || r.Agent.CPUs != DefaultSMP {
		t.Errorf("done %v, agent %+v", r.Done, r.Agent)
	}
	mixed := r.Steps[0]
	if string(mixed.Stdout) != "out\nno newline" || string(mixed.Stderr) != "err\n" || mixed.Exit.Code != 3 {
		t.Errorf("mixed: stdout %q stderr %q exit %+v", mixed.Stdout, mixed.Stderr, mixed.Exit)
	}
	if got := strings.TrimSpace(string(r.Steps[1].Stdout)); got != "1 bookworm basics basics" {
		t.Errorf("environment in the guest: %q", got)
	}
	if k := strings.TrimSpace(string(r.Files["sub/kernel"])); k != r.Agent.Kernel {
		t.Errorf("collected kernel file %q, agent says %q", k, r.Agent.Kernel)
	}
	if len(r.Files["big"]) != 200000 {
		t.Errorf("big file: %d bytes, want 200000", len(r.Files["big"]))
	}
	if e := r.Steps[2].Exit; e.Error == "" || e.OK() {
		t.Errorf("missing binary: %+v", e)
	}
	if e := r.Steps[3].Exit; !e.TimedOut || e.Seconds > 10 {
		t.Errorf("step timeout: %+v", e)
	}
	if len(r.Log) == 0 || !strings.Contains(strings.Join(r.Log, "\n"), "no_such_module_x") {
		t.Errorf("agent log does not report the failed modprobe: %q", r.Log)
	}
	if len(r.ProtocolErrors) > 0 {
		t.Errorf("protocol errors: %q", r.ProtocolErrors)
	}
}

// TestRunKillsHungGuestAtDeadline: a guest that never finishes is killed at
// the run's deadline, reported as a timeout with what it printed so far,
// and leaves no QEMU process behind.
func TestRunKillsHungGuestAtDeadline(t *testing.T) {
	img, agent := labEnv(t)
	name := fmt.Sprintf("hung-%d", os.Getpid())
	g := Guest{Name: name, Image: img, Plan: Plan{Steps: []Step{
		{Name: "hang", Path: "/bin/sh", Args: []string{"-c", "echo started; exec sleep 3600"}},
	}}}
	deadline := 120 * time.Second // boot takes 10-20 s alone, over 60 s beside another guest; the step must start first
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	began := time.Now()
	res, err := Run(ctx, []Guest{g}, RunOptions{Agent: agent})
	took := time.Since(began)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if took > deadline+10*time.Second {
		t.Errorf("Run returned %v after a %v deadline", took, deadline)
	}
	if got := string(res[0].Steps[0].Stdout); got != "started\n" || res[0].Steps[0].Finished {
		t.Errorf("partial result: stdout %q finished %v", got, res[0].Steps[0].Finished)
	}
	if pids := qemuProcesses(t, "-name "+name); len(pids) > 0 {
		t.Errorf("QEMU processes survive: %v", pids)
	}
}

// qemuProcesses lists PIDs whose command line contains marker.
func qemuProcesses(t *testing.T, marker string) []string {
	t.Helper()
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []string
	for _, c := range cmdlines {
		b, err := os.ReadFile(c)
		if err != nil {
			continue
		}
		line := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(line, "qemu-system") && strings.Contains(line, marker) {
			pids = append(pids, filepath.Base(filepath.Dir(c)))
		}
	}
	return pids
}

// TestRunTwoGuestsLinked boots two guests joined by a point-to-point link
// and has them exchange UDP datagrams (the guest side is TestLabLinkPeer).
func TestRunTwoGuestsLinked(t *testing.T) {
	img, agent := labEnv(t)
	bin := buildLabTest(t)
	runLinkPeers(t, agent, linkPeerGuest(img, bin, "wire", "peer-a", "server"), linkPeerGuest(img, bin, "wire", "peer-b", "client"))
}

// TestRunThreeGuestsOnSegment boots three guests on one shared segment
// (the harness's hub): the server answers both clients, each over the
// same segment (the guest side is TestLabLinkPeer).
func TestRunThreeGuestsOnSegment(t *testing.T) {
	img, agent := labEnv(t)
	bin := buildLabTest(t)
	var gs []Guest
	for _, g := range [][2]string{{"seg-a", "server"}, {"seg-b", "client"}, {"seg-c", "client2"}} {
		guest := linkPeerGuest(img, bin, "lan", g[0], g[1], "LAB_PEER_CLIENTS=2")
		guest.SMP, guest.MemMiB = 1, 1024
		gs = append(gs, guest)
	}
	runLinkPeers(t, agent, gs...)
}

// buildLabTest compiles this package's tests for the guests.
func buildLabTest(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lab.test")
	if err := BuildTest(context.Background(), Module+"/internal/lab", bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// linkPeerGuest is a guest on network that runs TestLabLinkPeer of bin in
// role (LAB_PEER_ROLE), with env added to its plan's environment.
func linkPeerGuest(img *Image, bin, network, name, role string, env ...string) Guest {
	return Guest{Name: name, Image: img, NICs: []NIC{{Network: network}},
		Files: []OverlayFile{{Path: BinDir + "/lab.test", Mode: 0o755, Source: bin}},
		Plan: Plan{Env: append([]string{"LAB_PEER_ROLE=" + role}, env...), Steps: []Step{{Name: role,
			Path: BinDir + "/lab.test", Args: []string{"-test.v", "-test.run", "^TestLabLinkPeer$"}}}}}
}

// runLinkPeers runs the guests together and checks that TestLabLinkPeer
// passed in each.
func runLinkPeers(t *testing.T, agent string, guests ...Guest) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	res, err := Run(ctx, guests, RunOptions{Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		s := r.Steps[0]
		if !s.Exit.OK() || !strings.Contains(string(s.Stdout), "--- PASS: TestLabLinkPeer") {
			t.Errorf("%s (%s): %s\n%s%s", r.Guest, s.Step.Name, s.Exit, s.Stdout, s.Stderr)
		}
	}
}

// TestRunGuestPanicStopsTheRun: a guest whose kernel crashes mid-plan
// (sysrq c) ends the whole run within seconds, with the oops quoted and the
// other guest, which was waiting for it, stopped too. Before, the other
// guest waited until its own step timeout (180 s for sshd in the demo) and
// the error kept 600 bytes of console tail without the oops.
func TestRunGuestPanicStopsTheRun(t *testing.T) {
	img, agent := labEnv(t)
	name := fmt.Sprintf("waiter-%d", os.Getpid())
	crasher := Guest{Name: "crasher", Image: img, Plan: Plan{Steps: []Step{
		{Name: "up", Path: "/bin/sh", Args: []string{"-c", "echo up"}},
		{Name: "crash", Path: "/bin/sh", Args: []string{"-c", "sleep 3; date +%s.%N; echo c > /proc/sysrq-trigger; sleep 60"}},
	}}}
	waiter := Guest{Name: name, Image: img, Plan: Plan{Steps: []Step{
		{Name: "wait", Path: "/bin/sleep", Args: []string{"600"}},
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var crashed time.Time
	res, err := Run(ctx, []Guest{crasher, waiter}, RunOptions{Agent: agent, Live: liveFunc(func(b []byte) {
		if strings.Contains(string(b), "=== crasher: crash") {
			crashed = time.Now().Add(3 * time.Second) // the step sleeps 3 s first
		}
	})})
	ended := time.Now()
	var stopped *GuestStoppedError
	if !errors.As(err, &stopped) || stopped.Guest != "crasher" || !stopped.Started {
		t.Fatalf("err = %v, want a *GuestStoppedError for crasher", err)
	}
	if !strings.Contains(stopped.Oops, "sysrq triggered crash") || !strings.Contains(stopped.Oops, "Call Trace:") {
		t.Errorf("oops not quoted:\n%s\nconsole:\n%s", stopped.Oops, res[0].Console)
	}
	if crashed.IsZero() || ended.Sub(crashed) > 10*time.Second {
		t.Errorf("the run ended %v after the crash, want within 10 s", ended.Sub(crashed))
	}
	if res[1].Done || len(res[0].Console) == 0 {
		t.Errorf("waiter done %v; crasher console %d bytes", res[1].Done, len(res[0].Console))
	}
	if pids := qemuProcesses(t, "-name "+name); len(pids) > 0 {
		t.Errorf("the waiting guest's QEMU survives: %v", pids)
	}
	t.Logf("run ended %v after the crash; error:\n%v", ended.Sub(crashed).Round(time.Millisecond), err)
	if dir := os.Getenv("ROCEKIT_LAB_SAVE_CONSOLE"); dir != "" {
		os.WriteFile(filepath.Join(dir, "sysrq-crash.console"), res[0].Console, 0o644)
	}
}

// TestRunBootCrashRetriedOnce: a guest whose kernel cannot start its init
// crashes while booting; the run is booted once more, said in BootRetry,
// and the error still names the crash.
func TestRunBootCrashRetriedOnce(t *testing.T) {
	img, agent := labEnv(t)
	g := Guest{Name: "noinit", Image: img, Append: "rdinit=/no/such/init init=/no/such/init",
		Plan: Plan{Steps: []Step{{Name: "never", Path: "/bin/true"}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var live strings.Builder
	var mu sync.Mutex
	res, err := Run(ctx, []Guest{g}, RunOptions{Agent: agent, Live: liveFunc(func(b []byte) { mu.Lock(); live.Write(b); mu.Unlock() })})
	var stopped *GuestStoppedError
	if !errors.As(err, &stopped) || stopped.Started || !strings.Contains(stopped.Oops, "Kernel panic") {
		t.Fatalf("err = %v, want a boot-time *GuestStoppedError with the panic", err)
	}
	if !strings.Contains(res[0].BootRetry, "while booting") || !strings.Contains(live.String(), "booting the guests again, once") {
		t.Errorf("retry not reported: BootRetry %q, live %q", res[0].BootRetry, live.String())
	}
}

// liveFunc is a RunOptions.Live that hands each write to f.
type liveFunc func([]byte)

func (f liveFunc) Write(b []byte) (int, error) { f(b); return len(b), nil }
