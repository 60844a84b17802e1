package host

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"
)

// remoteScript is the /bin/sh wrapper every SSH command runs under. Its
// arguments are a nonce, the directory, the number of environment entries,
// 1 for stdbuf, a CPU list for taskset ("" for none), the entries, then
// the argv; it reads them only as "$@", so
// their content is never parsed as shell. Before exec'ing the command it
// prints one line on stdout: "rocekit-NONCE pid PID" (PID = PGID), or
// "rocekit-NONCE notfound cmd|stdbuf|taskset". A login shell that already leads its
// process group (sshd calls setsid for each session) keeps it; otherwise
// setsid(1), which then does not fork, makes one.
const remoteScript = `n=$1 d=$2 e=$3 b=$4 c=$5
shift 5
if [ -n "$d" ]; then cd -- "$d" || exit 126; fi
while [ "$e" -gt 0 ]; do export "$1" || exit 126; shift; e=$((e-1)); done
if ! command -v -- "$1" >/dev/null 2>&1; then echo "rocekit-$n notfound cmd"; exit 127; fi
if [ "$b" = 1 ]; then
	command -v stdbuf >/dev/null 2>&1 || { echo "rocekit-$n notfound stdbuf"; exit 127; }
	set -- stdbuf -oL -eL "$@"
fi
if [ -n "$c" ]; then
	command -v taskset >/dev/null 2>&1 || { echo "rocekit-$n notfound taskset"; exit 127; }
	set -- taskset -c "$c" "$@"
fi
if kill -s 0 -- -$$ 2>/dev/null; then s=; else s=setsid; fi
echo "rocekit-$n pid $$"
exec $s "$@"`

// remoteCommand returns the command line the remote login shell runs for c.
func remoteCommand(nonce string, c Cmd) string {
	return "exec /bin/sh -c " + Quote(remoteScript) + " rocekit " + QuoteCommand(wrapperArgs(nonce, c))
}

// remoteStart is what the wrapper's first line said.
type remoteStart struct {
	pid      int
	notFound string // "cmd", "stdbuf" or "taskset" when that program is missing
}

// newNonce returns a random word for the wrapper's line, so that nothing
// a login script prints can pass for that line.
func newNonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startReport is the wrapper's line, or why it was not read.
type startReport struct {
	remoteStart
	err error
}

// awaitRemoteStart reads the wrapper's line from br in the background, so
// that the caller can give up on it when ctx ends.
func awaitRemoteStart(br *bufio.Reader, nonce string) <-chan startReport {
	ch := make(chan startReport, 1)
	go func() {
		rs, err := readRemoteStart(br, nonce)
		ch <- startReport{rs, err}
	}()
	return ch
}

// notFoundError is the exec.ErrNotFound for a notfound line: the command
// argv0, or the wrapper's own stdbuf or taskset.
func (rs remoteStart) notFoundError(argv0 string) error {
	name := argv0
	if rs.notFound != "cmd" {
		name = rs.notFound
	}
	return &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// readRemoteStart reads stdout up to the wrapper's line, skipping what a
// login script may have printed before it.
func readRemoteStart(r *bufio.Reader, nonce string) (remoteStart, error) {
	prefix := "rocekit-" + nonce + " "
	for {
		line, err := r.ReadString('\n')
		if rest, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), prefix); ok && err == nil {
			kind, arg, _ := strings.Cut(rest, " ")
			switch kind {
			case "pid":
				pid, perr := strconv.Atoi(arg)
				if perr != nil || pid <= 0 {
					return remoteStart{}, fmt.Errorf("wrapper reported pid %q", arg)
				}
				return remoteStart{pid: pid}, nil
			case "notfound":
				if arg == "" {
					arg = "cmd"
				}
				return remoteStart{notFound: arg}, nil
			}
		}
		if err != nil {
			return remoteStart{}, fmt.Errorf("the wrapper ended before starting the command: %w", err)
		}
	}
}

