package host

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Polling intervals of the readiness helpers: the first check is
// immediate, then the interval doubles from pollMin up to pollMax.
const (
	pollMin = 2 * time.Millisecond
	pollMax = 25 * time.Millisecond
)

// WaitListening waits until a TCP socket in LISTEN state on port (IPv4 or
// IPv6, any address) appears in r's network namespace, polling
// r.TCPSockets. It never connects to the port: a perftest server accepts
// exactly one connection and would take a probe for its client. When ctx
// ends first, the error wraps ErrNotListening and ctx's cause.
//
// Similar to: until ss -Htln "sport = :PORT" | grep -q .; do sleep 0.1; done
func WaitListening(ctx context.Context, r Runner, port uint16) error {
	err := poll(ctx, nil, func() (bool, error) {
		socks, err := r.TCPSockets(ctx)
		if err != nil {
			return false, err
		}
		return ListeningOn(socks, port), nil
	})
	if err != nil {
		return fmt.Errorf("%w: port %d on %s: %w", ErrNotListening, port, r, err)
	}
	return nil
}

// WaitProcessListening waits until a TCP socket in LISTEN state on port
// appears in the network namespace of p (/proc/PID/net/tcp and tcp6, which
// list every socket of the namespace that PID is in; over SSH read on the
// remote host) and, on this host and over SSH, is one of p's own open
// files (/proc/PID/fd): another program's listener on the port is not p's
// readiness, and p is about to fail to bind. It fails early, with p's exit
// error, when p ends before the port is listening, so a server that cannot
// bind is reported at once. Srun tasks, fakes and SSH hosts without grep
// or ls are checked by the namespace's table alone.
//
// Similar to: cat /proc/PID/net/tcp /proc/PID/net/tcp6 | grep ':PORT .* 0A'; ls -l /proc/PID/fd | grep socket:[INODE]
func WaitProcessListening(ctx context.Context, p *Process, port uint16) error {
	ended := func() bool { return isClosed(p.done) }
	check := func() (bool, error) {
		if ended() {
			return false, errProcessEnded
		}
		socks, err := p.ctl.tcpSockets(ctx)
		if err != nil && ended() { // its /proc entry went with it
			return false, errProcessEnded
		}
		if err != nil {
			return false, err
		}
		if o, ok := p.ctl.(socketOwner); ok {
			return o.ownsListener(socks, port)
		}
		return ListeningOn(socks, port), nil
	}
	var err error
	if w, ok := p.ctl.(listenWaiter); ok {
		// One remote loop (SSH) instead of a session per poll.
		if err = w.waitListening(ctx, p.done, port); errors.Is(err, errNoListenLoop) {
			err = poll(ctx, p.done, check)
		}
	} else {
		err = poll(ctx, p.done, check)
	}
	if errors.Is(err, errProcessEnded) {
		select { // its exit error is set once its output is read
		case <-p.done:
			err = p.err
			if err == nil {
				err = fmt.Errorf("%s exited with code 0", argvName(p.argv))
			}
		case <-ctx.Done():
			err = context.Cause(ctx)
		}
		return fmt.Errorf("%w: port %d of %s (pid %d) on %s: process ended: %w", ErrNotListening, port, argvName(p.argv), p.pid, p.where, err)
	}
	if err != nil {
		return fmt.Errorf("%w: port %d of %s (pid %d) on %s: %w", ErrNotListening, port, argvName(p.argv), p.pid, p.where, err)
	}
	return nil
}

// socketOwner is a process control that can tell its process's sockets
// from the rest of the namespace's.
type socketOwner interface {
	// ownsListener reports whether one of socks in LISTEN state on port
	// is an open file of the process.
	ownsListener(socks []TCPSocket, port uint16) (bool, error)
}

// errProcessEnded is poll's result when ended is closed first.
var errProcessEnded = errors.New("process ended")

// poll calls check until it reports true or fails, waiting between calls
// with a growing interval; it stops with ctx's cause when ctx ends and with
// errProcessEnded when ended (which may be nil) is closed.
func poll(ctx context.Context, ended <-chan struct{}, check func() (bool, error)) error {
	interval := pollMin
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		ok, err := check()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		timer.Reset(interval)
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-ended:
			return errProcessEnded
		case <-timer.C:
		}
		interval = min(2*interval, pollMax)
	}
}
