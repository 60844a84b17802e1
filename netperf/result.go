package netperf

import (
	"fmt"
	"math"
)

// Form is the shape of a netperf output, as Detect tells it.
type Form string

// The forms. The values are stable strings, fit for JSON.
const (
	// FormUnknown: not netperf output this package knows.
	FormUnknown Form = ""
	// FormClassic: the classic tables of TCP_STREAM, TCP_MAERTS,
	// UDP_STREAM, TCP_RR, UDP_RR, TCP_CRR (with or without titles, -P 0),
	// and the single number of -v 0.
	FormClassic Form = "classic"
	// FormKeyVal: omni -k output, one SELECTOR=value per line.
	FormKeyVal Form = "keyval"
	// FormCSV: omni -o output, a header line of selector titles (unless
	// -P 0) and one line of values.
	FormCSV Form = "csv"
	// FormHuman: omni -O output (and -t OMNI's default), blocks of four
	// header rows and a row of values in padded columns.
	FormHuman Form = "human"
	// FormError: netperf's report of a failure and no result.
	FormError Form = "error"
	// FormVersion: the output of netperf -V.
	FormVersion Form = "version"
)

// Result is what one netperf run printed. Parsers fill the parts the
// input has and leave the rest nil; the summary fields (Throughput,
// ThroughputMbps, TransPerSec, UDP) are filled the same way for the
// classic and omni forms, so callers need not care which one they got.
type Result struct {
	// Form is the form the input was parsed as.
	Form Form
	// Test is the netperf test name taken from the banner ("TCP_STREAM",
	// "UDP_RR", "OMNI"); "" when there is no banner (-P 0).
	Test string
	// Banner is netperf's first line; nil with -P 0.
	Banner *Banner

	// Throughput is netperf's main figure as printed: the classic
	// Throughput column (for UDP_STREAM the receive side, the second
	// line), the classic RR transaction rate, or omni THROUGHPUT with
	// THROUGHPUT_UNITS.
	Throughput *Rate
	// ThroughputMbps is Throughput in 10^6 bit/s, whatever -f was; nil
	// when the unit is not a data rate (Trans/s) or is unknown.
	ThroughputMbps *float64
	// TransPerSec is the transaction rate of a request/response test
	// (classic TCP_RR, UDP_RR, TCP_CRR Trans. Rate, or omni
	// TRANSACTION_RATE); nil for other tests.
	TransPerSec *float64
	// UDP is the sent/received view of a UDP_STREAM test.
	UDP *UDPStream

	// SocketBuffers compares the socket buffers asked for (-s, -S) with
	// what the kernel gave, when the output has both (omni
	// X_SIZE_REQ and X_SIZE_END, which Run asks for); a clamped one is
	// also a warning.
	SocketBuffers []SocketBuffer

	// Classic is the classic table; nil for omni output.
	Classic *Classic
	// Omni holds the -k, -o or -O selectors; nil for classic output.
	Omni *Omni
	// Confidence is set when the run asked for confidence intervals (-I)
	// or printed the "!!!" block; nil otherwise.
	Confidence *Confidence
	// Interims are the demo-mode (-D) interim results, in order.
	Interims []Interim

	// Version is the version netperf -V printed ("2.7.0").
	Version string

	// Warnings are things a reader should know: values that are inf or
	// nan, units that were assumed, confidence not achieved, netperf's
	// own diagnostics ("enable_enobufs failed: getprotobyname"). Each is
	// a Warning.
	Warnings []error

	// Argv is the command Run ran ("netperf -H 198.18.0.2 -t UDP_STREAM
	// -l 30 -- -m 1400 ..."); nil from the parsers.
	Argv []string

	// Stdout and Stderr are netperf's raw output, kept by Run (up to 1 MiB
	// each) for archives; the parsers leave them nil.
	Stdout, Stderr []byte `json:"-"`
}

