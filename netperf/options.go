package netperf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
)

// ErrInvalidOptions is wrapped by every *OptionsError: Options (or
// ServerOptions) that cannot give a meaningful netperf run. Nothing is
// started when validation fails.
var ErrInvalidOptions = errors.New("netperf: invalid options")

// OptionsError names the option that is wrong and why.
type OptionsError struct {
	Field string // the Options field: "Length", "MessageSize", ...
	Msg   string // what is wrong with it
}

// Error names the field and the problem.
func (e *OptionsError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrInvalidOptions, e.Field, e.Msg)
}

// Unwrap returns ErrInvalidOptions.
func (e *OptionsError) Unwrap() error { return ErrInvalidOptions }

// checkCPUs refuses CPU numbers host.Cmd.CPUs cannot take.
func checkCPUs(cpus []int) error {
	for _, c := range cpus {
		if c < 0 || c >= host.MaxCPU {
			return optErr("CPUs", "CPU %d is not within 0-%d", c, host.MaxCPU-1)
		}
	}
	return nil
}

func optErr(field, format string, args ...any) error {
	return &OptionsError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Test is a netperf test name, as given to -t.
//
// Similar to: netperf -t TCP_RR
type Test string

// The tests Options can run. They are the "migrated" classic tests, which
// netperf 2.7 runs through its omni code, so the -k selectors work for all.
const (
	// TestTCPStream: bulk TCP from netperf to netserver.
	TestTCPStream Test = "TCP_STREAM"
	// TestTCPMaerts: bulk TCP from netserver to netperf.
	TestTCPMaerts Test = "TCP_MAERTS"
	// TestUDPStream: UDP datagrams from netperf to netserver, without flow
	// control: what is sent and what arrives differ (Result.UDP).
	TestUDPStream Test = "UDP_STREAM"
	// TestTCPRR: request/response transactions over one TCP connection.
	TestTCPRR Test = "TCP_RR"
	// TestUDPRR: request/response transactions over UDP.
	TestUDPRR Test = "UDP_RR"
	// TestTCPCRR: a new TCP connection per transaction.
	TestTCPCRR Test = "TCP_CRR"
)

// IsRR reports whether t is a request/response test (TCP_RR, UDP_RR,
// TCP_CRR), whose main figure is a transaction rate.
func (t Test) IsRR() bool { return t == TestTCPRR || t == TestUDPRR || t == TestTCPCRR }

// IsStream reports whether t is a bulk transfer test (TCP_STREAM,
// TCP_MAERTS, UDP_STREAM).
func (t Test) IsStream() bool { return t == TestTCPStream || t == TestTCPMaerts || t == TestUDPStream }

// Family is the address family netperf and netserver use.
//
// Similar to: netperf -4 -H HOST; netserver -D -6
type Family int

// The families: netperf's default (whatever the host name resolves to;
// netserver listens on both), IPv4 only (-4) and IPv6 only (-6).
const (
	FamilyAny Family = 0
	IPv4      Family = 4
	IPv6      Family = 6
)

func (f Family) flag() (string, error) {
	switch f {
	case FamilyAny:
		return "", nil
	case IPv4:
		return "-4", nil
	case IPv6:
		return "-6", nil
	}
	return "", optErr("Family", "%d is not 0, 4 or 6", int(f))
}

// CPUBind pins netperf (Local) and netserver's test process (Remote) to a
// CPU each (global -T). A negative value leaves that side unbound.
//
// Similar to: netperf -T 2,3 -H HOST -t TCP_RR
type CPUBind struct {
	Local, Remote int
}

// ConfidenceOptions asks netperf to repeat the test until the throughput's
// confidence interval is narrow enough (global -I level,width -i max,min).
//
// Similar to: netperf -I 99,5 -i 10,3 -H HOST -t TCP_STREAM
type ConfidenceOptions struct {
	// Level is the confidence level in percent: 95 or 99.
	Level int
	// WidthPercent is the full width of the interval to reach, in percent
	// of the mean (netperf's banner prints half of it).
	WidthPercent float64
	// MaxIterations and MinIterations bound the repetitions, within 3..30;
	// zero means netperf's defaults (10 and 3).
	MaxIterations, MinIterations int
}

// Options is one netperf run. The zero value of every field but Test means
// netperf's default. Validate checks it, Argv turns it into the command
// line; Run does both.
//
// Similar to: netperf -H HOST -p PORT -t UDP_STREAM -l 30 -- -m 1400 -s 2M -S 2M
type Options struct {
	// Test is the test to run (-t). Required.
	Test Test
	// Host is where netserver runs (-H); empty means netperf's default,
	// localhost. A name or an address, without a ",family" suffix.
	Host string
	// Port is netserver's control port (-p); 0 means 12865.
	Port uint16
	// Family forces IPv4 (-4) or IPv6 (-6).
	Family Family
	// Length is the test length (-l), in whole seconds (netperf reads
	// "1m0s" as a million seconds, so Go durations are never passed as
	// text); 0 means netperf's default, 10 s. Fractions are rejected.
	Length time.Duration

	// MessageSize is the size of each send of a stream test, in bytes
	// (test-specific -m); 0 means netperf's default (SO_SNDBUF: 16 KiB for
	// TCP, 65507 for UDP, which fragments).
	MessageSize int
	// LocalSocketBuffer and RemoteSocketBuffer are SO_SNDBUF/SO_RCVBUF in
	// bytes for netperf's and netserver's data sockets (test-specific -s
	// and -S); 0 leaves autotuning on. Multiples of KiB, MiB and GiB are
	// written with netperf's K, M, G suffixes (2<<20 is "2M"). Linux
	// doubles the value it is given.
	LocalSocketBuffer, RemoteSocketBuffer int
	// RequestSize and ResponseSize are the transaction sizes of RR tests in
	// bytes (test-specific -r req,rsp); 0 means netperf's default, 1.
	RequestSize, ResponseSize int

	// CPU binds both ends to CPUs (-T); nil leaves them to the scheduler.
	CPU *CPUBind
	// CPUs pins the netperf process itself through host.Cmd.CPUs (a
	// thread bound to them locally, taskset over SSH) before it starts;
	// empty leaves its affinity as inherited. The argv stays netperf's own.
	//
	// Similar to: taskset -c 2 netperf ...
	CPUs []int
	// Confidence asks for confidence intervals (-I, -i); nil runs once.
	Confidence *ConfidenceOptions
	// Timeout bounds the run (ErrRunTimeout); 0 means the test length
	// times the most iterations, plus a margin. It is not an argument of
	// netperf's.
	Timeout time.Duration

	// Extra are further global options, placed before "--". Options
	// that Options sets itself, or that change the output form (-t, -H,
	// -p, -l, -4, -6, -T, -I, -i, -P, -v), are rejected.
	Extra []string
	// TestExtra are further test-specific options, placed after "--"
	// (for example "-D" for TCP_NODELAY, "-e", "1" for a UDP_RR receive
	// timeout). -k, -o, -O and the options Options sets are rejected.
	TestExtra []string
}

// DefaultPort is netserver's default control port.
//
// Similar to: netserver -p 12865
const DefaultPort = 12865

// defaultLength is netperf's test length when -l is not given.
const defaultLength = 10 * time.Second

// maxUDPMessage is the largest UDP payload over IPv4.
const maxUDPMessage = 65507

// Global options that Options sets or that would change the output form.
var reservedGlobal = map[string]string{
	"-t": "Test", "-H": "Host", "-p": "Port", "-l": "Length", "-4": "Family", "-6": "Family",
	"-T": "CPU", "-I": "Confidence", "-i": "Confidence", "-P": "(output form)", "-v": "(output form)",
}

// Test-specific options that Options sets or that would change the output.
var reservedTest = map[string]string{
	"-k": "(output selectors)", "-o": "(output selectors)", "-O": "(output selectors)",
	"-m": "MessageSize", "-s": "LocalSocketBuffer", "-S": "RemoteSocketBuffer", "-r": "RequestSize",
}

// Validate reports the first option that is wrong, as an *OptionsError
// wrapping ErrInvalidOptions: an unknown test, a fractional or negative
// length, -m on an RR test or -r on a stream test, a UDP message over 65507
// bytes, a confidence level other than 95 or 99, extra flags that clash
// with the fields or with the -k output. Run calls it before starting
// anything.
//
// Similar to: what netperf would reject, or worse accept ("-l 1m0s" is a
// million seconds; "-- -X" runs the test anyway).
func (o *Options) Validate() error {
	switch o.Test {
	case TestTCPStream, TestTCPMaerts, TestUDPStream, TestTCPRR, TestUDPRR, TestTCPCRR:
	case "":
		return optErr("Test", "required")
	default:
		return optErr("Test", "%q is not one of TCP_STREAM, TCP_MAERTS, UDP_STREAM, TCP_RR, UDP_RR, TCP_CRR", o.Test)
	}
	if err := checkHost("Host", o.Host); err != nil {
		return err
	}
	if _, err := o.Family.flag(); err != nil {
		return err
	}
	if o.Timeout < 0 {
		return optErr("Timeout", "%v is negative", o.Timeout)
	}
	if o.Length < 0 {
		return optErr("Length", "%v is negative (netperf would read it as bytes or transactions)", o.Length)
	}
	if o.Length%time.Second != 0 {
		return optErr("Length", "%v is not a whole number of seconds (netperf -l takes integer seconds)", o.Length)
	}
	if o.MessageSize < 0 {
		return optErr("MessageSize", "%d is negative", o.MessageSize)
	}
	if o.MessageSize > 0 && !o.Test.IsStream() {
		return optErr("MessageSize", "-m applies to stream tests, not %s (use RequestSize/ResponseSize)", o.Test)
	}
	if o.Test == TestUDPStream && o.MessageSize > maxUDPMessage {
		return optErr("MessageSize", "%d is over the largest UDP payload, %d", o.MessageSize, maxUDPMessage)
	}
	if o.LocalSocketBuffer < 0 {
		return optErr("LocalSocketBuffer", "%d is negative", o.LocalSocketBuffer)
	}
	if o.RemoteSocketBuffer < 0 {
		return optErr("RemoteSocketBuffer", "%d is negative", o.RemoteSocketBuffer)
	}
	if o.RequestSize < 0 || o.ResponseSize < 0 {
		return optErr("RequestSize", "request %d or response %d is negative", o.RequestSize, o.ResponseSize)
	}
	if (o.RequestSize > 0 || o.ResponseSize > 0) && !o.Test.IsRR() {
		return optErr("RequestSize", "-r applies to TCP_RR, UDP_RR and TCP_CRR, not %s", o.Test)
	}
	if err := checkCPUs(o.CPUs); err != nil {
		return err
	}
	if c := o.CPU; c != nil && c.Local < 0 && c.Remote < 0 {
		return optErr("CPU", "both sides unbound: use a nil CPU instead")
	}
	if c := o.Confidence; c != nil {
		if c.Level != 95 && c.Level != 99 {
			return optErr("Confidence", "level %d: netperf supports only 95 and 99", c.Level)
		}
		if !(c.WidthPercent > 0 && c.WidthPercent < 100) {
			return optErr("Confidence", "width %v%% is not within (0, 100)", c.WidthPercent)
		}
		if c.MaxIterations != 0 && (c.MaxIterations < 3 || c.MaxIterations > 30) {
			return optErr("Confidence", "max iterations %d is not within 3..30", c.MaxIterations)
		}
		if c.MinIterations != 0 && (c.MinIterations < 3 || c.MinIterations > 30) {
			return optErr("Confidence", "min iterations %d is not within 3..30", c.MinIterations)
		}
		if c.MinIterations > c.maxIter() {
			return optErr("Confidence", "min iterations %d is over max %d", c.MinIterations, c.maxIter())
		}
	}
	if err := checkExtra("Extra", o.Extra, reservedGlobal); err != nil {
		return err
	}
	return checkExtra("TestExtra", o.TestExtra, reservedTest)
}

func (c *ConfidenceOptions) maxIter() int {
	if c.MaxIterations == 0 {
		return 10
	}
	return c.MaxIterations
}

func checkHost(field, h string) error {
	if h == "" {
		return nil
	}
	if strings.HasPrefix(h, "-") || strings.ContainsAny(h, ", \t\r\n\x00") {
		return optErr(field, "%q is not a host name or address", h)
	}
	return nil
}

func checkExtra(field string, args []string, reserved map[string]string) error {
	for _, a := range args {
		if strings.ContainsRune(a, 0) {
			return optErr(field, "%q holds a NUL byte", a)
		}
		if a == "--" {
			return optErr(field, `"--" is placed by Argv`)
		}
		if len(a) >= 2 && a[0] == '-' && a[1] != '-' {
			if owner, ok := reserved[a[:2]]; ok {
				return optErr(field, "%s is reserved (set by %s)", a, owner)
			}
		}
	}
	return nil
}

// formatBytes writes n with netperf's binary suffixes when it is a whole
// number of GiB, MiB or KiB (netperf's convert() multiplies G, M, K by
// powers of 1024).
func formatBytes(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.Itoa(n>>30) + "G"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n)
}

