package host

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Fake is a Runner for unit tests of the layers above host: it starts no
// process, answers each command with a FakeScript, and records every Cmd it
// was given. Its processes behave like real ones towards the caller
// (streams, exit status, ExitError, kill on context end, Kill, Stop,
// Signal), and the ports a script listens on show in TCPSockets while its
// process runs, so WaitListening and WaitProcessListening work against it.
// The zero value answers every command with exit 0 and no output. Use it by
// pointer; it is safe for concurrent use.
type Fake struct {
	// Name is what String returns; empty means "fake".
	Name string
	// Respond, when set, chooses the script of each command.
	Respond func(c Cmd) FakeScript
	// Scripts holds the scripts by program name (Argv[0], or its base
	// name), used when Respond is nil.
	Scripts map[string]FakeScript
	// Strict makes a program that has no script fail Start with
	// exec.ErrNotFound, as a missing binary does.
	Strict bool
	// Sockets are always listed by TCPSockets, besides those of running
	// scripts.
	Sockets []TCPSocket

	mu      sync.Mutex
	calls   []Cmd
	live    map[*fakeControl]bool
	lastPID int
}

// FakeScript is what a Fake process does: it writes Stdout and Stderr at
// once, runs for Delay (or, with Hang, until it is signalled) and exits with
// ExitCode, or as if killed by Signal. Any signal sent to it before then
// ends it as killed by that signal.
type FakeScript struct {
	Stdout, Stderr string
	ExitCode       int
	Signal         syscall.Signal
	Delay          time.Duration
	Hang           bool
	// StartErr makes Start fail with a *StartError wrapping it (for a
	// missing binary: exec.ErrNotFound).
	StartErr error
	// Listen are ports in LISTEN state (0.0.0.0) from ListenDelay after
	// the start until the process ends.
	Listen      []uint16
	ListenDelay time.Duration
}

// String returns the Fake's Name, or "fake".
func (f *Fake) String() string {
	if f.Name == "" {
		return "fake"
	}
	return f.Name
}

// Calls returns a copy of every Cmd given to Start, in order, including
// those whose Start failed.
func (f *Fake) Calls() []Cmd {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Cmd, len(f.calls))
	for i, c := range f.calls {
		c.Argv = slices.Clone(c.Argv)
		c.Env = slices.Clone(c.Env)
		out[i] = c
	}
	return out
}

// Argvs returns the argv of every Cmd given to Start, in order.
func (f *Fake) Argvs() [][]string {
	var out [][]string
	for _, c := range f.Calls() {
		out = append(out, c.Argv)
	}
	return out
}

// Start records c and starts a fake process that plays its script.
func (f *Fake) Start(ctx context.Context, c Cmd) (*Process, error) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.calls[len(f.calls)-1].Argv = slices.Clone(c.Argv)
	f.calls[len(f.calls)-1].Env = slices.Clone(c.Env)
	f.mu.Unlock()

	fail := func(err error) (*Process, error) {
		return nil, &StartError{Where: f.String(), Argv: slices.Clone(c.Argv), Err: err}
	}
	if err := c.validate(); err != nil {
		return fail(err)
	}
	s, ok := f.script(c)
	switch {
	case !ok && f.Strict:
		return fail(&exec.Error{Name: c.Argv[0], Err: exec.ErrNotFound})
	case s.StartErr != nil:
		return fail(s.StartErr)
	}
	if err := context.Cause(ctx); err != nil {
		return fail(err)
	}
	p := newProcess(f.String(), c)
	ctl := &fakeControl{fake: f, script: s, start: time.Now(), sig: make(chan syscall.Signal, 1)}
	f.mu.Lock()
	if f.live == nil {
		f.live = map[*fakeControl]bool{}
	}
	f.live[ctl] = true
	f.lastPID++
	p.pid = 100000 + f.lastPID
	f.mu.Unlock()
	p.ctl = ctl
	go p.stdout.pump(strings.NewReader(s.Stdout), nil)
	go p.stderr.pump(strings.NewReader(s.Stderr), nil)
	p.supervise(ctx, ctl.run, func() {})
	return p, nil
}

// script finds the script of c.
func (f *Fake) script(c Cmd) (FakeScript, bool) {
	if f.Respond != nil {
		return f.Respond(c), true
	}
	if s, ok := f.Scripts[c.Argv[0]]; ok {
		return s, true
	}
	s, ok := f.Scripts[path.Base(c.Argv[0])]
	return s, ok
}

// TCPSockets lists f.Sockets and the LISTEN sockets of the running scripts.
func (f *Fake) TCPSockets(ctx context.Context) ([]TCPSocket, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	socks := slices.Clone(f.Sockets)
	for ctl := range f.live {
		if time.Since(ctl.start) < ctl.script.ListenDelay {
			continue
		}
		for _, port := range ctl.script.Listen {
			socks = append(socks, TCPSocket{
				Local:  netip.AddrPortFrom(netip.IPv4Unspecified(), port),
				Remote: netip.AddrPortFrom(netip.IPv4Unspecified(), 0),
				State:  TCPListen,
			})
		}
	}
	return socks, nil
}

// fakeControl plays one script.
type fakeControl struct {
	fake   *Fake
	script FakeScript
	start  time.Time
	sig    chan syscall.Signal

	mu    sync.Mutex
	ended bool
}

// run waits for the script's end or a signal, whichever comes first.
func (c *fakeControl) run() (ExitStatus, error) {
	defer func() {
		c.mu.Lock()
		c.ended = true
		c.mu.Unlock()
		c.fake.mu.Lock()
		delete(c.fake.live, c)
		c.fake.mu.Unlock()
	}()
	var timeout <-chan time.Time
	if !c.script.Hang {
		timer := time.NewTimer(c.script.Delay)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case sig := <-c.sig:
		return ExitStatus{Code: -1, Signal: sig}, nil
	case <-timeout:
	}
	if c.script.Signal != 0 {
		return ExitStatus{Code: -1, Signal: c.script.Signal}, nil
	}
	return ExitStatus{Code: c.script.ExitCode}, nil
}

func (c *fakeControl) signal(sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return os.ErrProcessDone
	}
	if sig == 0 {
		return nil
	}
	select {
	case c.sig <- sig:
	default: // a signal is already pending; the first one ends the script
	}
	return nil
}

func (c *fakeControl) tcpSockets(ctx context.Context) ([]TCPSocket, error) {
	socks, err := c.fake.TCPSockets(ctx)
	if err != nil {
		return nil, fmt.Errorf("host: fake sockets: %w", err)
	}
	return socks, nil
}
