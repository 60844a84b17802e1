package perftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
)

// Errors of RunPair, besides *OptionsError, *Error (what perftest printed)
// and the host package's errors (host.ErrNotFound, which is exec.ErrNotFound, for a missing program).
var (
	// ErrPortBusy: something already listens on the pair's TCP port on the
	// server's host, so the server could not bind it (and the readiness
	// check would take the other listener for it).
	ErrPortBusy = errors.New("perftest: port already in use")

	// ErrPairTimeout: the pair did not finish within Options.Deadline
	// (or Options.Timeout); both sides were killed. perftest itself
	// never times out its out-of-band connection.
	ErrPairTimeout = errors.New("perftest: pair did not finish before its deadline")

	// ErrHeaderMismatch: the two sides printed different headers (QPs,
	// MTU, link type, connection, GID family), so they did not run the
	// same test; PairResult.Mismatches says how.
	ErrHeaderMismatch = errors.New("perftest: server and client ran different tests")

	// ErrServerExited: the server ended before its port was listening,
	// without a perftest message that says why.
	ErrServerExited = errors.New("perftest: server exited before listening")
)

// PairError is the failure of a pair: which side and stage failed and why.
// errors.As finds the *Error perftest printed (Failure) and errors.Is the
// sentinels (ErrPortBusy, ErrPairTimeout, ErrHeaderMismatch, ErrNoResult,
// host.ErrNotFound, context.Canceled).
type PairError struct {
	// Side is "server", "client", or "" when the pair as a whole failed.
	Side Role
	// Stage is where it failed: "port", "start", "listen", "run",
	// "headers", or "result" when both sides exited 0 and one printed no
	// result (Err is then Result.NoResult's *ParseError: errors.Is(err,
	// ErrNoResult)).
	Stage string
	// Failure is the root cause perftest printed on either side (Classify
	// over both sides' outputs), or nil.
	Failure *Error
	// Err is the runner's or RunPair's error: *host.StartError,
	// *host.ExitError, ErrPortBusy, ErrPairTimeout, ErrHeaderMismatch, a
	// context's cause.
	Err error
}

