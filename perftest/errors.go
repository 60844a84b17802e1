package perftest

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Sentinel errors. Parsers wrap them with %w, so callers write
// errors.Is(err, perftest.ErrTruncated); a failure the tool reported is an
// *Error, found with errors.As.
var (
	// ErrParse is wrapped by every *ParseError: a line that looks like a
	// result row, an address or a JSON value but does not parse.
	ErrParse = errors.New("perftest: cannot parse")

	// ErrTruncated means the output ends before its results: a table header
	// with no rows under it, a header block with no table, a last row cut
	// short (fewer fields than the table header), or --output mode with no
	// number. The tool was killed (a wrapper's timeout) or failed
	// without saying why on this stream; the rows that parsed are kept.
	ErrTruncated = errors.New("perftest: output ends before the results")

	// ErrUnrecognized means the input holds nothing perftest prints: no
	// title, header, table, number or failure message (an empty stdout, for
	// example).
	ErrUnrecognized = errors.New("perftest: not perftest output")

	// ErrToolFailed is wrapped by every *Error: the output holds a failure
	// message of the tool.
	ErrToolFailed = errors.New("perftest: tool failed")

	// ErrNoResult means the output holds no measurement: no row and no
	// --output number (Result.NoResult). It is wrapped together with
	// ErrTruncated (the output began: a title, header or table header)
	// or ErrUnrecognized (nothing in it is perftest's).
	ErrNoResult = errors.New("perftest: no result")

	// ErrConcatenated means a second test starts in the output (a second
	// title, server banner, header block or table header after the first
	// test's table): two outputs were pasted or logged one after the
	// other. The Result holds the first test only; ParseError.Line is the
	// line where the second begins, so the rest can be parsed on its own.
	ErrConcatenated = errors.New("perftest: a second test starts in the output")

	// ErrInterleaved means the output holds the lines of two processes
	// mixed (a server and a client run in one terminal): a second title
	// before the first test's table, or interleaved address lines whose
	// GIDs differ, so that which GID is whose cannot be told. Interleaved
	// address lines with equal GIDs (one host, one device) are read, each
	// GID going to the oldest address without one.
	ErrInterleaved = errors.New("perftest: the outputs of two processes are interleaved")
)

// errNilReader is what the parsers return for a nil io.Reader: a misuse,
// not an output.
var errNilReader = errors.New("perftest: nil io.Reader")

// ParseError tells which line of the input could not be parsed. Every
// parse failure of this package is one, so that
//
//	var pe *perftest.ParseError
//	if errors.As(err, &pe) { ... pe.Line ... }
//
// finds it; errors.Is(err, perftest.ErrTruncated) (or ErrParse,
// ErrUnrecognized, ErrConcatenated, ErrInterleaved, ErrNoResult) says
// which. A failure the
// tool reported is an *Error instead; read errors are neither.
type ParseError struct {
	Line int    // 1-based line number in the input, or 0 for the whole input
	Text string // the line, cut to 120 bytes
	Msg  string // what was wrong
	// Err is ErrParse (garbled), ErrTruncated (ends early),
	// ErrUnrecognized (not perftest's), ErrConcatenated (a second test
	// starts) or ErrInterleaved (two processes' lines mixed).
	Err error
	// NoResult is set when the output holds no measurement at all
	// (Result.NoResult): errors.Is(err, ErrNoResult) is then true too.
	NoResult bool
}

// Error returns "perftest: cannot parse: line N: what: text" (without
// the line or the text when there is none).
func (e *ParseError) Error() string {
	switch {
	case e.Text != "":
		return fmt.Sprintf("%v: line %d: %s: %q", e.Err, e.Line, e.Msg, e.Text)
	case e.Line > 0:
		return fmt.Sprintf("%v: line %d: %s", e.Err, e.Line, e.Msg)
	}
	return fmt.Sprintf("%v: %s", e.Err, e.Msg)
}

// Unwrap returns Err, and ErrNoResult when NoResult is set.
func (e *ParseError) Unwrap() []error {
	if e.NoResult {
		return []error{e.Err, ErrNoResult}
	}
	return []error{e.Err}
}

func newParseError(sentinel error, line int, text []byte, msg string) *ParseError {
	if len(text) > 120 {
		text = text[:120]
	}
	return &ParseError{Line: line, Text: string(text), Msg: msg, Err: sentinel}
}

// ErrorKind classifies a failure perftest reported. The String form is the
// "kind" of the JSON contract of examples/parse.
type ErrorKind int

