package host

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestLocalOutputAndExitCode(t *testing.T) {
	p, err := Run(context.Background(), Local{}, Cmd{Argv: []string{"sh", "-c", "echo out1; echo err1 >&2; printf 'out2\\nno-newline'; exit 3"}})
	var exitErr *ExitError
	if !errors.As(err, &exitErr) {
		t.Fatalf("err = %v, want *ExitError", err)
	}
	if exitErr.Status != (ExitStatus{Code: 3}) || exitErr.Killed != nil || exitErr.Stderr != "err1\n" {
		t.Errorf("ExitError = %+v, want code 3, not killed, stderr %q", exitErr, "err1\n")
	}
	if got, want := p.Stdout().String(), "out1\nout2\nno-newline"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if got := p.Stderr().String(); got != "err1\n" {
		t.Errorf("stderr %q", got)
	}
	if !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "err1") {
		t.Errorf("message %q lacks the status or the stderr tail", err)
	}
	p, err = Run(context.Background(), Local{}, Cmd{Argv: []string{"true"}})
	if err != nil || p.Status() != (ExitStatus{}) || !p.Status().Success() {
		t.Errorf("true: err %v, status %v", err, p.Status())
	}
}

func TestLocalNotFound(t *testing.T) {
	for _, c := range []Cmd{
		{Argv: []string{"rocekit-no-such-binary"}},
		{Argv: []string{"/nonexistent/dir/prog"}},
	} {
		start := time.Now()
		_, err := Local{}.Start(context.Background(), c)
		var startErr *StartError
		if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, os.ErrNotExist) || !errors.As(err, &startErr) {
			t.Errorf("%v: err = %v, want *StartError wrapping exec.ErrNotFound or ErrNotExist", c.Argv, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%v: took %v", c.Argv, d)
		}
	}
	_, err := Local{}.Start(context.Background(), Cmd{Argv: []string{"rocekit-no-such-binary"}})
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("err = %v, want exec.ErrNotFound", err)
	}
}

func TestLocalInvalidCmd(t *testing.T) {
	for _, c := range []Cmd{
		{},
		{Argv: []string{"echo", "a\x00b"}},
		{Argv: []string{"env"}, Env: []string{"1BAD=x"}},
		{Argv: []string{"env"}, Env: []string{"NOEQUALS"}},
		{Argv: []string{"-rf"}},
	} {
		if _, err := (Local{}).Start(context.Background(), c); !errors.Is(err, ErrInvalidCmd) {
			t.Errorf("%q %q: err = %v, want ErrInvalidCmd", c.Argv, c.Env, err)
		}
	}
}

func TestLocalCancelKillsGroup(t *testing.T) { testCancelKillsGroup(t, Local{}) }

func TestLocalDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, Local{}, Cmd{Argv: []string{"sleep", "1000"}})
	var exitErr *ExitError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &exitErr) || exitErr.Status.Signal != syscall.SIGKILL {
		t.Fatalf("err = %v, want an *ExitError (signal KILL) wrapping DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	_, err = Local{}.Start(ctx, Cmd{Argv: []string{"true"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Start after the deadline: %v", err)
	}
}