// Error says which side failed where, and why.
func (e *PairError) Error() string {
	var b strings.Builder
	b.WriteString("perftest: pair failed")
	if e.Side != "" {
		b.WriteString(" on the " + string(e.Side))
	}
	if e.Stage != "" {
		b.WriteString(" (" + e.Stage + ")")
	}
	if e.Failure != nil {
		b.WriteString(": " + e.Failure.Error())
	}
	if e.Err != nil && (e.Failure == nil || !isExitError(e.Err)) {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func isExitError(err error) bool {
	var ee *host.ExitError
	return errors.As(err, &ee) && ee.Killed == nil
}

// Unwrap returns Failure and Err, those that are set.
func (e *PairError) Unwrap() []error {
	var errs []error
	if e.Failure != nil {
		errs = append(errs, e.Failure)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// Process is what one side of a pair ran and printed: its command, PID,
// outputs and result.
type Process struct {
	Role   Role     // Server or Client
	Runner string   // where it ran (host.Runner's String)
	Argv   []string // the command (pinning is in CPUs, not a taskset prefix)
	// CPUs are the CPUs the side was pinned to (host.Cmd.CPUs), or nil.
	CPUs []int
	// GIDIndex is the -x given, or -1.
	GIDIndex int
	// Started is false when the side was never started. PID is its
	// process (and process group) ID on its host.
	Started bool
	PID     int
	// Stdout and Stderr are the side's raw outputs.
	Stdout, Stderr []byte
	// Status is how it ended; Err is its start or exit error.
	Status host.ExitStatus
	Err    error
	// Result is the parsed output (never nil once started); ParseErr is
	// ParseOutput's error (an *Error when the side printed a failure).
	Result   *Result
	ParseErr error
	// JSON is the --out_json file, read back and parsed, when
	// Options.JSON was set and the side wrote it.
	JSON *Result
	// Elapsed is from start to exit. Listen (server only) is from start to
	// the port in LISTEN state.
	Elapsed, Listen time.Duration
	// StoppedAfterGrace is set on a server that was still running
	// Options.ServerGrace after the client succeeded, and that RunPair
	// then stopped; its being killed is not the pair's failure.
	StoppedAfterGrace bool
}

// Outcome says how the side ended: "not started", "exit status 0",
// "signal KILL", "stopped after the client finished" (StoppedAfterGrace).
// A side that never started has no exit status (Status.Code is -1).
//
// Similar to: wait $PID; echo $?
func (s Process) Outcome() string {
	switch {
	case !s.Started:
		return "not started"
	case s.StoppedAfterGrace:
		return "stopped after the client finished"
	}
	return s.Status.String()
}

// waitGrace waits up to grace for p to end; it reports whether p was still
// running then (and so is to be stopped).
func waitGrace(ctx context.Context, p *host.Process, grace time.Duration) bool {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.Done():
		return false
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Mismatch is a header line the two sides printed differently.
type Mismatch struct {
	Field          string // "test", "qps", "mtu", "link_type", "connection", "gid_family", "size"
	Server, Client string
}

// String returns "connection: server RC, client UC".
func (m Mismatch) String() string {
	return fmt.Sprintf("%s: server %s, client %s", m.Field, m.Server, m.Client)
}

// PairResult is a pair run by RunPair: both sides, the header comparison
// and the timings. Read the client for the numbers (the server of write,
// read and atomic BW tests echoes them; read and atomic latency servers
// print none).
type PairResult struct {
	// Options and ServerAddr are what RunPair was given.
	Options    Options
	ServerAddr string
	// Server and Client are the two sides.
	Server, Client Process
	// Mismatches lists header differences; see ErrHeaderMismatch.
	Mismatches []Mismatch
	// Deadline is the bound the pair ran under; Elapsed its wall time.
	Deadline, Elapsed time.Duration
}

// defaultGrace is how long the other side may take to finish once one
// side failed (Options.ClientGrace and ServerGrace when 0): long enough for
// it to print its own error, short enough that a server left in accept()
// does not hold the caller up.
const defaultGrace = 5 * time.Second

// RunPair runs one perftest pair: the server on serverRunner, then, once
// the server's port is in LISTEN state (read from /proc, never probed),
// the client on clientRunner against serverAddr. Both run line-buffered,
// under a deadline from Options.Deadline (or ctx, if sooner); on failure,
// timeout or cancel both process groups are killed. Both outputs are
// parsed, failures from either side are classified (Classify) into the
// returned *PairError's Failure, and the headers of the two sides are
// compared (PairResult.Mismatches, ErrHeaderMismatch). A pair whose
// sides both exit 0 without a failure still fails (Stage "result",
// ErrNoResult) when either side's output says nothing (Result.NoResult):
// no row, no --output number, and not the table-less output of a read or
// atomic latency server.
//
// It fails fast: invalid options with *OptionsError before anything
// starts, a busy port with ErrPortBusy before the server starts, a missing
// program with host.ErrNotFound, a missing device with an *Error of
// KindDeviceNotFound as soon as the server exits. The PairResult is
// returned whenever something was started, with or without an error.
//
// Similar to: ib_send_bw -d rxe0 -x 1 -F & sleep 1; ib_send_bw -d rxe0 -x 1 -F 198.18.80.1
func RunPair(ctx context.Context, serverRunner, clientRunner host.Runner, serverAddr string, opts Options) (*PairResult, error) {
	if err := checkPairArgs(serverRunner, clientRunner, serverAddr, opts); err != nil {
		return nil, err
	}
	start := time.Now()
	pr := &PairResult{Options: opts, ServerAddr: serverAddr, Deadline: opts.Deadline()}
	pr.Server = Process{Role: Server, Runner: serverRunner.String(), GIDIndex: -1, Status: host.ExitStatus{Code: -1}}
	pr.Client = Process{Role: Client, Runner: clientRunner.String(), GIDIndex: -1, Status: host.ExitStatus{Code: -1}}
	defer func() { pr.Elapsed = time.Since(start) }()

	runCtx, cancel := context.WithTimeoutCause(ctx, pr.Deadline, ErrPairTimeout)
	defer cancel()
	pr.Server.GIDIndex, pr.Client.GIDIndex = opts.Server.gid(), opts.Client.gid()
	pr.Server.Argv = opts.argv(Server, "")
	pr.Client.Argv = opts.argv(Client, serverAddr)
	pr.Server.CPUs, pr.Client.CPUs = opts.CPUs(Server), opts.CPUs(Client)

	srv, srvStart, err := pr.startServer(runCtx, serverRunner)
	if err != nil {
		return pr, err
	}
	defer srv.Kill()
	cli, cliStart, err := pr.startClient(runCtx, clientRunner, srv, srvStart)
	if err != nil {
		return pr, err
	}
	defer cli.Kill()
	srvEnd, cliEnd := endTime(srv), endTime(cli)

	pr.waitSides(runCtx, srv, cli)
	srv.Kill()
	cli.Kill()
	<-srv.Done()
	<-cli.Done()
	pr.finish(&pr.Server, srv, srvStart, srv.Wait(context.Background()))
	pr.finish(&pr.Client, cli, cliStart, cli.Wait(context.Background()))
	pr.Server.Elapsed, pr.Client.Elapsed = (<-srvEnd).Sub(srvStart), (<-cliEnd).Sub(cliStart)
	pr.readJSON(ctx, serverRunner, clientRunner)
	pr.Mismatches = CompareHeaders(pr.Server.Result, pr.Client.Result)
	return pr, pr.outcome(ctx, runCtx)
}

// checkPairArgs refuses what RunPair cannot run, before anything starts.
func checkPairArgs(serverRunner, clientRunner host.Runner, serverAddr string, opts Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := checkAddr(serverAddr); err != nil {
		return err
	}
	if serverRunner == nil || clientRunner == nil {
		return optionsErr("Runner", "nil runner")
	}
	return nil
}

// startServer starts the server once its port is free and waits until it
// listens. When it does not, the server is stopped and its output parsed
// into the returned error.
func (pr *PairResult) startServer(ctx context.Context, r host.Runner) (*host.Process, time.Time, error) {
	port := uint16(pr.Options.port())
	// A port in LISTEN state already would make the readiness check pass
	// for the wrong process: refuse it now.
	socks, err := r.TCPSockets(ctx)
	if err != nil {
		return nil, time.Time{}, &PairError{Side: Server, Stage: "port", Err: err}
	}
	if host.ListeningOn(socks, port) {
		return nil, time.Time{}, &PairError{Side: Server, Stage: "port", Err: fmt.Errorf("%w: %d on %s", ErrPortBusy, port, r)}
	}

	start := time.Now()
	srv, err := r.Start(ctx, host.Cmd{Argv: pr.Server.Argv, LineBuffered: true, CPUs: pr.Server.CPUs})
	if err != nil {
		return nil, start, &PairError{Side: Server, Stage: "start", Err: err}
	}
	pr.Server.Started, pr.Server.PID = true, srv.PID()
	if err := host.WaitProcessListening(ctx, srv, port); err != nil {
		srv.Kill()
		<-srv.Done()
		pr.finish(&pr.Server, srv, start, srv.Wait(context.Background()))
		return nil, start, pr.notListening(ctx, port, r)
	}
	pr.Server.Listen = time.Since(start)
	return srv, start, nil
}

// notListening says why a finished server never listened: the deadline,
// a failure it printed, its port taken, or it exited.
func (pr *PairResult) notListening(ctx context.Context, port uint16, r host.Runner) error {
	pe := &PairError{Side: Server, Stage: "listen", Failure: pr.classify(), Err: pr.Server.Err}
	switch {
	case ctx.Err() != nil:
		pe.Err = context.Cause(ctx)
	case pe.Failure != nil && pe.Failure.Kind == KindConnectFailed && strings.Contains(pe.Failure.Raw, "listen"):
		pe.Err = fmt.Errorf("%w: %d on %s", ErrPortBusy, port, r)
	case pe.Failure == nil:
		pe.Err = errors.Join(ErrServerExited, notFound(pr.Server), pr.Server.Err)
	}
	return pe
}

// startClient starts the client; when it cannot start, the server is
// stopped and its output parsed.
func (pr *PairResult) startClient(ctx context.Context, r host.Runner, srv *host.Process, srvStart time.Time) (*host.Process, time.Time, error) {
	start := time.Now()
	cli, err := r.Start(ctx, host.Cmd{Argv: pr.Client.Argv, LineBuffered: true, CPUs: pr.Client.CPUs})
	if err != nil {
		srv.Kill()
		<-srv.Done()
		pr.finish(&pr.Server, srv, srvStart, srv.Wait(context.Background()))
		return nil, start, &PairError{Side: Client, Stage: "start", Err: err}
	}
	pr.Client.Started, pr.Client.PID = true, cli.PID()
	return cli, start, nil
}

// waitSides waits for the first side to end. If it failed, the other side
// gets its grace (Options.ClientGrace or ServerGrace) to print its own
// error. After a successful client, a server that runs on (a read or
// atomic latency server, one left in accept()) is stopped after the
// grace, not at the deadline. After a successful server, the client has
// until the deadline.
func (pr *PairResult) waitSides(ctx context.Context, srv, cli *host.Process) {
	var first, second *host.Process
	select {
	case <-cli.Done():
		first, second = cli, srv
	case <-srv.Done():
		first, second = srv, cli
	case <-ctx.Done():
		return
	}
	switch {
	case !first.Status().Success():
		grace := pr.Options.clientGrace()
		if second == srv {
			grace = pr.Options.serverGrace()
		}
		waitGrace(ctx, second, grace)
	case first == cli:
		pr.Server.StoppedAfterGrace = waitGrace(ctx, srv, pr.Options.serverGrace())
	default:
		select {
		case <-second.Done():
		case <-ctx.Done():
		}
	}
}

// outcome is RunPair's error once both sides ended and were parsed: the
// caller's cancel, the deadline, a failure either side printed or its
// exit, then a header mismatch; nil when the pair succeeded.
func (pr *PairResult) outcome(ctx, runCtx context.Context) error {
	failure := pr.classify()
	var mismatch error
	if len(pr.Mismatches) > 0 {
		mismatch = fmt.Errorf("%w: %s", ErrHeaderMismatch, joinMismatches(pr.Mismatches))
	}
	switch {
	case ctx.Err() != nil:
		return &PairError{Stage: "run", Failure: failure, Err: errors.Join(context.Cause(ctx), mismatch)}
	case runCtx.Err() != nil && (pr.Client.Err != nil || pr.Server.Err != nil) && killedByUs(pr):
		return &PairError{Stage: "run", Failure: failure, Err: errors.Join(fmt.Errorf("%w (%v)", ErrPairTimeout, pr.Deadline), mismatch)}
	}
	if pr.Client.Err != nil || failure != nil {
		side := Client
		err := pr.Client.Err
		if err == nil || (pr.Server.Err != nil && pr.Client.Status.Code == 0) {
			side, err = Server, pr.Server.Err
		}
		if nf := notFound(pr.Client); nf != nil && failure == nil {
			err = errors.Join(nf, err)
		}
		return &PairError{Side: side, Stage: "run", Failure: failure, Err: errors.Join(err, mismatch)}
	}
	if pr.Server.Err != nil && !pr.Server.StoppedAfterGrace {
		return &PairError{Side: Server, Stage: "run", Failure: failure, Err: errors.Join(notFound(pr.Server), pr.Server.Err, mismatch)}
	}
	if mismatch != nil {
		return &PairError{Stage: "headers", Err: mismatch}
	}
	// Both ended well and printed no failure: each must also have said
	// something (Result.NoResult), or an exit status 0 would pass for a
	// result.
	for _, s := range []*Process{&pr.Client, &pr.Server} {
		if s.StoppedAfterGrace {
			continue // a server stopped once the client had its numbers
		}
		if err := s.Result.NoResult(); err != nil {
			return &PairError{Side: s.Role, Stage: "result", Err: err}
		}
	}
	return nil
}

// endTime delivers the time p ended, once it has.
func endTime(p *host.Process) <-chan time.Time {
	c := make(chan time.Time, 1)
	go func() {
		<-p.Done()
		c <- time.Now()
	}()
	return c
}

// killedByUs reports whether a side still running at the deadline was
// killed by it.
func killedByUs(pr *PairResult) bool {
	for _, s := range []Process{pr.Server, pr.Client} {
		var ee *host.ExitError
		if errors.As(s.Err, &ee) && ee.Killed != nil {
			return true
		}
	}
	return false
}

func joinMismatches(ms []Mismatch) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return strings.Join(s, "; ")
}

// notFound returns host.ErrNotFound when a side exited 127 without any
// perftest output: the shell's or taskset's "command not found".
func notFound(s Process) error {
	if s.Status.Code == 127 && (s.Result == nil || s.Result.Kind == ResultUnknown) {
		return fmt.Errorf("%s: %w", s.Argv[0], host.ErrNotFound)
	}
	return nil
}

// finish records a side's end and parses its output.
func (pr *PairResult) finish(s *Process, p *host.Process, started time.Time, waitErr error) {
	s.Elapsed = time.Since(started)
	s.Stdout = bytes.Clone(p.Stdout().Bytes())
	s.Stderr = bytes.Clone(p.Stderr().Bytes())
	s.Status = p.Status()
	s.Err = waitErr
	s.Result, s.ParseErr = ParseOutput(s.Stdout, s.Stderr)
	if s.Result != nil {
		s.Result.Argv = append([]string(nil), s.Argv...)
		opts := pr.Options
		s.Result.Options = &opts
	}
}

// classify returns the root-cause failure printed by either side, or nil.
func (pr *PairResult) classify() *Error {
	err := Classify(pr.Client.Stdout, pr.Client.Stderr, pr.Server.Stdout, pr.Server.Stderr)
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// readJSON reads back the --out_json files of the sides that succeeded.
func (pr *PairResult) readJSON(ctx context.Context, srv, cli host.Runner) {
	if !pr.Options.JSON {
		return
	}
	unit := UnitMiBps
	if pr.Options.ReportGbits {
		unit = UnitGbps
	}
	for _, s := range []struct {
		side *Process
		r    host.Runner
	}{{&pr.Server, srv}, {&pr.Client, cli}} {
		if !s.side.Started || s.side.Err != nil {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		p, err := host.Run(rctx, s.r, host.Cmd{Argv: []string{"cat", pr.Options.JSONFile(s.side.Role)}})
		cancel()
		if err != nil {
			continue
		}
		res, err := ParseJSON(bytes.NewReader(p.Stdout().Bytes()))
		if err != nil && res == nil {
			continue
		}
		if !pr.Options.Test.Latency() {
			res.AssumeBWUnit(unit)
		}
		s.side.JSON = res
	}
}

// CompareHeaders compares the headers the two sides of a pair printed:
// test title, number of QPs, MTU, link type, connection type and the
// family of the local GIDs (IPv4-mapped or IPv6, which must match for
// RoCE v2), and the message size of their last rows. A field counts only when both sides printed it. nil results
// compare equal.
//
// Similar to: diff <(grep -E 'qps|Mtu|Link|Connection' server.out) <(grep ... client.out)
func CompareHeaders(server, client *Result) []Mismatch {
	if server == nil || client == nil {
		return nil
	}
	s, c := server.Header, client.Header
	var ms []Mismatch
	add := func(field, a, b string) {
		if a != "" && b != "" && a != b {
			ms = append(ms, Mismatch{Field: field, Server: a, Client: b})
		}
	}
	num := func(v int) string {
		if v <= 0 {
			return ""
		}
		return strconv.Itoa(v)
	}
	add("test", server.Test, client.Test)
	add("qps", num(s.QPs), num(c.QPs))
	add("mtu", num(s.MTU), num(c.MTU))
	add("link_type", s.LinkType, c.LinkType)
	add("connection", s.Connection, c.Connection)
	add("gid_family", gidFamily(s.Local), gidFamily(c.Local))
	// The message size is not in the header, but both sides print it in
	// their last row (the server of write/read/atomic BW echoes the
	// client's; read and atomic latency servers print no row).
	add("size", lastSize(server), lastSize(client))
	return ms
}

// lastSize returns the #bytes of the last row, or "".
func lastSize(r *Result) string {
	switch {
	case len(r.BW) > 0:
		return strconv.FormatUint(r.BW[len(r.BW)-1].Bytes, 10)
	case len(r.Lat) > 0:
		return strconv.FormatUint(r.Lat[len(r.Lat)-1].Bytes, 10)
	}
	return ""
}

// gidFamily returns "ipv4" for IPv4-mapped GIDs (RoCE v2 over IPv4),
// "ipv6" for others, "" when no GID was printed.
func gidFamily(addrs []Address) string {
	for _, a := range addrs {
		if !a.GID.IsValid() {
			continue
		}
		if a.GID.Is4In6() || a.GID.Is4() {
			return "ipv4"
		}
		if a.GID == netip.IPv6Unspecified() {
			continue
		}
		return "ipv6"
	}
	return ""
}
