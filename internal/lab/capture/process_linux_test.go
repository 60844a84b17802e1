package capture

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func testRunner(t *testing.T) *runner {
	t.Helper()
	return newRunner(Options{OutDir: t.TempDir(), Suite: "test"}.withDefaults(), t.TempDir())
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// processGone reports whether pid has exited (absent, or a zombie not yet reaped by init).
func processGone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

func TestRunCommandRecordsExitAndBytes(t *testing.T) {
	r, dir := testRunner(t), t.TempDir()
	side := r.runCommand(context.Background(), dir, Command{Role: RoleCmd, Argv: []string{"sh", "-c", `printf 'a\nb  '; printf 'err\n' >&2; exit 3`}})
	if side.Exit != 3 || side.TimedOut || side.Signal != "" || side.OK() {
		t.Errorf("side = %+v, want exit 3, not timed out", side)
	}
	if got := readFile(t, dir, side.Stdout); got != "a\nb  " {
		t.Errorf("stdout = %q, want the exact bytes %q", got, "a\nb  ")
	}
	if got := readFile(t, dir, side.Stderr); got != "err\n" {
		t.Errorf("stderr = %q", got)
	}
	if side.Command != `sh -c 'printf '\''a\nb  '\''; printf '\''err\n'\'' >&2; exit 3'` || side.Stdout != "cmd.stdout" || side.Stderr != "cmd.stderr" {
		t.Errorf("command line or file names: %+v", side)
	}
}

func TestRunCommandTimeoutKillsTheWholeGroup(t *testing.T) {
	r, dir := testRunner(t), t.TempDir()
	c := Command{Role: RoleCmd, Argv: []string{"sh", "-c", "sleep 30 & echo $!; sleep 30"}, Timeout: 300 * time.Millisecond}
	start := time.Now()
	side := r.runCommand(context.Background(), dir, c)
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v, want about the 300ms timeout", elapsed)
	}
	if !side.TimedOut || side.Exit != -1 || side.Signal != "SIGKILL" {
		t.Errorf("side = %+v, want timed out by SIGKILL", side)
	}
	bg, err := strconv.Atoi(strings.TrimSpace(readFile(t, dir, side.Stdout)))
	if err != nil {
		t.Fatalf("background pid: %v", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !processGone(bg) {
		if time.Now().After(deadline) {
			t.Fatalf("background sleep %d of the killed group still runs", bg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunCommandCancelled(t *testing.T) {
	r, dir := testRunner(t), t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(100*time.Millisecond, func() { cancel(errors.New("interrupt")) })
	side := r.runCommand(ctx, dir, Command{Role: RoleCmd, Argv: []string{"sleep", "30"}})
	if side.TimedOut || !strings.Contains(side.Error, "interrupt") || side.Signal != "SIGKILL" {
		t.Errorf("side = %+v, want cancelled and killed", side)
	}
}

func TestRunCommandNotFound(t *testing.T) {
	r, dir := testRunner(t), t.TempDir()
	side := r.runCommand(context.Background(), dir, Command{Role: RoleCmd, Argv: []string{"rocekit-no-such-tool", "-V"}})
	if side.Exit != -1 || !strings.Contains(side.Error, "not found") {
		t.Errorf("side = %+v, want exit -1 and a not-found error", side)
	}
	if readFile(t, dir, "cmd.stdout") != "" {
		t.Error("stdout of a command that did not start is not empty")
	}
}

func TestStopEndsAServer(t *testing.T) {
	r, dir := testRunner(t), t.TempDir()
	p, side := r.startSide(dir, Command{Role: RoleServer, Argv: []string{"sleep", "30"}})
	if p == nil {
		t.Fatalf("start: %+v", side)
	}
	p.stop(2 * time.Second)
	if !p.side.Stopped || p.side.Signal != "SIGTERM" || !p.side.OK() {
		t.Errorf("side = %+v, want stopped by SIGTERM and OK", p.side)
	}
}

func TestStopLeavesAnExitedServerAlone(t *testing.T) {
	r, dir := testRunner(t), t.TempDir()
	p, _ := r.startSide(dir, Command{Role: RoleServer, Argv: []string{"sh", "-c", "exit 1"}})
	<-p.exited
	p.stop(time.Second)
	if p.side.Stopped || p.side.Exit != 1 {
		t.Errorf("side = %+v, want exit 1 and not stopped", p.side)
	}
}

// TestHelperListener is not a test: the readiness tests start the test binary as a server
// that listens on 127.0.0.1:$CAPTURE_HELPER_LISTEN after a short delay.
func TestHelperListener(t *testing.T) {
	port := os.Getenv("CAPTURE_HELPER_LISTEN")
	if port == "" {
		t.Skip("helper process only")
	}
	time.Sleep(200 * time.Millisecond) // a slow server: readiness must wait for it
	ln, err := net.Listen("tcp4", "127.0.0.1:"+port)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer ln.Close()
	time.Sleep(30 * time.Second)
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestWaitReadySeesListenSocket(t *testing.T) {
	port := freePort(t)
	t.Setenv("CAPTURE_HELPER_LISTEN", strconv.Itoa(port))
	r, dir := testRunner(t), t.TempDir()
	server, side := r.startSide(dir, Command{Role: RoleServer, Argv: []string{os.Args[0], "-test.run=^TestHelperListener$"}})
	if server == nil {
		t.Fatalf("start: %+v", side)
	}
	defer server.stop(time.Second)
	msg := r.waitReady(context.Background(), server, &Pair{Port: port}, time.Now().Add(10*time.Second))
	if !strings.Contains(msg, "listening on port "+strconv.Itoa(port)) {
		t.Fatalf("waitReady: %s", msg)
	}
	if ok, err := tcpListening(server.pid(), uint16(port)); !ok || err != nil {
		t.Errorf("tcpListening after ready = %v, %v", ok, err)
	}
	// The check must not have connected: a perftest server would take that as its client.
	if got := readFile(t, dir, "server.stderr"); got != "" {
		t.Errorf("helper stderr: %q", got)
	}
}

func TestWaitReadyServerExits(t *testing.T) {
	r, dir := testRunner(t), t.TempDir()
	server, _ := r.startSide(dir, Command{Role: RoleServer, Argv: []string{"sh", "-c", "exit 1"}})
	defer server.waitUntil(context.Background(), time.Now().Add(time.Second))
	msg := r.waitReady(context.Background(), server, &Pair{Port: freePort(t)}, time.Now().Add(10*time.Second))
	if !strings.Contains(msg, "exited") {
		t.Errorf("waitReady = %q, want the server to have exited", msg)
	}
}

func TestWaitReadyDeadline(t *testing.T) {
	r, dir := testRunner(t), t.TempDir()
	server, _ := r.startSide(dir, Command{Role: RoleServer, Argv: []string{"sleep", "30"}})
	defer server.stop(time.Second)
	start := time.Now()
	msg := r.waitReady(context.Background(), server, &Pair{Port: freePort(t)}, start.Add(200*time.Millisecond))
	if !strings.Contains(msg, "not seen listening") || time.Since(start) > 3*time.Second {
		t.Errorf("waitReady = %q after %v, want the deadline", msg, time.Since(start))
	}
}