// The failure kinds, from the messages in perftest 4.5-0.17 up to 26.x
// (src/perftest_resources.c, perftest_communication.c, perftest_parameters.c).
const (
	// KindUnknown is the zero value; Classify never returns it.
	KindUnknown ErrorKind = iota
	// KindDeviceNotFound: "IB device X not found", "Unable to find the
	// Infiniband/RoCE device", "Did not detect devices", or a port that is
	// not active ("Port number 1 state is Down"). fs.ErrNotExist matches
	// it too.
	KindDeviceNotFound
	// KindConnectFailed: the out-of-band connection was not made: no server
	// listening ("Couldn't connect to HOST:PORT", "Unable to init the socket
	// connection"), the port is taken, the address does not resolve, or
	// rdma_cm is unusable ("rdma_create_event_channel failed": no
	// /dev/infiniband/rdma_cm, load rdma_ucm).
	KindConnectFailed
	// KindHandshake: connected, but the exchange of QP data failed
	// ("ethernet_read_keys: Couldn't read remote address", "Failed to
	// exchange data between server and clients"); usually the other side
	// died first, so look at its output.
	KindHandshake
	// KindParamMismatch: the two sides run different parameters ("size
	// mismatch: local=65536, remote=4096", "Failed to negotiate
	// parameters"; perftest 26.01.5 and later check this).
	KindParamMismatch
	// KindQPTransition: a QP could not be moved to RTR or RTS ("Failed to
	// modify QP 0 to RTR", "Unable to Connect the HCA's through the link").
	KindQPTransition
	// KindCompletion: a work completion with an error status ("Completion
	// with error at client", "Failed status 10: wr_id 0 syndrom 0x0"), or a
	// run loop that failed ("Failed to complete run_iter_bw function
	// successfully").
	KindCompletion
	// KindTimeout: perftest's own check-alive gave up ("Did not get Message
	// for 120 Seconds, exiting..").
	KindTimeout
	// KindInvalidOption: the command line was refused ("Invalid Command or
	// flag", "Parser function exited with Error", "Duplicated argument").
	KindInvalidOption
	// KindGIDIndex: the GID index was refused or the GID types of the two
	// sides do not match ("Gid index should be between 0 and 64", "Found
	// Incompatibility issue with GID types"). The JSON contract of
	// examples/parse files this under invalid options.
	KindGIDIndex
	// KindResources: allocating a verbs resource failed ("Couldn't allocate
	// MR", "Couldn't create QP"), often RLIMIT_MEMLOCK.
	KindResources
	// KindBelowLimit: --limit_bw or --limit_msgrate was not met ("Error: BW
	// result is below bw limit").
	KindBelowLimit
	// KindTeardown: closing the out-of-band connection at the end failed
	// ("Failed to close connection between server and client", after
	// "Unable to write from socket/rdam_cm" or a flushed completion "Bad
	// wc status 5"): usually the other side went away first. Rows
	// printed before it are kept; look at the other side's output.
	KindTeardown
)

var errorKindNames = [...]string{
	KindUnknown:        "unknown",
	KindDeviceNotFound: "device_not_found",
	KindConnectFailed:  "connect",
	KindHandshake:      "handshake",
	KindParamMismatch:  "param_mismatch",
	KindQPTransition:   "qp_transition",
	KindCompletion:     "completion",
	KindTimeout:        "timeout",
	KindInvalidOption:  "invalid_option",
	KindGIDIndex:       "gid_index",
	KindResources:      "resources",
	KindBelowLimit:     "below_limit",
	KindTeardown:       "teardown",
}

var errorKindText = [...]string{
	KindUnknown:        "failure",
	KindDeviceNotFound: "device not found",
	KindConnectFailed:  "connect failed",
	KindHandshake:      "handshake failed",
	KindParamMismatch:  "parameter mismatch",
	KindQPTransition:   "QP transition failed",
	KindCompletion:     "completion error",
	KindTimeout:        "check-alive timeout",
	KindInvalidOption:  "invalid option",
	KindGIDIndex:       "bad GID index",
	KindResources:      "resource allocation failed",
	KindBelowLimit:     "result below limit",
	KindTeardown:       "closing the connection failed",
}

// String returns the kind as the JSON contract spells it: "device_not_found",
// "connect", "handshake", "param_mismatch", "qp_transition", "completion",
// "timeout", "invalid_option", "gid_index", "resources", "below_limit",
// "teardown".
func (k ErrorKind) String() string {
	if k < 0 || int(k) >= len(errorKindNames) {
		return fmt.Sprintf("ErrorKind(%d)", int(k))
	}
	return errorKindNames[k]
}

// MarshalText returns String, so the kind encodes as a JSON string.
func (k ErrorKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Error is a failure perftest reported on its stdout or stderr. It wraps
// ErrToolFailed; errors.Is(err, &perftest.Error{Kind: k}) matches any Error
// of kind k.
type Error struct {
	// Kind says what failed.
	Kind ErrorKind
	// Message holds the lines that decided Kind, trimmed and joined by
	// "; ": "Completion with error at client; Failed status 10: wr_id 0
	// syndrom 0x0; scnt=128, ccnt=0".
	Message string
	// Raw holds every failure line the tool printed, of any kind,
	// verbatim and in order, one per line.
	Raw string
}

// Error returns "perftest: " and what failed, then Message.
func (e *Error) Error() string {
	text := "failure"
	if e.Kind >= 0 && int(e.Kind) < len(errorKindText) {
		text = errorKindText[e.Kind]
	}
	return "perftest: " + text + ": " + e.Message
}

// Unwrap returns ErrToolFailed.
func (e *Error) Unwrap() error { return ErrToolFailed }

// Is reports whether target is an *Error of the same Kind, or
// fs.ErrNotExist for KindDeviceNotFound.
func (e *Error) Is(target error) bool {
	if target == fs.ErrNotExist {
		return e.Kind == KindDeviceNotFound
	}
	t, ok := target.(*Error)
	return ok && t != nil && t.Kind == e.Kind
}

// joinTrimmed joins lines trimmed of blanks with sep.
func joinTrimmed(lines []string, sep string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(strings.TrimSpace(l))
	}
	return b.String()
}
