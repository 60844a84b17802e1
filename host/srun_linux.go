package host

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
)

// Start starts c as a one-task step on the node and returns once the task
// runs there (the wrapper has reported its PID), or fails: a missing
// program with exec.ErrNotFound, srun's refusal (no such node, the job
// ended) with its message, no allocation with ErrNoAllocation.
//
// Similar to: srun --overlap --nodelist=NODE -N1 -n1 PROG ARGS &
func (s Srun) Start(ctx context.Context, c Cmd) (*Process, error) {
	fail := func(err error) (*Process, error) {
		return nil, &StartError{Where: s.String(), Argv: append([]string(nil), c.Argv...), Err: err}
	}
	if err := c.validate(); err != nil {
		return fail(err)
	}
	if s.Node == "" || strings.HasPrefix(s.Node, "-") || strings.ContainsAny(s.Node, " ,\x00") {
		return fail(fmt.Errorf("%w: node %q is not one node name", ErrInvalidCmd, s.Node))
	}
	if err := context.Cause(ctx); err != nil {
		return fail(err)
	}
	job, err := s.jobID()
	if err != nil {
		return fail(err)
	}
	nonce := newNonce()
	argv := s.argv(job, nonce, c)
	if argv[0], err = lookPath(argv[0]); err != nil {
		return fail(err)
	}
	// Env, Dir and CPUs are the wrapper's on the node, not srun's.
	cmd, outR, errR, err := forkGroup(argv, nil, "", nil, c.Stdin)
	if err != nil {
		return fail(err)
	}
	p := newProcess(s.String(), c)
	local := &localControl{pid: cmd.Process.Pid}
	ctl := &srunControl{srun: s, local: local, ended: make(chan struct{})}
	go p.stderr.pump(errR, errR)
	waitSrun := func() (ExitStatus, error) {
		st, err := local.wait(cmd, func() { close(ctl.ended) })
		return srunStatus(st), err // srunStatus keeps Code -1 as it is
	}
	br := bufio.NewReader(outR)
	ch := awaitRemoteStart(br, nonce)
	// abandon waits for an srun that runs no command of c's (killing it
	// first when asked) and reads its stderr.
	abandon := func(kill bool) (ExitStatus, error) {
		if kill {
			_ = ctl.signal(syscall.SIGKILL)
		}
		st, err := waitSrun()
		outR.Close()
		<-p.stderr.endedChan()
		return st, err
	}
	var st startReport
	select {
	case st = <-ch:
	case <-ctx.Done():
		abandon(true)
		return fail(context.Cause(ctx))
	}
	switch {
	case st.notFound != "":
		abandon(false) // the wrapper exits 127
		return fail(st.notFoundError(c.Argv[0]))
	case st.err != nil:
		status, werr := abandon(false) // srun closed its output: it is ending
		return fail(fmt.Errorf("srun did not start the task (%v%s): %s", status, errSuffix(werr), strings.TrimSpace(p.stderr.tailString(StderrTailBytes))))
	}
	p.pid = st.pid
	ctl.pid = st.pid
	p.ctl = ctl
	go p.stdout.pump(br, outR)
	p.supervise(ctx, waitSrun, func() {
		outR.Close()
		errR.Close()
	})
	return p, nil
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return ", " + err.Error()
}

// srunControl signals a task through its local srun.
type srunControl struct {
	srun  Srun
	local *localControl // srun's own process group
	pid   int           // the task's PID on the node

	ended    chan struct{} // closed when srun has exited
	killOnce sync.Once
}

// signal forwards sig through srun; SIGINT and SIGKILL become two SIGINTs
// (the step's termination), and SIGKILL is then sent to srun itself after
// KillGrace unless it ended.
func (c *srunControl) signal(sig syscall.Signal) error {
	if sig != syscall.SIGINT && sig != syscall.SIGKILL {
		return c.local.signal(sig)
	}
	if err := c.local.signal(syscall.SIGINT); err != nil {
		return err
	}
	afterUnlessEnded(c.ended, srunIntervalSIGINT, func() { _ = c.local.signal(syscall.SIGINT) })
	if sig == syscall.SIGKILL {
		c.killOnce.Do(func() {
			afterUnlessEnded(c.ended, orDefault(c.srun.KillGrace, DefaultSrunKillGrace),
				func() { _ = c.local.signal(syscall.SIGKILL) })
		})
	}
	return nil
}

// tcpSockets reads /proc/PID/net/tcp{,6} of the task on the node, through
// a step of its own.
func (c *srunControl) tcpSockets(ctx context.Context) ([]TCPSocket, error) {
	socks, err := c.srun.tcpTable(ctx, c.pid)
	if err != nil && isClosed(c.ended) {
		return nil, errProcessEnded
	}
	return socks, err
}