// Selectors returns the omni selectors Argv asks for with -k: throughput
// and its unit, elapsed time, identity, call and byte counts and the
// per-side throughputs (so UDP_STREAM keeps what was sent and what arrived),
// socket sizes; for RR tests the transaction rate, sizes and latency
// percentiles; with Confidence the confidence selectors.
//
// Similar to: netperf -t TCP_RR -- -k THROUGHPUT,THROUGHPUT_UNITS,TRANSACTION_RATE,P99_LATENCY
func (o *Options) Selectors() []string {
	s := []string{
		"THROUGHPUT", "THROUGHPUT_UNITS", "ELAPSED_TIME",
		"PROTOCOL", "DIRECTION", "SOCKET_TYPE",
		"LOCAL_SEND_CALLS", "LOCAL_RECV_CALLS", "REMOTE_SEND_CALLS", "REMOTE_RECV_CALLS",
		"LOCAL_BYTES_SENT", "LOCAL_BYTES_RECVD", "REMOTE_BYTES_SENT", "REMOTE_BYTES_RECVD",
		"LOCAL_SEND_THROUGHPUT", "LOCAL_RECV_THROUGHPUT", "REMOTE_SEND_THROUGHPUT", "REMOTE_RECV_THROUGHPUT",
		"LSS_SIZE_REQ", "LSR_SIZE_REQ", "RSS_SIZE_REQ", "RSR_SIZE_REQ",
		"LSS_SIZE_END", "LSR_SIZE_END", "RSS_SIZE_END", "RSR_SIZE_END",
		"LOCAL_SEND_SIZE", "REMOTE_RECV_SIZE",
	}
	if o.Test.IsRR() {
		s = append(s,
			"REQUEST_SIZE", "RESPONSE_SIZE",
			"TRANSACTION_RATE", "RT_LATENCY",
			"MIN_LATENCY", "MEAN_LATENCY", "P50_LATENCY", "P90_LATENCY", "P99_LATENCY",
			"MAX_LATENCY", "STDDEV_LATENCY")
	}
	if o.Confidence != nil {
		s = append(s, "CONFIDENCE_LEVEL", "CONFIDENCE_INTERVAL", "CONFIDENCE_ITERATION", "THROUGHPUT_CONFID")
	}
	return s
}

