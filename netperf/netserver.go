package netperf

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
)

// ErrPortBusy is wrapped by StartNetserver's error when the control port is
// already in LISTEN state where netserver would run (another netserver, or
// any other program), or when netserver itself reports it cannot bind
// ("Unable to start netserver with ...").
var ErrPortBusy = errors.New("netperf: netserver port already in use")

// ServerOptions is how to start netserver.
//
// Similar to: netserver -D -p PORT -4
type ServerOptions struct {
	// Port is the control port (-p); 0 means DefaultPort, 12865.
	Port uint16
	// Family restricts netserver to IPv4 (-4) or IPv6 (-6); FamilyAny
	// listens on both.
	Family Family
	// Addr is the local address to listen on (-L); empty means all.
	Addr string
	// CPUs pins netserver, and the child it forks per test, through
	// host.Cmd.CPUs; empty leaves the affinity as inherited.
	//
	// Similar to: taskset -c 3 netserver -D
	CPUs []int
	// Serial runs the tests one after the other in netserver's own
	// process (-f) instead of a child forked per test: PDEATHSIG then ends
	// everything with a caller killed by SIGKILL, where a forked child
	// outlives it (a kill of the process group, as Restore does, ends
	// both either way). Off by default: with -f, netserver 2.7 dies when
	// a client is cancelled mid-test (seen in TestRootCancelRunOnly,
	// four runs of six), and tests cannot run at once.
	//
	// Similar to: netserver -D -f
	Serial bool
}

func (o *ServerOptions) port() uint16 {
	if o.Port == 0 {
		return DefaultPort
	}
	return o.Port
}

// Validate reports a wrong option as an *OptionsError: a family other than
// 0, 4 or 6, or an address that is not one.
//
// Similar to: what netserver -p PORT -L ADDR would reject.
func (o *ServerOptions) Validate() error {
	if _, err := o.Family.flag(); err != nil {
		return err
	}
	if err := checkCPUs(o.CPUs); err != nil {
		return err
	}
	return checkHost("Addr", o.Addr)
}

// Argv returns netserver's command line: always -D, so that netserver stays
// in the foreground and its PID (and process group, which holds the child
// it forks per test) is the one the runner started, -f with Serial, and
// always -p.
//
// Similar to: netserver -D -p 12865 -4 -L 198.18.70.1
func (o *ServerOptions) Argv() []string {
	a := []string{"netserver", "-D"}
	if o.Serial {
		a = append(a, "-f")
	}
	a = append(a, "-p", strconv.Itoa(int(o.port())))
	if fam, _ := o.Family.flag(); fam != "" {
		a = append(a, fam)
	}
	if o.Addr != "" {
		a = append(a, "-L", o.Addr)
	}
	return a
}

// Netserver is a running netserver, started by StartNetserver. Stop it
// with Stop (or Kill); it is also killed when the context given to
// StartNetserver ends.
//
// Similar to: netserver -D -p PORT & PID=$!
type Netserver struct {
	opts   ServerOptions
	runner host.Runner
	proc   *host.Process
}

// StartNetserver starts netserver in the foreground on r and returns once
// its control port is in LISTEN state in netserver's network namespace
// (read from /proc, never probed by connecting). A port that is already
// listening there fails at once with ErrPortBusy, a missing binary with
// the runner's *host.StartError (errors.Is(err, exec.ErrNotFound)), a
// netserver that exits before listening with its *host.ExitError. The
// netserver runs until ctx ends, Stop or Kill.
//
// Similar to: netserver -D -p PORT & until ss -Htln "sport = :PORT" | grep -q .; do sleep 0.1; done
func StartNetserver(ctx context.Context, r host.Runner, o ServerOptions) (*Netserver, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	port := o.port()
	// No look at the port first: netserver that cannot bind exits at once
	// with "Unable to start netserver", which is ErrPortBusy below, and a
	// look would cost a session per pair over SSH (issue 26).
	p, err := r.Start(ctx, host.Cmd{Argv: o.Argv(), MaxOutputBytes: 64 << 10, CPUs: o.CPUs})
	if err != nil {
		return nil, fmt.Errorf("netperf: netserver: %w", err)
	}
	if err := host.WaitProcessListening(ctx, p, port); err != nil {
		_ = p.Kill()
		var ee *host.ExitError
		if errors.As(err, &ee) && strings.Contains(ee.Stderr, "Unable to start netserver") {
			return nil, fmt.Errorf("%w: port %d on %s: %w", ErrPortBusy, port, r, err)
		}
		// It can end between two polls, which then see it gone rather
		// than its exit: its own words say whether the port was taken.
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = p.Wait(wctx)
		cancel()
		if strings.Contains(p.Stderr().String(), "Unable to start netserver") {
			return nil, fmt.Errorf("%w: port %d on %s: %w", ErrPortBusy, port, r, err)
		}
		return nil, fmt.Errorf("netperf: netserver on %s: %w", r, err)
	}
	// netserver can exit with "Unable to start" right after another
	// program's listener made the readiness poll see the port taken.
	select {
	case <-p.Done():
		err := p.Wait(context.WithoutCancel(ctx))
		if err == nil {
			err = errors.New("exited before the test")
		}
		return nil, fmt.Errorf("%w: port %d on %s: %w", ErrPortBusy, port, r, err)
	default:
	}
	return &Netserver{opts: o, runner: r, proc: p}, nil
}

// Port returns the control port netserver listens on: Options.Port for the
// runs against it.
//
// Similar to: netperf -p PORT
func (s *Netserver) Port() uint16 { return s.opts.port() }

// PID returns netserver's process ID (also its process group ID) where it
// runs.
//
// Similar to: echo $!
func (s *Netserver) PID() int { return s.proc.PID() }

// Process returns the host process, for its output or Done channel.
//
// Similar to: wait $PID
func (s *Netserver) Process() *host.Process { return s.proc }

// stopGrace is how long Stop waits after SIGTERM before SIGKILL when the
// caller's context has no earlier deadline.
const stopGrace = 5 * time.Second

// Stop ends netserver: SIGTERM to its process group (netserver and the
// children it forked for tests), SIGKILL if it is still there when ctx ends
// or after 5 s, and waits for it. It returns nil when netserver ended by
// one of these signals or exited 0.
//
// Similar to: kill -TERM -- -PID; sleep 5; kill -KILL -- -PID
func (s *Netserver) Stop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, stopGrace)
	defer cancel()
	if err := s.proc.Stop(ctx); err != nil {
		return fmt.Errorf("netperf: stopping netserver on %s: %w", s.runner, err)
	}
	return nil
}

// Kill sends SIGKILL to netserver's process group and returns at once.
//
// Similar to: kill -KILL -- -PID
func (s *Netserver) Kill() error { return s.proc.Kill() }
