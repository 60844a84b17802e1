package perftest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/rocekit/rocekit/host"
)

// Soak defaults.
const (
	// DefaultSoakInterval is perftest's -D with --run_infinitely: one row
	// every 5 seconds.
	DefaultSoakInterval = 5 * time.Second
	// soakStartup bounds the setup of both sides (the TCP handshake, the
	// QPs) in the deadline of a soak.
	soakStartup = time.Minute
	// soakStopGrace is how long a side may take to exit after SIGINT
	// before it is killed.
	soakStopGrace = 5 * time.Second
)

// SoakResult is a --run_infinitely pair run by RunSoak: both sides as
// RunPair records them, and the interim rows of each side with their time.
type SoakResult struct {
	*PairResult
	// ClientInterims and ServerInterims are the rows of each side in
	// order, End counted from the start of the side's first interval. The
	// server of a send test measures what it received; the server of a
	// write or read test echoes the client's rows (perftest 25.01) or
	// prints none (4.5).
	ClientInterims, ServerInterims []Interim
	// Stopped is set when RunSoak stopped the client with SIGINT after the
	// soak length (the normal end of a soak).
	Stopped bool
	// AfterStop is a failure either side printed once the client was
	// stopped, which does not fail the soak: perftest 4.5's write server
	// prints "Failed to exchange data between server and clients"
	// (KindHandshake) when its client dies of SIGINT before the server
	// gets its own. Ending by the SIGINT itself is not a failure.
	AfterStop *Error
}

// RunSoak runs a --run_infinitely pair for length: opts as RunPair takes
// them, with -D (Options.Duration) the interval between rows
// (DefaultSoakInterval when zero). The client gets SIGINT once length has
// passed since its first interval began (perftest 25.01 prints "User
// stopped traffic" and exits 0, 4.5 dies of the signal), then the server
// gets SIGINT too; a side that has not ended soakStopGrace later is killed.
// Every line is kept, and each row is handed to onInterim (when not nil)
// as it arrives, from the goroutine that reads the side's output.
//
// The error is RunPair's, except that ending by the SIGINT RunSoak sent
// is success, and so is a failure the server printed after the client was
// stopped (SoakResult.AfterStop); a failure the client printed fails the
// soak. Options.Timeout, when zero, becomes
// length plus a minute for the setup and the stop.
//
// Similar to: ib_write_bw --run_infinitely -D 1 -d rxe0 & ib_write_bw --run_infinitely -D 1 -d rxe0 SERVER & sleep 60; kill -INT %2 %1
func RunSoak(ctx context.Context, serverRunner, clientRunner host.Runner, serverAddr string, opts Options, length time.Duration,
	onInterim func(Role, Interim)) (*SoakResult, error) {
	opts, err := soakOptions(opts, length)
	if err != nil {
		return nil, err
	}
	program := opts.Test.Program()
	srv := &soakSide{Runner: serverRunner, role: Server, program: program, clock: interimClock{every: opts.Duration}, on: onInterim}
	cli := &soakSide{Runner: clientRunner, role: Client, program: program, clock: interimClock{every: opts.Duration}, on: onInterim,
		stopAt: length + opts.Duration/2, peer: srv}
	pr, err := RunPair(ctx, srv, cli, serverAddr, opts)
	sr := &SoakResult{PairResult: pr, ClientInterims: cli.rows(), ServerInterims: srv.rows(), Stopped: cli.wasStopped()}
	if pr == nil || err == nil || !sr.Stopped {
		return sr, err
	}
	// The client was stopped: if it ended by that SIGINT (or exited 0)
	// without printing a failure, the soak did what it should, whatever
	// the server made of its client's end.
	if !stoppedCleanly(pr.Client) || ctx.Err() != nil {
		return sr, err
	}
	if pe, ok := errors.AsType[*Error](pr.Client.ParseErr); ok && pe != nil {
		return sr, err
	}
	if pe, ok := errors.AsType[*PairError](err); ok && pe.Failure != nil {
		sr.AfterStop = pe.Failure
	}
	return sr, nil
}