// Argv returns the netperf command line for o: the global options, then
// "--" and the test-specific ones, always ending with "-k" and the
// Selectors, so that the output is omni key=value lines whatever else was
// asked (ParseKeyVal). Call Validate first; Argv does not check.
//
// Similar to: netperf -t UDP_STREAM -l 30 -- -m 1400 -s 2M -S 2M -k THROUGHPUT,...
func (o *Options) Argv() []string {
	a := []string{"netperf"}
	if fam, _ := o.Family.flag(); fam != "" {
		a = append(a, fam)
	}
	if o.Host != "" {
		a = append(a, "-H", o.Host)
	}
	if o.Port != 0 {
		a = append(a, "-p", strconv.Itoa(int(o.Port)))
	}
	a = append(a, "-t", string(o.Test))
	if o.Length > 0 {
		a = append(a, "-l", strconv.FormatInt(int64(o.Length/time.Second), 10))
	}
	if c := o.CPU; c != nil {
		a = append(a, "-T", cpuSide(c.Local)+","+cpuSide(c.Remote))
	}
	if c := o.Confidence; c != nil {
		a = append(a, "-I", strconv.Itoa(c.Level)+","+strconv.FormatFloat(c.WidthPercent, 'f', -1, 64))
		if c.MaxIterations != 0 || c.MinIterations != 0 {
			mn := c.MinIterations
			if mn == 0 {
				mn = 3
			}
			a = append(a, "-i", strconv.Itoa(c.maxIter())+","+strconv.Itoa(mn))
		}
	}
	a = append(a, o.Extra...)
	a = append(a, "--")
	if o.MessageSize > 0 {
		a = append(a, "-m", strconv.Itoa(o.MessageSize))
	}
	if o.LocalSocketBuffer > 0 {
		a = append(a, "-s", formatBytes(o.LocalSocketBuffer))
	}
	if o.RemoteSocketBuffer > 0 {
		a = append(a, "-S", formatBytes(o.RemoteSocketBuffer))
	}
	if o.RequestSize > 0 || o.ResponseSize > 0 {
		req, rsp := o.RequestSize, o.ResponseSize
		if req == 0 {
			req = 1
		}
		if rsp == 0 {
			rsp = 1
		}
		a = append(a, "-r", strconv.Itoa(req)+","+strconv.Itoa(rsp))
	}
	a = append(a, o.TestExtra...)
	a = append(a, "-k", strings.Join(o.Selectors(), ","))
	return a
}

func cpuSide(n int) string {
	if n < 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// runTimeout is how long a run of o may take before Run kills it:
// Timeout, or the test length (netperf's default 10 s when unset) times
// the most iterations, plus a margin for the control connection and
// netserver's own padding (4 s per test).
func (o *Options) runTimeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	l := o.Length
	if l == 0 {
		l = defaultLength
	}
	n := 1
	if o.Confidence != nil {
		n = o.Confidence.maxIter()
	}
	return time.Duration(n)*(l+5*time.Second) + 10*time.Second
}
