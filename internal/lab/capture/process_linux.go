package capture

import (
	"context"
	"io"
	"math"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rocekit/rocekit/internal/zombie"
)

// unkillableWait bounds the wait for a process after SIGKILL. A process stuck in the kernel
// (uninterruptible sleep) is then left behind and recorded, so that capture never hangs.
const unkillableWait = 10 * time.Second

// process is a started command, leader of its own process group. Only capture's own
// children are ever signalled, through that group.
type process struct {
	cmd   *exec.Cmd
	side  Side
	start time.Time
	end   time.Time
	// exited is closed when the leader has exited. The leader stays unreaped (a zombie)
	// until reap, so its PID, and with it the process group id, cannot be reused while
	// capture still signals the group.
	exited chan struct{}
}

// startProcess starts argv in dir, in a new process group, with LC_ALL=C and stdin from
// /dev/null.
func startProcess(dir string, argv []string, stdout, stderr io.Writer) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = unkillableWait
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, start: time.Now(), exited: make(chan struct{})}
	go func() {
		zombie.WaitExited(cmd.Process.Pid)
		p.end = time.Now()
		close(p.exited)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// signalGroup signals every process of p's group.
func (p *process) signalGroup(sig syscall.Signal) {
	_ = unix.Kill(-p.pid(), sig) // ESRCH: the group is gone already
}

// waitUntil waits for p to exit by itself; at deadline or when ctx ends it kills the group.
func (p *process) waitUntil(ctx context.Context, deadline time.Time) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		p.side.TimedOut = true
		p.signalGroup(unix.SIGKILL)
	case <-ctx.Done():
		p.side.Error = "cancelled: " + context.Cause(ctx).Error()
		p.signalGroup(unix.SIGKILL)
	}
	p.reap()
}

// stop ends a server that runs until told: SIGTERM to the group, SIGKILL after grace.
// A server that already exited by itself is only reaped, and not marked stopped.
func (p *process) stop(grace time.Duration) {
	select {
	case <-p.exited:
		p.reap()
		return
	default:
	}
	p.side.Stopped = true
	p.signalGroup(unix.SIGTERM)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		p.signalGroup(unix.SIGKILL)
	}
	p.reap()
}

// reap sweeps what is left of the group, collects the leader and records how it ended.
func (p *process) reap() {
	timer := time.NewTimer(unkillableWait)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		p.side.Exit = -1
		p.side.Error = "did not exit after SIGKILL; left behind"
		p.side.Seconds = roundSeconds(time.Since(p.start))
		return
	}
	p.signalGroup(unix.SIGKILL)
	_ = p.cmd.Wait() // the outcome is read from ProcessState below
	p.side.Seconds = roundSeconds(p.end.Sub(p.start))
	ps := p.cmd.ProcessState
	if ps == nil {
		p.side.Exit = -1
		return
	}
	p.side.Exit = ps.ExitCode()
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		p.side.Signal = unix.SignalName(ws.Signal())
	}
}

func roundSeconds(d time.Duration) float64 {
	return math.Round(d.Seconds()*1000) / 1000
}