// soakOptions checks a soak's options and adds --run_infinitely, -D and
// the deadline.
func soakOptions(opts Options, length time.Duration) (Options, error) {
	switch {
	case length <= 0:
		return opts, optionsErr("length", "the soak length %v is not positive", length)
	case opts.Test.Latency():
		return opts, optionsErr("Test", "--run_infinitely is for BW tests, not %v", opts.Test)
	case opts.Bidirectional && opts.Test.verb() == 0:
		return opts, optionsErr("Bidirectional", "perftest refuses --run_infinitely with -b on send tests")
	case opts.Iterations > 0 || opts.AllSizes:
		return opts, optionsErr("Iterations", "--run_infinitely runs by time: no -n or -a")
	case slices.Contains(opts.Extra, "--run_infinitely") || slices.Contains(opts.Server.Extra, "--run_infinitely") || slices.Contains(opts.Client.Extra, "--run_infinitely"):
		return opts, optionsErr("Extra", "RunSoak adds --run_infinitely itself")
	}
	if opts.Duration == 0 {
		opts.Duration = DefaultSoakInterval
	}
	opts.Extra = append(slices.Clip(opts.Extra), "--run_infinitely")
	if opts.Timeout == 0 {
		opts.Timeout = soakStartup + length + 2*opts.Duration + 2*soakStopGrace
	}
	return opts, opts.Validate()
}

// stoppedCleanly reports whether the stopped client ended by the stop:
// exit status 0 or the SIGINT RunSoak sent.
func stoppedCleanly(s Process) bool {
	return s.Started && (s.Status.Success() || s.Status.Signal == syscall.SIGINT)
}

// soakSide is the runner of one side of a soak: it reads the side's rows
// as they arrive and, for the client, stops it after the soak length.
type soakSide struct {
	host.Runner
	role    Role
	program string
	on      func(Role, Interim)
	stopAt  time.Duration // from the first interval's start; 0: stopped with the peer
	peer    *soakSide     // the server, which the client's end stops

	mu      sync.Mutex
	clock   interimClock
	parser  *textParser
	started bool
	stopped bool
	got     []Interim
	proc    *host.Process
	first   chan struct{} // closed at the first row
}

// Start starts c, and watches it when it is the side's perftest process
// (the runner may also be asked to read GIDs or JSON files).
func (s *soakSide) Start(ctx context.Context, c host.Cmd) (*host.Process, error) {
	s.mu.Lock()
	mine := !s.started && len(c.Argv) > 0 && c.Argv[0] == s.program
	if mine {
		s.begin()
		prev := c.OnStdout
		c.OnStdout = func(line string) {
			s.line(line)
			if prev != nil {
				prev(line)
			}
		}
	}
	s.mu.Unlock()
	p, err := s.Runner.Start(ctx, c)
	if err != nil || !mine {
		return p, err
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	if s.role == Client {
		go s.stopAfter(ctx, p)
	}
	return p, nil
}

// begin readies the side for its process's lines (under s.mu).
func (s *soakSide) begin() {
	s.started = true
	s.parser = newTextParser(false)
	s.parser.onRow = s.row
	s.first = make(chan struct{})
}

// line feeds one line of stdout to the parser.
func (s *soakSide) line(text string) {
	s.mu.Lock()
	s.parser.feed([]byte(text))
	s.mu.Unlock()
}

// row records a row of the main table (called by the parser under s.mu).
func (s *soakSide) row(r Row) {
	bw, ok := r.(BWRow)
	if !ok {
		return
	}
	in := Interim{Row: bw, End: s.clock.end(time.Now())}
	if len(s.got) == 0 {
		close(s.first)
	}
	s.got = append(s.got, in)
	if s.on != nil {
		s.on(s.role, in)
	}
}

// stopAfter sends the client SIGINT at stopAt after its first interval
// began, then stops the server once the client has ended.
func (s *soakSide) stopAfter(ctx context.Context, p *host.Process) {
	select {
	case <-s.first:
	case <-p.Done():
		return
	case <-ctx.Done():
		return
	}
	s.mu.Lock()
	wait := s.stopAt - s.clock.every - time.Since(s.clock.first)
	s.mu.Unlock()
	if !waitGrace(ctx, p, max(wait, 0)) {
		return // the client ended, or ctx did
	}
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	interrupt(ctx, p)
	if s.peer != nil {
		s.peer.interrupt(ctx)
	}
}

// interrupt sends the server SIGINT, once it has started.
func (s *soakSide) interrupt(ctx context.Context) {
	s.mu.Lock()
	p := s.proc
	if p != nil {
		s.stopped = true
	}
	s.mu.Unlock()
	if p != nil {
		interrupt(ctx, p)
	}
}

// interrupt sends p SIGINT and kills it if it has not ended soakStopGrace
// later.
func interrupt(ctx context.Context, p *host.Process) {
	if p.Signal(syscall.SIGINT) != nil {
		return
	}
	if waitGrace(ctx, p, soakStopGrace) {
		p.Kill()
	}
}

func (s *soakSide) rows() []Interim {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

func (s *soakSide) wasStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}
