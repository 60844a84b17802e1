package host

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// listenWaiter is a process control that waits for a listening port in
// one call instead of being polled: over SSH every poll was a session of
// its own, 0.6 to 1 s each on a loaded 2-core host, and a netserver that
// took a few polls to bind cost seconds per pair (issue 26,
// internal/overhead's BenchmarkPairOverhead).
type listenWaiter interface {
	// waitListening returns nil once the port is listening,
	// errProcessEnded when the process went first, errNoListenLoop when
	// the host cannot run the loop (then the caller polls).
	waitListening(ctx context.Context, done <-chan struct{}, port uint16) error
}

// errNoListenLoop: the remote host lacks what the loop needs (grep, ls).
var errNoListenLoop = errors.New("host: no remote readiness loop")

// listenLoop is the remote side of sshControl.waitListening: every 10 ms
// while the process lives it looks in /proc/PID/net/tcp and tcp6 for rows
// in state 0A (LISTEN) on the port and in /proc/PID/fd for their
// socket:[INODE] (field 10), so that another program's listener on the
// port does not count. Exit 0: the process listens; 3: it is gone; 4: no
// grep or ls (then the caller polls).
const listenLoop = `d=/proc/$1 p=$2
command -v grep >/dev/null 2>&1 && command -v ls >/dev/null 2>&1 || exit 4
while [ -r "$d/net/tcp" ]; do
	for i in $(cat "$d/net/tcp" "$d/net/tcp6" 2>/dev/null | grep "^ *[0-9]*: [0-9A-Fa-f]*:$p [0-9A-Fa-f]*:[0-9A-Fa-f]* 0A " |
		while read -r _ _ _ _ _ _ _ _ _ i _; do echo "$i"; done); do
		ls -l "$d/fd/" 2>/dev/null | grep -q "socket:\\[$i\\]" && exit 0
	done
	sleep 0.01 2>/dev/null || sleep 1
done
exit 3`

// waitListening runs listenLoop in one session, ended early when the
// process ends or ctx does.
func (c *sshControl) waitListening(ctx context.Context, done <-chan struct{}, port uint16) error {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-done:
			cancel()
		case <-lctx.Done():
		}
	}()
	_, err := Run(lctx, c.ssh, Cmd{Argv: []string{"sh", "-c", listenLoop, "sh", strconv.Itoa(c.pid), fmt.Sprintf("%04X", port)}})
	var ee *ExitError
	switch {
	case err == nil:
		return nil
	case isClosed(done):
		return errProcessEnded
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.As(err, &ee) && ee.Status.Code == 3:
		return errProcessEnded
	case errors.As(err, &ee) && ee.Status.Code == 4:
		return errNoListenLoop
	}
	return err
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
