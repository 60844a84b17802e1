package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rocekit/rocekit/internal/zombie"
)

// Start starts c on this host in a new process group.
//
// Similar to: setsid PROG ARGS &
func (l Local) Start(ctx context.Context, c Cmd) (*Process, error) {
	return startExec(ctx, c, l.String(), nil, "")
}

// startExec starts prefix + [stdbuf -oL -eL] + c.Argv as the leader of a new
// process group. nsPath, when set, is the namespace the process ends up in
// (after ip netns exec), which tcpSockets checks before trusting
// /proc/PID/net.
func startExec(ctx context.Context, c Cmd, where string, prefix []string, nsPath string) (*Process, error) {
	fail := func(err error) (*Process, error) {
		return nil, &StartError{Where: where, Argv: append([]string(nil), c.Argv...), Err: err}
	}
	if err := c.validate(); err != nil {
		return fail(err)
	}
	if err := context.Cause(ctx); err != nil {
		return fail(err)
	}
	argv, err := resolveArgv(c, prefix)
	if err != nil {
		return fail(err)
	}
	cmd, outR, errR, err := forkGroup(argv, c.Env, c.Dir, c.CPUs, c.Stdin)
	if err != nil {
		return fail(err)
	}
	p := newProcess(where, c)
	p.pid = cmd.Process.Pid
	ctl := &localControl{pid: p.pid, nsPath: nsPath}
	p.ctl = ctl
	go p.stdout.pump(outR, outR)
	go p.stderr.pump(errR, errR)
	p.supervise(ctx, func() (ExitStatus, error) { return ctl.wait(cmd, nil) }, func() {
		outR.Close()
		errR.Close()
	})
	return p, nil
}

// forkGroup starts argv (resolved) as the leader of a new process group,
// with PDEATHSIG, from the spawn thread, its output on two pipes and its
// input fed from stdin (nil: none).
func forkGroup(argv, env []string, dir string, cpus []int, stdin io.Reader) (*exec.Cmd, *os.File, *os.File, error) {
	inR, feed, err := stdinPipe(stdin)
	if err != nil {
		return nil, nil, nil, err
	}
	if inR != nil {
		defer inR.Close() // the child holds its own copy
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		feed(false)
		return nil, nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, nil, err
	}
	cmd := &exec.Cmd{
		Path:        argv[0],
		Args:        argv,
		Env:         append(os.Environ(), env...),
		Dir:         dir,
		Stdout:      outW,
		Stderr:      errW,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	if inR != nil {
		cmd.Stdin = inR // an *os.File: the child reads the pipe itself
	}
	onSpawnThread(func() { err = startPinned(cmd, cpus) })
	outW.Close()
	errW.Close()
	feed(err == nil)
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, nil, nil, err
	}
	return cmd, outR, errR, nil
}

// stdinPipe makes the pipe a child reads r from. feed(true) starts copying
// r into it, closing the pipe when r ends or the child is gone; feed(false)
// closes it unused. For a nil r there is no pipe (the child reads
// /dev/null) and feed does nothing. The copy is not tied to the child's
// life because os/exec's own would make Wait wait for r to end.
func stdinPipe(r io.Reader) (child *os.File, feed func(start bool), err error) {
	if r == nil {
		return nil, func(bool) {}, nil
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return inR, func(start bool) {
		if !start {
			inW.Close()
			return
		}
		go func() {
			_, _ = io.Copy(inW, r) // ends with EPIPE once the child has exited
			inW.Close()
		}()
	}, nil
}

// spawnThread is the OS thread every process of the package is forked
// from. The kernel sends PDEATHSIG when the forking thread exits, not the
// process, and the Go runtime ends a thread whenever a goroutine that locked
// it exits (as Netns.TCPSockets does after setns): a child forked from an
// ordinary thread could be killed at any later time. This thread is locked
// by a goroutine that never returns, so it lives as long as the program.
var spawnThread struct {
	once sync.Once
	jobs chan func()
}

// onSpawnThread runs f on the spawn thread and waits for it.
func onSpawnThread(f func()) {
	spawnThread.once.Do(func() {
		spawnThread.jobs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked
			for job := range spawnThread.jobs {
				job()
			}
		}()
	})
	done := make(chan struct{})
	spawnThread.jobs <- func() {
		defer close(done)
		f()
	}
	<-done
}

// startPinned starts cmd from the calling (spawn) thread with the
// thread's CPU mask set to cpus, so that the child inherits it from its
// first instruction, then gives the thread its own mask back.
func startPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("CPU affinity: %w", err)
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("CPU affinity %s: %w (offline or outside this process's cpuset?)", cpuList(cpus), err)
	}
	err := cmd.Start()
	if rerr := unix.SchedSetaffinity(0, &old); rerr != nil && err == nil {
		err = fmt.Errorf("restoring the spawn thread's CPU affinity: %w", rerr)
	}
	return err
}

