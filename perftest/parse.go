package perftest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
)

// maxLine is the longest line Stream accepts.
const maxLine = 1 << 20

// maxWarningText is the longest text of a warning about an unknown line.
const maxWarningText = 200

// ResultKind says which table a result has. The String form is the "kind"
// of the JSON contract of examples/parse.
type ResultKind int

// The result kinds.
const (
	// ResultUnknown: no table or title was found (only a failure message).
	ResultUnknown ResultKind = iota
	// ResultBW: a BW test (ib_*_bw); the rows are in Result.BW.
	ResultBW
	// ResultLat: a latency test (ib_*_lat); the rows are in Result.Lat.
	ResultLat
	// ResultLatDuration: a latency test with -D; Result.Lat holds rows
	// with Duration set (t_avg and tps only).
	ResultLatDuration
	// ResultBare: --output=bandwidth|message_rate|latency; the number is in
	// Result.Value.
	ResultBare
)

// String returns "bw", "lat", "lat_duration", "bare", or "" for
// ResultUnknown.
func (k ResultKind) String() string {
	switch k {
	case ResultBW:
		return "bw"
	case ResultLat:
		return "lat"
	case ResultLatDuration:
		return "lat_duration"
	case ResultBare:
		return "bare"
	case ResultUnknown:
		return ""
	}
	return "ResultKind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText returns String, so the kind encodes as a JSON string.
func (k ResultKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Result is one side's parsed perftest output.
type Result struct {
	// Kind says which table the output has.
	Kind ResultKind
	// Test is the title as printed, trimmed: "Send BW Test",
	// "RDMA_Write Bidirectional BW Test", "Atomic FETCH_AND_ADD Latency
	// Test". From JSON, the underscores become spaces the same way. An
	// output without its title (a paste that starts at the header or the
	// table) gets "BW Test" or "Latency Test" from the columns of its
	// table header; Header.Verb stays "".
	Test string
	// Header holds the header block and the address lines.
	Header Header
	// BW holds the rows of a BW table in order: one per size with -a, one
	// per interval with --run_infinitely.
	BW []BWRow
	// Lat holds the rows of a latency table.
	Lat []LatRow
	// Value is the last number of --output mode (perftest prints one per
	// size with -a, so take the last); Values holds all of them. The unit
	// depends on the option: bandwidth in MiB/s (Gb/s with
	// --report_gbits), message_rate in Mpps, latency in usec.
	Value float64
	// Values holds every number of --output mode, in order.
	Values []float64
	// ReportBoth holds the local and remote rows of -b --report-both,
	// which are not in BW.
	ReportBoth *ReportBoth
	// Server is set when the output has the server's "Waiting for client
	// to connect" banner. Servers of ib_write_bw, ib_read_bw and
	// ib_atomic_bw print the client's numbers (only the last size with
	// -a); servers of ib_read_lat and ib_atomic_lat print no table.
	Server bool
	// FullRTT is set for read and atomic latency, which perftest reports
	// as the full round trip; send and write report half of it.
	FullRTT bool
	// LegacyJSON marks a --out_json file in the unquoted form perftest
	// wrote before 24.01.
	LegacyJSON bool
	// Failure is the failure the output reports, also returned as the
	// error; nil when there is none.
	Failure *Error
	// Warnings are caveats: tool messages, peaks not measured, inf and
	// nan values, skipped sample dumps, unknown lines. Each is a
	// Warning: errors.As(w, &perftest.Warning{}) gives its kind and line.
	Warnings []error
	// Argv is the command line that printed the output, when RunPair ran
	// it (the parsers leave it nil).
	Argv []string
	// Options are the pair's options as RunPair ran them (nil from the
	// parsers): report.FromPerftest records them with the round.
	Options *Options
}

// ReportBoth holds the extra sections of -b --report-both.
type ReportBoth struct {
	Local  []BWRow // this side's own numbers
	Remote []BWRow // the other side's numbers
}

func (r *Result) warn(kind WarningKind, line int, text string) {
	r.Warnings = append(r.Warnings, Warning{Kind: kind, Line: line, Text: text})
}

// HasWarning reports whether the result has a warning of kind k.
func (r *Result) HasWarning(k WarningKind) bool {
	for _, w := range r.Warnings {
		if warningKind(w) == k {
			return true
		}
	}
	return false
}

// Parse parses the text output of one side of a BW or latency test
// (ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw and their _lat
// counterparts, perftest 1.x to 26.x): the title, the header, the
// address lines and every row of the table, whether the output's TABs
// survived or became spaces. Noise becomes Warnings, never
// rows. stderr lines may be interleaved (2>&1).
//
// The returned Result is never nil and keeps what parsed. The error is an
// *Error when the output holds a failure message, and else a *ParseError:
// wrapping ErrParse (garbled), ErrTruncated (cut short), ErrUnrecognized
// (nothing in the input is perftest's), ErrConcatenated (a second test
// starts; the Result is the first) or ErrInterleaved (two processes'
// lines mixed), and ErrNoResult too when the Result says nothing
// (Result.NoResult). A nil r is an error.
//
// Similar to: ib_send_bw -d rxe0 -x 1 -F server | tail -2 | awk '{print $4}'
func Parse(r io.Reader) (*Result, error) {
	p := newTextParser(true)
	if r == nil {
		return p.res, errNilReader
	}
	data, err := readAll(r)
	if err != nil {
		return p.res, err
	}
	p.feedAll(data)
	return p.res, p.finish()
}

// ParseOutput parses the stdout and stderr of one side, as a runner that
// captures them apart has them: stdout as Parse (or ParseBare for
// --output mode) does, stderr for failure messages and notes, which become
// Warnings with Stderr set. A failure on either stream is returned as an
// *Error and kept in Result.Failure.
func ParseOutput(stdout, stderr []byte) (*Result, error) {
	var c *collector
	var finish func() error
	if Detect(stdout) == FormBare {
		p := newBareParser()
		p.readBytes(stdout)
		c, finish = &p.collector, p.finish
	} else {
		p := newTextParser(true)
		p.feedAll(stdout)
		c, finish = &p.collector, p.finish
	}
	for n := 1; len(stderr) > 0; n++ {
		var line []byte
		line, stderr = nextLine(stderr)
		c.stderrLine(n, line)
	}
	return c.res, finish()
}

// collector holds what every parser gathers besides rows: the result,
// warnings and failure lines.
type collector struct {
	res      *Result
	fail     failures
	firstErr error
	onErr    func(error) // called for every parse error, if set (Stream)
}

func (c *collector) setErr(err error) {
	if c.onErr != nil {
		c.onErr(err)
	}
	if c.firstErr == nil {
		c.firstErr = err
	}
}

// noise handles a trimmed line that is neither a row nor structure: a
// failure message or a note. It reports false when the line is neither.
func (c *collector) noise(line int, raw []byte, s string) (lineClass, bool) {
	if kind, prio := classifyLine(s); kind != KindUnknown {
		c.fail.add(string(raw), kind, prio)
		return classOther, true
	}
	switch cl := classifyNoise(s); cl {
	case classWarning:
		c.res.warn(WarnToolMessage, line, clip(s))
	case classPeakWarning:
		c.res.warn(WarnPeakNotMeasured, line, clip(s))
	case classClock:
		c.res.warn(WarnClock, line, clip(s))
	case classOther:
		return cl, false
	default:
		return cl, true
	}
	return classOther, true
}

// stderrLine handles line n of stderr.
func (c *collector) stderrLine(n int, raw []byte) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return
	}
	before := len(c.res.Warnings)
	s := string(t)
	if _, ok := c.noise(n, raw, s); !ok {
		c.res.warn(WarnUnknownLine, n, clip(s))
	}
	for i := before; i < len(c.res.Warnings); i++ {
		if w, ok := c.res.Warnings[i].(Warning); ok {
			w.Stderr = true
			c.res.Warnings[i] = w
		}
	}
}

// result finishes the failure: Failure is set and returned when there is
// one, else err.
func (c *collector) result(err error) error {
	if e := c.fail.err(); e != nil {
		c.res.Failure = e
		return e
	}
	return err
}

// readAll reads r to the end, in one allocation when r knows its length
// (bytes.Reader, strings.Reader, bytes.Buffer, a regular file).
func readAll(r io.Reader) ([]byte, error) {
	size := 0
	switch v := r.(type) {
	case interface{ Len() int }:
		size = v.Len()
	case *os.File:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			size = int(fi.Size())
		}
	}
	var b bytes.Buffer
	b.Grow(size + bytes.MinRead)
	if _, err := b.ReadFrom(r); err != nil {
		return b.Bytes(), fmt.Errorf("perftest: read: %w", err)
	}
	return b.Bytes(), nil
}