// Start starts c on the remote host in a new session and process group.
//
// Similar to: ssh HOST 'cd DIR && env K=V setsid PROG ARGS'
func (s *SSH) Start(ctx context.Context, c Cmd) (*Process, error) {
	fail := func(err error) (*Process, error) {
		return nil, &StartError{Where: s.String(), Argv: append([]string(nil), c.Argv...), Err: err}
	}
	if err := c.validate(); err != nil {
		return fail(err)
	}
	if err := context.Cause(ctx); err != nil {
		return fail(err)
	}
	if c.MaxOutputBytes == 0 && s.maxOutput > 0 {
		c.MaxOutputBytes = s.maxOutput
	}
	sess, err := s.newSession()
	if err != nil {
		return fail(err)
	}
	sess.Stdin = c.Stdin // nil: the remote program reads an empty input
	stdout, err1 := sess.StdoutPipe()
	stderr, err2 := sess.StderrPipe()
	if err := errors.Join(err1, err2); err != nil {
		sess.Close()
		return fail(err)
	}
	nonce := newNonce()
	if err := sess.Start(remoteCommand(nonce, c)); err != nil {
		sess.Close()
		return fail(err)
	}
	p := newProcess(s.String(), c)
	go p.stderr.pump(stderr, nil)
	br := bufio.NewReader(stdout)
	ch := awaitRemoteStart(br, nonce)
	var st startReport
	select {
	case st = <-ch:
	case <-ctx.Done():
		sess.Close()
		if st = <-ch; st.pid > 0 { // it started before the session closed
			_ = s.runRaw(fmt.Sprintf("kill -s KILL -- -%d", st.pid), remoteKillTimeout)
		}
		return fail(context.Cause(ctx))
	}
	switch {
	case st.notFound != "":
		sess.Close()
		return fail(st.notFoundError(c.Argv[0]))
	case st.err != nil:
		werr := sess.Wait()
		sess.Close()
		<-p.stderr.endedChan()
		return fail(fmt.Errorf("%w (%v): %s", st.err, werr, strings.TrimSpace(p.stderr.tailString(StderrTailBytes))))
	}
	p.pid = st.pid
	ctl := &sshControl{ssh: s, sess: sess, pid: st.pid, ended: make(chan struct{})}
	p.ctl = ctl
	go p.stdout.pump(br, nil)
	p.supervise(ctx, ctl.wait, func() { sess.Close() })
	return p, nil
}

// remoteKillTimeout bounds the session that signals a remote group.
const remoteKillTimeout = 10 * time.Second

// sshControl signals a remote process group over a second session.
type sshControl struct {
	ssh  *SSH
	sess *ssh.Session
	pid  int

	ended chan struct{} // closed when the session has ended
}

func (c *sshControl) wait() (ExitStatus, error) {
	err := c.sess.Wait()
	close(c.ended)
	var exitErr *ssh.ExitError
	switch {
	case err == nil:
		return ExitStatus{Code: 0}, nil
	case errors.As(err, &exitErr) && exitErr.Signal() != "":
		sig := unix.SignalNum("SIG" + exitErr.Signal())
		if sig == 0 {
			return ExitStatus{Code: -1}, fmt.Errorf("killed by unknown signal %q", exitErr.Signal())
		}
		return ExitStatus{Code: -1, Signal: sig}, nil
	case errors.As(err, &exitErr):
		return ExitStatus{Code: exitErr.ExitStatus()}, nil
	default: // *ssh.ExitMissingError, a lost connection
		if lost := c.ssh.lostErr(); lost != nil {
			return ExitStatus{Code: -1}, lost
		}
		var missing *ssh.ExitMissingError
		if errors.As(err, &missing) {
			return ExitStatus{Code: -1}, fmt.Errorf("the SSH session ended without an exit status: sshd or the connection to %s went away while the command ran (%w)", c.ssh.addr, err)
		}
		return ExitStatus{Code: -1}, err
	}
}

// signal runs "kill -s SIG -- -PGID" remotely. If SIGKILL cannot be sent
// (the connection is lost, or the group just ended), the session is closed
// unless it ends by itself within drainTimeout, so that Wait ends anyway.
func (c *sshControl) signal(sig syscall.Signal) error {
	if isClosed(c.ended) {
		return os.ErrProcessDone
	}
	name := strings.TrimPrefix(unix.SignalName(sig), "SIG")
	if sig == 0 {
		name = "0"
	}
	if name == "" {
		return fmt.Errorf("host: unknown signal %d", sig)
	}
	err := c.ssh.runRaw(fmt.Sprintf("kill -s %s -- -%d", name, c.pid), remoteKillTimeout)
	if err != nil && sig == syscall.SIGKILL {
		afterUnlessEnded(c.ended, drainTimeout, func() { c.sess.Close() })
	}
	return err
}

// afterUnlessEnded calls f on a goroutine of its own after d, unless ended
// is closed first: the delayed escalations of the SSH and srun controls.
func afterUnlessEnded(ended <-chan struct{}, d time.Duration, f func()) {
	go func() {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-ended:
		case <-timer.C:
			f()
		}
	}()
}

func (c *sshControl) tcpSockets(ctx context.Context) ([]TCPSocket, error) {
	socks, err := c.ssh.tcpTable(ctx, c.pid)
	if err != nil && isClosed(c.ended) {
		return nil, errProcessEnded
	}
	return socks, err
}

// runRaw runs a fixed command line (no caller input in it) in a session of
// its own, bounded by timeout.
func (s *SSH) runRaw(line string, timeout time.Duration) error {
	sess, err := s.newSession()
	if err != nil {
		return fmt.Errorf("host: %s: %s: %w", s, line, err)
	}
	defer sess.Close()
	done := make(chan error, 1)
	var stdout, stderr strings.Builder // two copying goroutines: one writer each
	sess.Stdout, sess.Stderr = &stdout, &stderr
	go func() { done <- sess.Run(line) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		sess.Close()
		err = <-done
		if err == nil || errors.Is(err, io.EOF) {
			err = errors.New("timed out")
		}
	}
	if err != nil {
		return fmt.Errorf("host: %s: %s: %w: %s", s, line, err, strings.TrimSpace(stderr.String()+stdout.String()))
	}
	return nil
}
