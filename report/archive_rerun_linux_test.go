package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRerunScriptRuns runs a rerun.sh for real: netserver on loopback as
// the server, netperf -l 1 as the client. The script waits until
// netserver listens (ss) instead of sleeping, the client's numbers come
// out, and no server is left behind once it ends, even when the client
// fails.
func TestRerunScriptRuns(t *testing.T) {
	for _, p := range []string{"netserver", "netperf", "ss"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	run := func(client []string) (string, error) {
		r := Round{Name: "tcp_stream", Start: time.Now(), Fingerprint: &Fingerprint{Argv: []SideArgv{
			{Role: "server", Argv: []string{"netserver", "-D", "-p", "12871"}},
			{Role: "client", Argv: client},
		}}}
		path := filepath.Join(t.TempDir(), "rerun.sh")
		if err := os.WriteFile(path, []byte(rerunScript(r)), 0o700); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "/bin/sh", path)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	listening := func() bool {
		out, _ := exec.Command("ss", "-Hltn", "sport = :12871").Output()
		return strings.TrimSpace(string(out)) != ""
	}
	out, err := run([]string{"netperf", "-H", "127.0.0.1", "-p", "12871", "-l", "1", "-t", "TCP_STREAM"})
	if err != nil || !strings.Contains(out, "Throughput") {
		t.Fatalf("rerun.sh: %v\n%s", err, out)
	}
	if listening() {
		t.Error("netserver still listens after the script ended")
	}
	// A client that fails: set -e ends the script, the trap ends netserver.
	out, err = run([]string{"false"})
	if err == nil {
		t.Errorf("a failing client: the script succeeded\n%s", out)
	}
	if listening() {
		t.Error("netserver still listens after a failed client")
	}
}
