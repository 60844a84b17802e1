package irq

// Helpers of the root and lab tests: network namespaces, netserver and
// netperf, driven through ip(8) as the runbooks do. They are test code:
// the library itself starts no processes (that is package host's job).

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// addNetns makes a network namespace that is deleted when the test ends.
// Physical NICs moved into it return to the initial namespace then.
func addNetns(t *testing.T, name string) {
	t.Helper()
	exec.Command("ip", "netns", "del", name).Run() // left over from a killed run
	run(t, "ip", "netns", "add", name)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", name).Run() })
	run(t, "ip", "-n", name, "link", "set", "lo", "up")
}

// startNetserver starts netserver in namespace ns on port, waits until its
// LISTEN socket shows in /proc/PID/net/tcp (which is the namespace's
// table), and kills it by PID when the test ends.
func startNetserver(t *testing.T, ctx context.Context, ns string, port int) int {
	t.Helper()
	cmd := exec.Command("ip", "netns", "exec", ns, "netserver", "-D", "-4", "-p", fmt.Sprint(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("netserver: %v", err)
	}
	pid := cmd.Process.Pid // ip netns exec execs netserver in place
	t.Cleanup(func() {
		syscall.Kill(-pid, syscall.SIGKILL)
		cmd.Wait()
	})
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for !listening(pid, port) {
		select {
		case <-wctx.Done():
			t.Fatalf("netserver (pid %d) did not listen on %d: %v", pid, port, wctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return pid
}

// listening reports whether /proc/PID/net/tcp has a socket in state 0A
// (LISTEN) on port.
func listening(pid, port int) bool {
	f, err := os.Open(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		return false
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) > 3 && strings.HasSuffix(fl[1], want) && fl[3] == "0A" {
			return true
		}
	}
	return false
}

// netperf runs a TCP_STREAM test from namespace ns to addr:port.
func netperf(t *testing.T, ctx context.Context, ns, addr string, port, seconds int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second+3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ip", "netns", "exec", ns, "netperf", "-H", addr, "-p", fmt.Sprint(port),
		"-t", "TCP_STREAM", "-l", fmt.Sprint(seconds)).CombinedOutput()
	if err != nil {
		t.Fatalf("netperf: %v\n%s", err, out)
	}
	return string(out)
}

func TestListening(t *testing.T) {
	// The PID of this test has no listening socket on port 1.
	if listening(os.Getpid(), 1) {
		t.Error("port 1 listening?")
	}
}
