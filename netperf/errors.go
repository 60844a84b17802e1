package netperf

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Callers test for them with errors.Is; the typed errors
// below wrap them and keep the details.
var (
	// ErrParse is wrapped by every *ParseError: the input looked like
	// netperf output but a line could not be read (truncated or garbled).
	ErrParse = errors.New("netperf: cannot parse output")

	// ErrUnrecognized is returned by Parse when Detect cannot tell which
	// netperf output the input is (empty input included).
	ErrUnrecognized = errors.New("netperf: unrecognized output")

	// ErrFailed is wrapped by every *Error: the input is netperf's own
	// report of a failure (no netserver, bad option, send error, ...).
	ErrFailed = errors.New("netperf: netperf reported a failure")

	// ErrTruncated is wrapped by a *ParseError when the output ends
	// before its result (a table's titles without their data line, a
	// banner and nothing after it, a value cut short).
	ErrTruncated = errors.New("netperf: output ends before the result")

	// ErrNoResult is wrapped by a *ParseError when the output holds no
	// result at all (no table row, no selector, no interim result), and
	// by Run when netperf printed none: a run that says nothing is an
	// error, never an empty success.
	ErrNoResult = errors.New("netperf: no result in the output")

	// ErrTooLarge is wrapped by a *ParseError when the input has a line
	// longer than MaxLineBytes or more than MaxKeptBytes of lines besides
	// interim results: no netperf output is that large.
	ErrTooLarge = errors.New("netperf: input too large")
)

// ParseError tells which line of the input could not be parsed. It wraps
// ErrParse. The Result returned beside it keeps everything that parsed.
type ParseError struct {
	Line int    // 1-based; one past the last line when the input is truncated
	Text string // the line, cut to 120 bytes
	Msg  string // what was wrong
	// Err is ErrTruncated, ErrNoResult or ErrTooLarge when one of them
	// says what was wrong; nil otherwise.
	Err error
}

// Error says which line failed and why.
func (e *ParseError) Error() string {
	if e.Text == "" {
		return fmt.Sprintf("%v: line %d: %s", ErrParse, e.Line, e.Msg)
	}
	return fmt.Sprintf("%v: line %d: %s: %q", ErrParse, e.Line, e.Msg, e.Text)
}

// Unwrap returns ErrParse, and Err when set.
func (e *ParseError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrParse}
	}
	return []error{ErrParse, e.Err}
}

// newParseError builds a *ParseError; a message that starts with
// "truncated" wraps ErrTruncated, so callers can tell a cut output from a
// garbled one.
func newParseError(line int, text, msg string) *ParseError {
	if len(text) > 120 {
		text = text[:120]
	}
	e := &ParseError{Line: line, Text: text, Msg: msg}
	if strings.HasPrefix(msg, "truncated") {
		e.Err = ErrTruncated
	}
	return e
}

// Kind classifies a failure netperf reported. The values are stable
// strings, fit for JSON and logs.
type Kind string

// The failure kinds, with the netperf 2.7 text each is recognised by.
const (
	// KindNoServer: "establish control: are you sure there is a netserver
	// listening on HOST at port PORT?" (exit 255).
	KindNoServer Kind = "no_server"
	// KindUnknownTest: "The test you requested (TCP_FOO) is unknown to this
	// netperf." (exit 1; checked after the control connection is made).
	KindUnknownTest Kind = "unknown_test"
	// KindBadOption: "invalid option -- 'X'", "option requires an argument",
	// the usage text, "Only 95% and 99% confidence level is supported",
	// "Could not open output selection file" (an unknown -o/-k/-O selector
	// taken as a file name), "Could not open requested fill file",
	// "alloc_sendfile_buf_ring: specified file too small" (TCP_SENDFILE
	// with a -F file smaller than the send ring).
	KindBadOption Kind = "bad_option"
	// KindResolve: "Netperf could not resolve HOST as a host name" (exit 255).
	KindResolve Kind = "resolve"
	// KindDataConnect: the data connection could not be made
	// ("connect_data_socket failed", "data socket connect failed",
	// "unable to create data socket").
	KindDataConnect Kind = "data_connect"
	// KindDataSend: "send_data: data send error: Message too long (errno
	// 90)", "send_omni: send_data failed" (exit 1).
	KindDataSend Kind = "data_send"
	// KindDataRecv: "recv_data failed", "data recv error".
	KindDataRecv Kind = "data_recv"
	// KindControlLost: "recv_response: partial response received: 0 bytes":
	// netserver went away during the test (exit 1).
	KindControlLost Kind = "control_lost"
	// KindTimeout: "recv_response_timed_n: no response received": netserver
	// stayed silent for 120 s or more.
	KindTimeout Kind = "timeout"
	// KindRemote: "netperf: remote error N": netserver could not set the test
	// up (the strerror text follows on stderr).
	KindRemote Kind = "remote_error"
	// KindUnknown: a netperf error message this package does not classify.
	KindUnknown Kind = "unknown"
)

// Error is a failure that netperf reported in its output. It wraps
// ErrFailed; callers use errors.As(err, &e) and switch on e.Kind, never on
// the text.
type Error struct {
	Kind    Kind   // what failed
	Message string // the line that names the failure
	Line    int    // 1-based line of Message in the input
	Raw     string // the whole input, trimmed, cut to 64 KiB
}

// Error gives the kind and netperf's own message.
func (e *Error) Error() string {
	return fmt.Sprintf("netperf: %s: %s", e.Kind, e.Message)
}

// Unwrap returns ErrFailed.
func (e *Error) Unwrap() error { return ErrFailed }

const maxRaw = 64 << 10