// A child left behind by a leader that exits is killed with the group, and
// does not hold Wait up although it holds the output pipes.
func TestLocalLeaderExitSweepsGroup(t *testing.T) {
	start := time.Now()
	p, err := Run(context.Background(), Local{}, Cmd{Argv: []string{"sh", "-c", "sleep 1000 & echo $!"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > drainTimeout {
		t.Errorf("Wait took %v: the child held the pipe", d)
	}
	child, err := strconv.Atoi(strings.TrimSpace(p.Stdout().String()))
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, []int{child})
}

func TestLocalLinesWhileRunningAndKill(t *testing.T) {
	var seen atomic.Int32
	p, err := Local{}.Start(context.Background(), Cmd{
		Argv:     []string{"sh", "-c", "echo first; echo second; exec sleep 1000"},
		OnStdout: func(string) { seen.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	waitLine(t, p.Stdout(), "second")
	select {
	case <-p.Done():
		t.Fatal("process ended early")
	default:
	}
	if n := seen.Load(); n != 2 {
		t.Errorf("OnStdout saw %d lines, want 2", n)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	err = p.Wait(context.Background())
	var exitErr *ExitError
	if !errors.As(err, &exitErr) || !errors.Is(err, ErrKilled) || exitErr.Status.Signal != syscall.SIGKILL {
		t.Fatalf("Wait = %v, want ExitError killed by ErrKilled", err)
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Signal after the end = %v, want os.ErrProcessDone", err)
	}
	if got := p.Stdout().String(); got != "first\nsecond\n" {
		t.Errorf("stdout %q", got)
	}
}

func TestLocalStop(t *testing.T) {
	p, err := Local{}.Start(context.Background(), Cmd{Argv: []string{"sleep", "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(context.Background()); err != nil || p.Status().Signal != syscall.SIGTERM {
		t.Errorf("Stop = %v, status %v; want nil and signal TERM", err, p.Status())
	}
	// A process that ignores SIGTERM gets SIGKILL when Stop's context ends.
	p, err = Local{}.Start(context.Background(), Cmd{Argv: []string{"sh", "-c", "trap '' TERM; echo ready; exec sleep 1000"}})
	if err != nil {
		t.Fatal(err)
	}
	waitLine(t, p.Stdout(), "ready")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := p.Stop(ctx); err != nil || p.Status().Signal != syscall.SIGKILL {
		t.Errorf("Stop = %v, status %v; want nil and signal KILL", err, p.Status())
	}
}

// sed's stdio buffers its output in a pipe until it exits; under stdbuf -oL
// (which its environment hands down to sed) each line comes at once.
func TestLocalLineBuffered(t *testing.T) {
	if _, err := exec.LookPath("stdbuf"); err != nil {
		t.Skip("no stdbuf")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := Local{}.Start(ctx, Cmd{
		Argv:         []string{"sh", "-c", "{ echo a; exec sleep 1000; } | sed s/a/b/"},
		LineBuffered: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	waitLine(t, p.Stdout(), "b")
	p.Kill()
	p.Wait(ctx)
}

func TestLocalEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	val := `a b'c"$HOME`
	p, err := Run(context.Background(), Local{}, Cmd{
		Argv: []string{"sh", "-c", `printf '%s|' "$ROCEKIT_V"; pwd`},
		Env:  []string{"ROCEKIT_V=" + val},
		Dir:  dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Stdout().String(), val+"|"+dir+"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLocalMaxOutput(t *testing.T) {
	var lines atomic.Int32
	p, err := Run(context.Background(), Local{}, Cmd{
		Argv:           []string{"seq", "1", "100000"},
		MaxOutputBytes: 1000,
		OnStdout:       func(string) { lines.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := lines.Load(); n != 100000 {
		t.Errorf("callback saw %d lines", n)
	}
	out := p.Stdout().String()
	if len(out) > 1000 || !strings.HasPrefix(out, "1\n2\n3\n") || !strings.HasSuffix(out, "99999\n100000\n") {
		t.Errorf("kept %d bytes: %.40q ... %q", len(out), out, out[max(0, len(out)-40):])
	}
	n, size := p.Stdout().Dropped()
	if total := len(out) + size; total != 588895 || n+strings.Count(out, "\n") != 100000 {
		t.Errorf("kept %d + dropped %d bytes (%d lines), want 588895 bytes, 100000 lines", len(out), size, n)
	}
}

func TestLocalPdeathsig(t *testing.T) {
	p, err := Run(context.Background(), Local{}, helperCmd(t, "pdeathsig"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(p.Stdout().String()))
	if err != nil {
		t.Fatalf("helper printed %q", p.Stdout())
	}
	waitGone(t, []int{pid})
}

func freePort(t *testing.T, network, addr string) uint16 {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("cannot listen on %s %s: %v", network, addr, err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

func TestLocalWaitListening(t *testing.T) {
	for _, tc := range []struct{ network, addr string }{
		{"tcp4", "127.0.0.1"}, // /proc/net/tcp
		{"tcp6", "[::1]"},     // /proc/net/tcp6
	} {
		t.Run(tc.network, func(t *testing.T) {
			port := freePort(t, tc.network, tc.addr+":0")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			p, err := Local{}.Start(ctx, helperCmd(t, fmt.Sprintf("listen:%s:%s:%d", tc.network, tc.addr, port)))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Kill()
			if err := WaitProcessListening(ctx, p, port); err != nil {
				t.Fatal(err)
			}
			if err := WaitListening(ctx, Local{}, port); err != nil {
				t.Fatal(err)
			}
			p.Kill()
			p.Wait(ctx)
			short, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel2()
			err = WaitListening(short, Local{}, port)
			if !errors.Is(err, ErrNotListening) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("after kill: %v, want ErrNotListening and DeadlineExceeded", err)
			}
		})
	}
}

// A server that exits before it listens is reported at once, with its
// exit error.
func TestWaitProcessListeningServerExits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := Local{}.Start(ctx, Cmd{Argv: []string{"sh", "-c", "echo 'Couldnt listen to port 18515' >&2; exit 1"}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = WaitProcessListening(ctx, p, 18515)
	var exitErr *ExitError
	if !errors.Is(err, ErrNotListening) || !errors.As(err, &exitErr) || exitErr.Status.Code != 1 || !strings.Contains(exitErr.Stderr, "Couldnt listen") {
		t.Fatalf("err = %v, want ErrNotListening with the ExitError", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// A process started from a goroutine that locks its thread and exits (so
// that the runtime ends the thread) survives: PDEATHSIG fires when the
// forking thread exits, and the package forks from a thread of its own.
func TestLocalSurvivesStarterThreadExit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type started struct {
		p   *Process
		tid int
		err error
	}
	ch := make(chan started)
	var s started
	for range 100 {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if unix.Gettid() == os.Getpid() {
				ch <- started{tid: -1} // the main thread, which the runtime never ends
				return
			}
			p, err := Local{}.Start(ctx, Cmd{Argv: []string{"sleep", "1000"}})
			ch <- started{p, unix.Gettid(), err}
		}()
		if s = <-ch; s.tid != -1 {
			break
		}
	}
	if s.err != nil || s.p == nil {
		t.Fatalf("start: %v", s.err)
	}
	defer s.p.Kill()
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	err := poll(wctx, nil, func() (bool, error) {
		_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", s.tid))
		return err != nil, nil
	})
	if err != nil {
		t.Fatalf("thread %d did not end: %v", s.tid, err)
	}
	// Give a wrongly delivered SIGKILL the time to land before looking.
	dctx, dcancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer dcancel()
	if err := s.p.Wait(dctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the process ended with its starter's thread: %v", err)
	}
	if !alive(s.p.PID()) {
		t.Fatal("the process is gone")
	}
}

// TestLongLineKeptExactly: a 1 MiB line used to come back with a newline
// inserted every 64 KiB, so kept raw outputs were not the tool's bytes.
func TestLongLineKeptExactly(t *testing.T) {
	p, err := Run(context.Background(), Local{}, Cmd{Argv: []string{"sh", "-c", "head -c 1048576 /dev/zero | tr '\\0' a; printf '\\nsecond\\nno newline at the end'"}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("a", 1<<20) + "\nsecond\nno newline at the end"
	if got := p.Stdout().String(); got != want {
		t.Errorf("stdout: %d bytes, %d newlines; want %d bytes, 2 newlines", len(got), strings.Count(got, "\n"), len(want))
	}
	var lines int
	for range p.Stdout().Lines(context.Background()) {
		lines++
	}
	if lines != 16+2 { // the long line in 64 KiB pieces, then two lines
		t.Errorf("%d lines, want 18", lines)
	}
}

// Another program's listener on the port is not the process's readiness:
// a server about to fail to bind (a second netserver on a busy port) must
// not be reported listening because the first one is.
func TestWaitProcessListeningOthersListener(t *testing.T) {
	checkOthersListener(t, Local{}, 300*time.Millisecond)
}

// checkOthersListener holds a port in the test process and starts sleep
// through r (on this host, so in the port's namespace): the process's wait
// must run into its deadline, the namespace-wide one must not.
func checkOthersListener(t *testing.T, r Runner, deadline time.Duration) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := uint16(l.Addr().(*net.TCPAddr).Port)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := r.Start(ctx, Cmd{Argv: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	short, cancelShort := context.WithTimeout(ctx, deadline)
	defer cancelShort()
	err = WaitProcessListening(short, p, port)
	if !errors.Is(err, ErrNotListening) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("port %d held by the test, not by sleep on %s: %v, want ErrNotListening at the deadline", port, r, err)
	}
	if err := WaitListening(ctx, r, port); err != nil {
		t.Fatalf("the namespace-wide wait: %v", err)
	}
}
