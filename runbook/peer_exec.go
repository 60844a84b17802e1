package runbook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/tune"
)

// The far side's programs (netserver, perftest servers, the commands a
// round reads with) run through the agent: "rocekit-peer exec" journals
// its own PID and start time, then execs the program in place (same PID,
// same process group, the one host.SSH reports and kills). A program left
// behind by a lost SSH link or a killed driver is then ended, with its
// children, by the next restore there (tune.KindProcess).

// execArg is exec's argument.
type execArg struct {
	Argv []string `json:"argv"`
}

// peerRunner is the Peer's host.Runner: each command through the agent's
// exec.
type peerRunner struct{ p *Peer }

// Start checks that the program exists on the peer (a missing one fails
// with host.ErrNotFound, as for host.SSH), then runs it through the agent.
//
// Similar to: ssh HOST rocekit-peer exec '{"argv":["netserver","-D"]}'
func (r peerRunner) Start(ctx context.Context, c host.Cmd) (*host.Process, error) {
	if len(c.Argv) == 0 {
		return r.p.runner().Start(ctx, c) // refused there, as for any runner
	}
	fail := func(err error) (*host.Process, error) {
		return nil, &host.StartError{Where: r.String(), Argv: append([]string(nil), c.Argv...), Err: err}
	}
	if r.p.Netns != "" {
		if err := host.ValidNetnsName(r.p.Netns); err != nil {
			return fail(err)
		}
	}
	probe, err := host.Run(ctx, r.p.runner(), host.Cmd{Argv: []string{"sh", "-c", `command -v -- "$1" >/dev/null 2>&1 || exit 127`, "sh", c.Argv[0]}})
	var ee *host.ExitError
	switch {
	case errors.As(err, &ee) && ee.Status.Code == 127:
		return fail(fmt.Errorf("%w: %s", host.ErrNotFound, c.Argv[0]))
	case err != nil && probe == nil:
		return nil, err
	}
	a, err := json.Marshal(execArg{Argv: c.Argv})
	if err != nil {
		return fail(err)
	}
	agent, dir := r.p.agentAndDir()
	c.Argv = []string{agent, "-protocol", fmt.Sprint(PeerProtocol), "-journal-dir", dir, "-netns", r.p.Netns, "exec", string(a)}
	return r.p.runner().Start(ctx, c)
}

// TCPSockets reads the sockets of the peer's namespace (not journaled:
// readiness polls it).
func (r peerRunner) TCPSockets(ctx context.Context) ([]host.TCPSocket, error) {
	if r.p.Netns != "" {
		return peerNetns{r.p.runner(), r.p.Netns}.TCPSockets(ctx)
	}
	return r.p.runner().TCPSockets(ctx)
}

// String names the peer (and its namespace).
func (r peerRunner) String() string {
	if r.p.Netns != "" {
		return peerNetns{r.p.runner(), r.p.Netns}.String()
	}
	return r.p.runner().String()
}

// execTracked journals this process (the agent), then execs argv in its
// place, in the side's namespace through ip netns exec (which execs in
// place too). It returns only on failure.
func (l *Local) execTracked(argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("%w: exec: no program", tune.ErrInvalidInput)
	}
	if l.Netns != "" {
		argv = append([]string{"ip", "netns", "exec", l.Netns}, argv...)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	// Restore ends the process group: be its leader (host.SSH made it so
	// already; a person running "rocekit-peer exec" may not have).
	if syscall.Getpgrp() != os.Getpid() {
		_ = syscall.Setpgid(0, 0)
	}
	l.mu.Lock()
	if l.sess == nil {
		s, err := tune.Begin(l.Journal, tune.Options{Root: l.Root})
		if err != nil {
			l.mu.Unlock()
			return err
		}
		l.sess = s
	}
	_, err = l.sess.TrackProcess(os.Getpid(), argv)
	cerr := l.sess.Close() // the journal's lock ends with its descriptor
	l.sess = nil
	l.mu.Unlock()
	if err := errors.Join(err, cerr); err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}