// UDPStream is the sent versus received view of UDP_STREAM, from the
// classic table's two lines or from the omni selectors LOCAL_SEND_CALLS
// and REMOTE_RECV_CALLS.
//
// Similar to: netperf -t UDP_STREAM -- -m 1400, then (sent - received) / sent.
type UDPStream struct {
	// Sent is the number of messages netperf sent successfully (classic
	// send line "Okay", omni LOCAL_SEND_CALLS).
	Sent uint64
	// Received is the number of messages netserver received (classic
	// receive line, omni REMOTE_RECV_CALLS).
	Received uint64
	// SendErrors counts sends that failed with ENOBUFS or ENOMEM; only the
	// classic table has it (nil for omni output).
	SendErrors *uint64
	// SendMbps is the send-side throughput in 10^6 bit/s (classic first
	// line, omni LOCAL_SEND_THROUGHPUT); nil when not printed.
	SendMbps *float64
	// RecvMbps is the receive-side throughput in 10^6 bit/s (classic
	// second line, omni REMOTE_RECV_THROUGHPUT or THROUGHPUT); nil when
	// not printed.
	RecvMbps *float64
	// LossRatio is 1 - Received/Sent: 0 means nothing was lost. It is NaN
	// when nothing was sent, and negative when netserver counted more
	// messages than netperf sent (a warning says so).
	LossRatio float64
}

func newUDPStream(sent, received uint64) *UDPStream {
	u := &UDPStream{Sent: sent, Received: received, LossRatio: math.NaN()}
	if sent > 0 {
		u.LossRatio = 1 - float64(received)/float64(sent)
	}
	return u
}

// Confidence describes a run with confidence intervals (-I level,width
// -i max,min).
type Confidence struct {
	// LevelPercent is the confidence level asked for (95 or 99); 0 when
	// not printed.
	LevelPercent int
	// TargetWidthPercent is the full interval width asked for with -I
	// (the banner prints half of it: "+/-2.500% @ 99% conf." for -I 99,5);
	// 0 when not printed.
	TargetWidthPercent float64
	// Iterations is CONFIDENCE_ITERATION, the number of iterations run;
	// 0 when not printed (classic output does not print it).
	Iterations int
	// Achieved reports whether netperf reached the interval: classic
	// output prints the "!!! WARNING" block only when it did not; omni
	// output is judged from the *_CONFID selectors against the target.
	Achieved bool
	// ThroughputWidthPercent, LocalCPUWidthPercent and
	// RemoteCPUWidthPercent are the achieved full widths in percent, when
	// printed (classic: only in the !!! block; omni: THROUGHPUT_CONFID,
	// LOCAL_CPU_CONFID, REMOTE_CPU_CONFID; 0.000 for CPU not measured).
	ThroughputWidthPercent *float64
	LocalCPUWidthPercent   *float64
	RemoteCPUWidthPercent  *float64
}

// Interim is one demo-mode result (netperf -D interval): "Interim result:
// 10058.37 10^6bits/s over 0.862 seconds ending at 1795974065.004", its
// CSV form, or the NETPERF_INTERIM_RESULT[n] keys of -k.
type Interim struct {
	Value       float64 // the interim throughput, in Unit
	Unit        Unit    // "10^6bits/s"
	IntervalSec float64 // the length of the interval
	// EndingUnixSec is the end of the interval, in seconds since the epoch.
	EndingUnixSec float64
}

// Banner is netperf's first line (omitted with -P 0), e.g. "MIGRATED TCP
// STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port
// 0 AF_INET : demo", or before 2.4 "TCP STREAM TEST to HOST". Its addresses and ports are not parsed: netperf
// prints "()" and "port 0" for what it was not told.
type Banner struct {
	// Text is the whole line, without leading blanks; a banner that a
	// page or mailer wrapped onto two lines is joined with one blank.
	Text string
	// Title is the text before " from " ("MIGRATED TCP STREAM TEST"), or
	// before " to " in the banner of netperf before 2.4 ("TCP STREAM
	// TEST to HOST").
	Title string
	// Legacy is true for the banner of netperf before 2.4, "TITLE to
	// HOST", which names neither the local address nor the families.
	Legacy bool
	// Direction is the %s of "OMNI %s TEST" ("Send", "Receive",
	// "Send|Recv", ...); "" for other tests.
	Direction string
	// Options are the " : "-separated suffixes: "demo", "first burst 0",
	// "nodelay", "+/-2.500% @ 99% conf.".
	Options []string
}

func float64p(v float64) *float64 { return &v }
func uint64p(v uint64) *uint64    { return &v }

// Warning is a caveat about a parsed result, with the line of the output
// it is about. Results carry them in Result.Warnings.
type Warning struct {
	Line int    // 1-based line of the output
	Text string // what a reader should know
}

// Error returns "line N: text".
func (w Warning) Error() string { return fmt.Sprintf("line %d: %s", w.Line, w.Text) }
