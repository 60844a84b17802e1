package rocekittest

import (
	"fmt"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
	"golang.org/x/sys/unix"
)

// ServerLife is how long a fake server that ended normally in its capture
// runs before it exits: long enough for RunPair's readiness check to see
// its port on a loaded machine, short enough for a unit test. A server
// whose capture ran into its deadline hangs until it is stopped, as the
// real one did.
const ServerLife = 500 * time.Millisecond

// Perftest and netperf's default ports, which a fake listens on when the
// command it is given has no -p.
const (
	perftestPort = 18515
	netperfPort  = 12865
)

// script turns a captured side into a FakeScript: its outputs, its exit
// code or signal, a hang where it timed out.
func script(s Side, life time.Duration) host.FakeScript {
	fs := host.FakeScript{Stdout: string(s.Stdout), Stderr: string(s.Stderr), ExitCode: s.Exit, Delay: life}
	if s.Exit < 0 {
		fs.ExitCode = 0
		if sig := unix.SignalNum(s.Signal); sig != 0 {
			fs.Signal = sig
		}
	}
	if s.TimedOut || s.Stopped {
		fs.Hang = true
	}
	return fs
}

// notFound is what a strict fake answers a program the case did not run.
func notFound(prog string) host.FakeScript {
	// host.ErrNotFound is exec.ErrNotFound: rocekittest starts no process.
	return host.FakeScript{StartErr: fmt.Errorf("exec: %q: %w", prog, host.ErrNotFound)}
}

// FakePair returns a server and a client runner that play a perftest
// case for perftest.RunPair, as they are:
//
//   - each answers the case's program by role, seen through taskset and
//     stdbuf prefixes (Program, PerftestRole), so one of them may also
//     serve both sides; any other program fails to start with
//     exec.ErrNotFound, as a missing binary does;
//   - the server listens on the -p port of the command it is given
//     (RunPair's Options.Port, else 18515) when its capture listened, and
//     exits ServerLife after its start with its captured exit code;
//   - a side the case has no capture of (the client-only "noserver"
//     cases) is a program that prints nothing, listens, and exits 0
//     after ServerLife, as a server nobody connects to would until
//     stopped;
//   - a side that ran into the capture's deadline hangs until RunPair
//     stops it.
//
// A case without a client side, or with a one-sided "cmd" (a version
// query), is refused with ErrNotPair.
//
// The fakes record every command (host.Fake.Calls), with its CPUs.
//
// Similar to: ib_send_bw -d rxe0 & ib_send_bw -d rxe0 198.18.0.1, replayed.
func FakePair(c *Case) (server, client *host.Fake, err error) {
	return FakePairWith(c, FakeOptions{})
}

// FakeOptions tune the fakes FakePairWith and PerftestFakeWith make.
type FakeOptions struct {
	// ServerLife is how long a fake server that ended normally in its
	// capture runs (0: ServerLife, 500 ms): each pair costs at least
	// that. A few tens of milliseconds make a suite of pairs fast on an
	// idle machine; too short for the machine's load, and RunPair sees
	// the server end before its port (perftest.ErrServerExited).
	ServerLife time.Duration
}

// FakePairWith is FakePair with the fakes tuned by o.
func FakePairWith(c *Case, o FakeOptions) (server, client *host.Fake, err error) {
	if c == nil || c.Tool != "perftest" {
		return nil, nil, fmt.Errorf("%w: FakePair needs a perftest case", ErrWrongTool)
	}
	_, hasClient := c.Side("client")
	if _, oneSided := c.Side("cmd"); oneSided || !hasClient {
		return nil, nil, fmt.Errorf("%w: %s has sides %s, FakePair needs a client (and a server, unless it has none)", ErrNotPair, c.ID, c.roles())
	}
	return PerftestFakeWith(c, "server-host", o), PerftestFakeWith(c, "client-host", o), nil
}

// PerftestFake returns one runner that plays both sides of a perftest
// case, each by the role of the command it is given (see FakePair).
//
// Similar to: a host where ib_send_bw prints what it printed in the lab.
func PerftestFake(c *Case, name string) *host.Fake {
	return PerftestFakeWith(c, name, FakeOptions{})
}

// PerftestFakeWith is PerftestFake with the fake tuned by o.
func PerftestFakeWith(c *Case, name string, o FakeOptions) *host.Fake {
	serverLife := o.ServerLife
	if serverLife <= 0 {
		serverLife = ServerLife
	}
	listened := c.listened()
	return &host.Fake{Name: name, Respond: func(cmd host.Cmd) host.FakeScript {
		prog, args := Program(cmd.Argv)
		want, _ := Program(c.anyArgv())
		if prog != want {
			return notFound(prog)
		}
		role := PerftestRole(args)
		side, ok := c.Side(role)
		if !ok {
			side = Side{Role: role}
		}
		life := time.Duration(0)
		if role == "server" {
			life = serverLife
		}
		s := script(side, life)
		if role == "server" && (listened || !ok) {
			s.Listen = []uint16{port(args, "-p", perftestPort)}
		}
		return s
	}}
}

// listened reports whether the case's server reached its listening port,
// as the capture logged it.
func (c *Case) listened() bool {
	for _, l := range c.Log {
		if strings.HasPrefix(l, "server listening on port") {
			return true
		}
	}
	return false
}

func (c *Case) anyArgv() []string {
	for _, s := range c.Sides {
		if len(s.Argv) > 0 {
			return s.Argv
		}
	}
	return nil
}

// roles lists the roles of the case's sides: "[cmd]".
func (c *Case) roles() string {
	r := make([]string, len(c.Sides))
	for i, s := range c.Sides {
		r[i] = s.Role
	}
	return "[" + strings.Join(r, " ") + "]"
}