// resolveArgv looks up the program (and the wrappers) in the caller's PATH,
// so that a missing binary fails Start at once with exec.ErrNotFound
// instead of as an exit status of ip or stdbuf.
func resolveArgv(c Cmd, prefix []string) ([]string, error) {
	var argv []string
	for _, part := range [][]string{prefix, bufPrefix(c), c.Argv} {
		if len(part) == 0 {
			continue
		}
		path, err := lookPath(part[0])
		if err != nil {
			return nil, err
		}
		argv = append(argv, path)
		argv = append(argv, part[1:]...)
	}
	return argv, nil
}

func bufPrefix(c Cmd) []string {
	if c.LineBuffered {
		return stdbufArgv
	}
	return nil
}

// lookPath is exec.LookPath with a relative result made absolute, so that
// the path does not depend on Cmd.Dir.
func lookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if errors.Is(err, exec.ErrDot) {
		err = nil
	}
	if err != nil {
		return "", err
	}
	return filepath.Abs(path)
}

func statusOf(ps *os.ProcessState) ExitStatus {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Code: -1, Signal: ws.Signal()}
	}
	return ExitStatus{Code: ps.ExitCode()}
}

// localControl signals the group of a local process and reads its
// namespace's sockets.
type localControl struct {
	pid    int
	nsPath string

	mu     sync.Mutex
	exited bool // the leader has exited (it may be unreaped)
	reaped bool // the leader is being reaped: its PGID may be reused
}

// wait waits for cmd, the group's leader, to exit, kills what is left of
// the group, calls exited (when not nil), and only then reaps the leader:
// until it is reaped (a zombie), its process group ID cannot be reused.
func (c *localControl) wait(cmd *exec.Cmd, exited func()) (ExitStatus, error) {
	zombie.WaitExited(c.pid)
	c.sweepAndReap()
	if exited != nil {
		exited()
	}
	err := cmd.Wait()
	if cmd.ProcessState == nil {
		return ExitStatus{Code: -1}, err
	}
	return statusOf(cmd.ProcessState), nil
}

// sweepAndReap kills what is left of the group after the leader exited,
// and marks the leader as about to be reaped, after which the group is
// never signalled again.
func (c *localControl) sweepAndReap() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.exited = true
	_ = unix.Kill(-c.pid, unix.SIGKILL)
	c.reaped = true
}

func (c *localControl) signal(sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reaped {
		return os.ErrProcessDone
	}
	if err := unix.Kill(-c.pid, sig); err != nil {
		return fmt.Errorf("host: kill -%d -- -%d: %w", sig, c.pid, err)
	}
	return nil
}

// tcpSockets reads /proc/PID/net/tcp{,6}. For a process started through ip
// netns exec, it first checks that the process has entered the namespace:
// until then its table is the caller's, which may list the port already.
func (c *localControl) tcpSockets(ctx context.Context) ([]TCPSocket, error) {
	if c.nsPath != "" {
		in, err := inNetns(c.pid, c.nsPath)
		if err != nil || !in {
			return nil, c.orEnded(err)
		}
	}
	socks, err := readTCPDir(fmt.Sprintf("/proc/%d/net", c.pid))
	if err != nil {
		return nil, c.orEnded(err)
	}
	return socks, nil
}

// ownsListener looks for the listeners' socket:[INODE] among the links in
// /proc/PID/fd, the kernel's word for which process holds a socket.
func (c *localControl) ownsListener(socks []TCPSocket, port uint16) (bool, error) {
	want := listenerInodes(socks, port)
	if len(want) == 0 {
		return false, nil
	}
	dir := fmt.Sprintf("/proc/%d/fd", c.pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false, c.orEnded(err)
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err != nil {
			continue // closed since the listing
		}
		if inode, ok := socketInode(link); ok && want[inode] {
			return true, nil
		}
	}
	return false, nil
}

// orEnded returns errProcessEnded instead of err once the leader has
// exited: its /proc entry no longer answers.
func (c *localControl) orEnded(err error) error {
	if err == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exited {
		return errProcessEnded
	}
	// The supervising goroutine may not have seen the exit yet.
	var info unix.Siginfo
	werr := unix.Waitid(unix.P_PID, c.pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if werr == nil && info.Signo != 0 {
		return errProcessEnded
	}
	return err
}

// inNetns reports whether process pid is in the namespace bound at nsPath.
func inNetns(pid int, nsPath string) (bool, error) {
	var proc, ns unix.Stat_t
	if err := unix.Stat(fmt.Sprintf("/proc/%d/ns/net", pid), &proc); err != nil {
		return false, err
	}
	if err := unix.Stat(nsPath, &ns); err != nil {
		return false, err
	}
	return proc.Dev == ns.Dev && proc.Ino == ns.Ino, nil
}

// stdbufArgv is the prefix that LineBuffered adds.
var stdbufArgv = []string{"stdbuf", "-oL", "-eL"}
