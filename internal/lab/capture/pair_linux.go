package capture

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/rocekit/rocekit/host"
)

// readyTimeout bounds the wait for a server to listen (before TimeoutScale).
const readyTimeout = 30 * time.Second

// Poll intervals of the readiness checks: reading /proc is cheap, running rdma is not.
const (
	pollTCPEvery  = 5 * time.Millisecond
	pollCMIDEvery = 100 * time.Millisecond
)

// runPair starts the server, waits until it listens, runs the client and then ends the
// server: netserver is stopped, a perftest server gets ServerGrace to exit by itself.
// The server side is recorded first, the client second.
func (r *runner) runPair(ctx context.Context, c *caseRun, pair *Pair) {
	if pair.Server == nil {
		c.logf("no server: the client runs alone")
		c.add(r.runCommand(ctx, c.dir, pair.Client), true)
		return
	}
	server, side := r.startSide(c.dir, *pair.Server)
	if server == nil {
		c.add(side, true)
		c.logf("server did not start; the client runs anyway")
		c.add(r.runCommand(ctx, c.dir, pair.Client), true)
		return
	}
	serverDeadline := server.start.Add(r.scale(pair.Server.Timeout))
	readyDeadline := minTime(serverDeadline, time.Now().Add(r.scale(readyTimeout)))
	c.logf("%s", r.waitReady(ctx, server, pair, readyDeadline))

	slot := c.add(Side{}, true)
	c.add(r.runCommand(ctx, c.dir, pair.Client), true)

	if pair.StopServer {
		server.stop(netserverStopGrace)
	} else {
		grace := pair.ServerGrace
		if grace == 0 {
			grace = DefaultServerGrace
		}
		server.waitUntil(ctx, minTime(serverDeadline, time.Now().Add(r.scale(grace))))
	}
	c.results[slot].Side = server.side
}

// waitReady polls until the server listens on pair.Port, the server exits, or the deadline
// passes, and says which happened. It never connects to the port: a perftest server takes
// any connection as its client.
func (r *runner) waitReady(ctx context.Context, server *process, pair *Pair, deadline time.Time) string {
	every := pollTCPEvery
	if pair.Ready == ReadyRDMACMListen {
		every = pollCMIDEvery
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	var lastErr error
	for polls := 1; ; polls++ {
		ok, err := r.listening(ctx, server, pair)
		if err != nil {
			lastErr = err
		}
		if ok {
			return fmt.Sprintf("server listening on port %d after %.3fs (%d polls)", pair.Port, time.Since(server.start).Seconds(), polls)
		}
		select {
		case <-server.exited:
			return fmt.Sprintf("server exited after %.3fs without listening on port %d; the client runs anyway", time.Since(server.start).Seconds(), pair.Port)
		case <-ctx.Done():
			return "cancelled while waiting for the server"
		case <-ticker.C:
		}
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("server not seen listening on port %d within %.1fs; the client runs anyway", pair.Port, time.Since(server.start).Seconds())
			if lastErr != nil {
				msg += " (last check: " + lastErr.Error() + ")"
			}
			return msg
		}
	}
}

// listening checks the server's readiness once.
func (r *runner) listening(ctx context.Context, server *process, pair *Pair) (bool, error) {
	if pair.Ready == ReadyRDMACMListen {
		out, err := r.output(ctx, 5*time.Second, "rdma", "res", "show", "cm_id")
		return cmIDListening([]byte(out), pair.Port), err
	}
	return tcpListening(server.pid(), uint16(pair.Port))
}

// tcpListening reads /proc/<pid>/net/tcp and tcp6, which show pid's network namespace.
func tcpListening(pid int, port uint16) (bool, error) {
	var errs []error
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/net/" + name)
		if errors.Is(err, fs.ErrNotExist) && name == "tcp6" {
			continue // IPv6 disabled
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		socks, err := host.ParseTCPTable(f)
		f.Close()
		if err != nil {
			errs = append(errs, err)
		}
		if host.ListeningOn(socks, port) {
			return true, nil
		}
	}
	return false, errors.Join(errs...)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
