package netperf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/rocekit/rocekit/host"
)

// ErrRunTimeout is the cause Run gives the context it runs netperf with
// when the run outlasts its own deadline (the test length times the
// iterations, plus a margin): netperf waits 120 s or more for a silent
// netserver, and UDP_RR stalls on a lost datagram.
//
// Similar to: timeout $((L + 15)) netperf -l L ...
var ErrRunTimeout = errors.New("netperf: run outlasted its deadline")

// Run validates o, runs netperf on r, waits for it, and parses its omni -k
// output (ParseKeyVal). The run is bounded by ctx and by its own deadline
// (Options.Timeout, ErrRunTimeout); either kills netperf's process group.
//
// Errors:
//   - *OptionsError (ErrInvalidOptions): o is wrong; nothing ran.
//   - *Error (ErrFailed): netperf reported a failure, classified by Kind:
//     KindNoServer when no netserver listens (netperf fails at once on a
//     refused connection), KindControlLost when netserver goes away during
//     the test (also when netperf dies of SIGPIPE), KindBadOption for a
//     test-specific option netperf rejected even though it still ran the
//     test (the Result is then complete), and so on. The Result beside a
//     failure has Form FormError.
//   - *host.StartError: netperf could not start (exec.ErrNotFound when
//     it is not installed).
//   - *host.ExitError: netperf failed without a message this package
//     classifies, or was killed: errors.Is(err, context.Canceled),
//     errors.Is(err, ErrRunTimeout).
//   - *ParseError (ErrParse): the output was garbled; the Result keeps
//     what parsed. A run that printed no result (no THROUGHPUT) also
//     wraps ErrNoResult.
//
// Similar to: netperf -H HOST -t UDP_STREAM -l 30 -- -m 1400 -s 2M -S 2M -k THROUGHPUT,...
func Run(ctx context.Context, r host.Runner, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, o.runTimeout(), ErrRunTimeout)
	defer cancel()
	argv := o.Argv()
	p, err := host.Run(ctx, r, host.Cmd{Argv: argv, MaxOutputBytes: 1 << 20, CPUs: o.CPUs})
	if p == nil {
		return nil, fmt.Errorf("netperf: %w", err)
	}
	res, err := result(p, err)
	if res != nil {
		res.Argv = argv
	}
	return res, err
}

// result turns netperf's output and exit into Run's result and error, and
// keeps the output in the result.
func result(p *host.Process, waitErr error) (*Result, error) {
	res, err := parseRun(p, waitErr)
	if res != nil {
		res.Stdout, res.Stderr = p.Stdout().Bytes(), p.Stderr().Bytes()
	}
	return res, err
}

func parseRun(p *host.Process, waitErr error) (*Result, error) {
	stdout, stderr := p.Stdout().Bytes(), p.Stderr().Bytes()
	var ee *host.ExitError
	if errors.As(waitErr, &ee) && ee.Killed != nil {
		// Killed by rocekit: the output is cut short; the reason is the
		// answer.
		return nil, fmt.Errorf("netperf: %w", waitErr)
	}
	if waitErr != nil && ee == nil {
		return nil, fmt.Errorf("netperf: %w", waitErr)
	}
	res, perr := ParseKeyVal(bytes.NewReader(stdout))
	var nerr *Error
	if errors.As(perr, &nerr) {
		nerr.Raw = raw(stdout, stderr)
		return res, nerr
	}
	if waitErr == nil && perr == nil && res.Throughput != nil {
		// netperf runs the test even after rejecting a test-specific
		// option (and exits 0): its complaint is on stderr.
		if e := stderrFailure(stdout, stderr, KindBadOption); e != nil {
			return res, e
		}
		return res, nil
	}
	// No result: the reason is on stderr, or only in the exit status.
	if e := stderrFailure(stdout, stderr, ""); e != nil {
		return &Result{Form: FormError}, e
	}
	if ee != nil && ee.Status.Signal == syscall.SIGPIPE {
		// netperf does not ignore SIGPIPE: when netserver goes away while
		// netperf sends (TCP_STREAM), it dies of it without a word.
		return &Result{Form: FormError}, &Error{Kind: KindControlLost,
			Message: "netperf killed by SIGPIPE: netserver closed the connection during the test",
			Raw:     raw(stdout, stderr)}
	}
	if waitErr != nil {
		return res, fmt.Errorf("netperf: %w", waitErr)
	}
	if perr != nil {
		return res, perr
	}
	return res, &ParseError{Line: 1 + bytes.Count(stdout, []byte("\n")), Msg: "no THROUGHPUT in netperf's -k output", Err: ErrNoResult}
}

// stderrFailure returns the first failure standard error reports (of kind
// only, unless only is empty), as an *Error whose Line counts from the
// start of stdout and stderr joined.
func stderrFailure(stdout, stderr []byte, only Kind) *Error {
	base := 1
	if len(stdout) > 0 {
		base += bytes.Count(stdout, []byte("\n")) + 1
	}
	for i, l := range strings.Split(string(stderr), "\n") {
		k, ok := classifyFailureLine(l)
		if !ok || (only != "" && k != only) {
			continue
		}
		return &Error{Kind: k, Message: strings.TrimSpace(l), Line: base + i, Raw: raw(stdout, stderr)}
	}
	return nil
}

// raw is netperf's whole output as an Error keeps it.
func raw(stdout, stderr []byte) string {
	s := strings.TrimSpace(string(stdout))
	if e := strings.TrimSpace(string(stderr)); e != "" {
		if s != "" {
			s += "\n"
		}
		s += e
	}
	if len(s) > maxRaw {
		s = s[:maxRaw]
	}
	return s
}
