package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// drainTimeout bounds how long a process's output is still read after the
// process has exited (and, for Local, its group was killed). Only a process
// that escaped the group, or a remote side that never closes the channel,
// holds a stream open that long; the stream is then abandoned.
const drainTimeout = 2 * time.Second

// ExitStatus is how a process ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when the process was killed by a signal
	// or its end is unknown.
	Code int
	// Signal is the signal that killed the process, or 0.
	Signal syscall.Signal
}

// Success reports whether the process exited with code 0.
func (s ExitStatus) Success() bool { return s.Code == 0 && s.Signal == 0 }

// String describes the status: "exit status 1", "signal KILL".
func (s ExitStatus) String() string {
	if s.Signal != 0 {
		return "signal " + strings.TrimPrefix(unix.SignalName(s.Signal), "SIG")
	}
	if s.Code < 0 {
		return "unknown exit status"
	}
	return fmt.Sprintf("exit status %d", s.Code)
}

// control is what a runner does for a started process.
type control interface {
	// signal sends sig to the process's whole group.
	signal(sig syscall.Signal) error
	// tcpSockets lists the TCP sockets of the process's network namespace.
	tcpSockets(ctx context.Context) ([]TCPSocket, error)
}

// Process is a command started by a Runner, leader of its own process
// group. The group is the unit: on cancellation of the context given to
// Start, on Kill and on Stop the whole group is signalled. It is safe for
// concurrent use.
type Process struct {
	where  string
	argv   []string
	pid    int
	stdout *Output
	stderr *Output
	ctl    control

	done   chan struct{} // closed when the process has ended and its output is read
	status ExitStatus
	err    error

	mu     sync.Mutex
	killed error // why rocekit killed the group, first reason wins
}

func newProcess(where string, c Cmd) *Process {
	return &Process{
		where:  where,
		argv:   append([]string(nil), c.Argv...),
		stdout: newOutput(c.MaxOutputBytes, c.MaxLineBytes, c.OnStdout),
		stderr: newOutput(c.MaxOutputBytes, c.MaxLineBytes, c.OnStderr),
		done:   make(chan struct{}),
		status: ExitStatus{Code: -1},
	}
}

// PID returns the process ID on the host where the process runs (for SSH,
// the remote host). It is also the process group ID.
func (p *Process) PID() int { return p.pid }

// Argv returns the command as given to Start (without the stdbuf, ip netns
// exec or shell wrappers a runner adds).
func (p *Process) Argv() []string { return append([]string(nil), p.argv...) }

// Stdout returns the standard output stream.
func (p *Process) Stdout() *Output { return p.stdout }

// Stderr returns the standard error stream.
func (p *Process) Stderr() *Output { return p.stderr }

// Done returns a channel that is closed when the process has ended and its
// output has been read.
func (p *Process) Done() <-chan struct{} { return p.done }

// Status returns how the process ended; before Done it is {Code: -1}.
func (p *Process) Status() ExitStatus {
	select {
	case <-p.done:
		return p.status
	default:
		return ExitStatus{Code: -1}
	}
}

// Wait waits until the process has ended and its output has been read, and
// returns nil if it exited with code 0, else an *ExitError. If ctx ends
// first, Wait returns ctx's cause and leaves the process running: its
// lifetime is bound by the context given to Start, or by Kill and Stop.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	default:
	}
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return fmt.Errorf("host: waiting for %s on %s: %w", argvName(p.argv), p.where, context.Cause(ctx))
	}
}

// Signal sends sig to the process's whole group. After the process has
// ended it returns os.ErrProcessDone.
//
// Similar to: kill -s SIG -- -PGID
func (p *Process) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return os.ErrProcessDone
	default:
	}
	return p.ctl.signal(sig)
}

// Kill sends SIGKILL to the process's whole group; Wait then returns an
// ExitError whose Killed is ErrKilled.
func (p *Process) Kill() error { return p.kill(ErrKilled) }

// Stop ends the process: SIGTERM to its group, then SIGKILL if it has not
// ended when ctx does, and waits for it. It returns nil when the process
// ended by one of these signals or exited with code 0, else Wait's error.
//
// Similar to: kill -TERM -- -PGID; sleep N; kill -KILL -- -PGID
func (p *Process) Stop(ctx context.Context) error {
	p.setKilled(ErrKilled)
	if err := p.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		_ = p.kill(ErrKilled)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		_ = p.kill(ErrKilled)
		<-p.done
	}
	if s := p.status.Signal; s == syscall.SIGTERM || s == syscall.SIGKILL {
		return nil
	}
	return p.err
}

func (p *Process) setKilled(reason error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killed == nil {
		p.killed = reason
	}
}

func (p *Process) kill(reason error) error {
	select {
	case <-p.done:
		return os.ErrProcessDone
	default:
	}
	p.setKilled(reason)
	return p.ctl.signal(syscall.SIGKILL)
}

// supervise runs the process's life in a goroutine: waitExit blocks until
// the process has ended (and, for Local, its group has been swept and the
// leader reaped); when ctx ends first, the group is killed. Then both streams
// are read to their end, or abandon is called after drainTimeout to close
// them, and Done is closed.
func (p *Process) supervise(ctx context.Context, waitExit func() (ExitStatus, error), abandon func()) {
	go func() {
		exited := make(chan struct{})
		var st ExitStatus
		var werr error
		go func() {
			st, werr = waitExit()
			close(exited)
		}()
		select {
		case <-exited:
		case <-ctx.Done():
			select {
			case <-exited:
			default:
				_ = p.kill(context.Cause(ctx))
				<-exited
			}
		}
		p.drain(abandon)
		p.finish(st, werr)
	}()
}

func (p *Process) drain(abandon func()) {
	timer := time.NewTimer(drainTimeout)
	defer timer.Stop()
	for _, o := range []*Output{p.stdout, p.stderr} {
		select {
		case <-o.endedChan():
		case <-timer.C:
			abandon() // closing the streams ends both pumps
			<-p.stdout.endedChan()
			<-p.stderr.endedChan()
			return
		}
	}
}

func (p *Process) finish(st ExitStatus, werr error) {
	p.status = st
	if !st.Success() || werr != nil {
		p.mu.Lock()
		killed := p.killed
		p.mu.Unlock()
		p.err = &ExitError{
			Where:  p.where,
			Argv:   p.argv,
			Status: st,
			Stderr: p.stderr.tailString(StderrTailBytes),
			Killed: killed,
			Err:    werr,
		}
	}
	close(p.done)
}
