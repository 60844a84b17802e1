// Command parse reads one captured output of perftest or netperf (a file,
// or standard input), recognises the tool and the form, and prints the
// parsed result as JSON: what runbooks do with grep, awk and a spreadsheet.
//
//	go run ./examples/parse rocekittest/captures/trixie/perftest/send-bw-gbits/client.stdout
//	netperf -H 198.18.0.2 -t UDP_STREAM | go run ./examples/parse
//
// Exit status, the same for every form (perftest text, bare and
// --out_json; netperf classic, omni -k, -o, -O, with -D interim lines):
//
//	0  a complete result was parsed; also a tool's own error message
//	   (the JSON then holds an "error" object)
//	1  the input could not be read
//	2  the input is not a perftest or netperf output (or a usage error)
//	3  the input is a perftest or netperf output but broken: cut short,
//	   garbled (a decimal comma, a number out of range, a negative
//	   throughput), too large to be one, or holding no result at all;
//	   the JSON holds what parsed and a "parse_error" object (kind
//	   "truncated", "garbled", "too_large" or "no_result", line, message)
//
// Any error the library's parser returns, whatever its type, is a 3
// unless it is the tool's own failure report.
//
// Memory stays bounded whatever the input: the form is told from its
// first MiB, perftest tables larger than 4 MiB and netperf's interim
// lines are parsed as a stream (written as they are read, never kept),
// and the rest of a netperf output, a line, a JSON file or an output read
// whole have size limits past which parse stops with "too_large" (or 2
// when what it read is neither tool's).
//
// The keys are a contract for scripts (see issue 3): perftest results carry
// tool, test, kind, header, bw or lat rows, value, warnings and error;
// netperf results carry tool, test, throughput_mbps, udp, trans_per_sec,
// omni, interims (with -D), warnings and error. inf and nan become null
// with a warning. The forms are the library's, for a framework's own
// tools: perftest.Result.MarshalJSON, perftest.WriteStreamJSON and
// perftest.NewParseErrorJSON; netperf.NewResultJSON and
// netperf.AppendInterim.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rocekit/rocekit/perftest"
)

// usage is what -h prints.
const usage = `usage: parse [FILE]

Reads one perftest or netperf output (FILE, or standard input when FILE is
absent or "-") and prints it parsed, as JSON. Exit status: 0 a complete
result, 3 recognised but broken (cut, garbled, too large or empty: the JSON
has a parse_error), 2 not recognised (or a usage error), 1 the input could
not be read.
`

// The exit statuses (see the package doc).
const (
	exitOK           = 0
	exitRead         = 1
	exitUnrecognised = 2
	exitBroken       = 3
)

func main() {
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Print(usage)
		return
	}
	if len(args) > 1 || (len(args) == 1 && len(args[0]) > 1 && args[0][0] == '-') {
		fmt.Fprintf(os.Stderr, "parse: unexpected %q\n%s", strings.Join(args, " "), usage)
		os.Exit(exitUnrecognised)
	}
	in, err := openInput(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(exitRead)
	}
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	err = parseTo(in, out)
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
	}
	os.Exit(exitStatus(err))
}

func openInput(args []string) (io.Reader, error) {
	if len(args) == 0 || args[0] == "-" {
		return os.Stdin, nil
	}
	return os.Open(args[0])
}

// errUnrecognised says the input is neither tool's output.
var errUnrecognised = errors.New("input is not a perftest or netperf output this parser knows")

// readError is an input that could not be read.
type readError struct{ err error }

func (e *readError) Error() string { return "read: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// errNoResult says a recognised output holds no result at all (a perftest
// header without rows, a --out_json cut before its results).
var errNoResult = errors.New("the output holds no result")

// errTooLarge says a recognised output is larger than any the tool
// prints in the form it is in.
var errTooLarge = errors.New("input too large")

// exitStatus maps parseTo's error to the documented exit status: any
// error that is not a read error or errUnrecognised is a broken output.
func exitStatus(err error) int {
	var re *readError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &re):
		return exitRead
	case errors.Is(err, errUnrecognised):
		return exitUnrecognised
	}
	return exitBroken
}

// peekSize is how much of the input tells its form.
const peekSize = 1 << 20

// maxWhole bounds what is read whole: a perftest output in a form that
// is not streamed (bare --output values, --out_json, failure text).
const maxWhole = 16 << 20

// parseTo recognises one output read from r and writes its JSON to w.
// The error decides the exit status (exitStatus); the JSON is written
// also when the output is broken.
func parseTo(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, peekSize)
	prefix, err := br.Peek(peekSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return &readError{err}
	}
	if perftest.Detect(prefix) != perftest.FormUnknown {
		return perftestTo(br, prefix, w)
	}
	return netperfTo(br, w)
}

// parse is parseTo over a whole input, for the tests: the JSON (nil when
// none was written) and the error.
func parse(data []byte) ([]byte, error) {
	var b bytes.Buffer
	err := parseTo(bytes.NewReader(data), &b)
	if b.Len() == 0 {
		return nil, err
	}
	return b.Bytes(), err
}

// perftestTo parses a perftest output: read whole up to streamAbove, as
// a stream beyond that when its form grows without bound.
func perftestTo(br *bufio.Reader, prefix []byte, w io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(br, streamAbove+1))
	if err != nil {
		return &readError{err}
	}
	if len(data) > streamAbove {
		if streamable(prefix) {
			return perftest.WriteStreamJSON(w, io.MultiReader(bytes.NewReader(data), br))
		}
		more, err := io.ReadAll(io.LimitReader(br, maxWhole-streamAbove+1))
		if err != nil {
			return &readError{err}
		}
		if data = append(data, more...); len(data) > maxWhole {
			err := fmt.Errorf("%w: a perftest %s output larger than %d bytes", errTooLarge, perftest.Detect(prefix), maxWhole)
			return writeJSON(w, map[string]any{"tool": "perftest", "parse_error": perftest.ParseErrorJSON{Kind: "too_large", Message: err.Error()}}, err)
		}
	}
	res, err := parsePerftest(data)
	if res == nil {
		if err == nil || errors.Is(err, perftest.ErrUnrecognized) {
			return fmt.Errorf("%w: %v", errUnrecognised, err)
		}
		return writeJSON(w, map[string]any{"tool": "perftest", "parse_error": perftestParseError(err)}, err)
	}
	if err == nil && saysNothing(res, data) {
		err = fmt.Errorf("perftest: %w: no rows, no value and no failure", errNoResult)
	}
	if err == nil || isToolFailure(err) {
		return writeJSON(w, res, nil)
	}
	// Cut short, garbled or empty: what parsed, and why it is not whole.
	b, merr := json.Marshal(res)
	if merr != nil {
		return merr
	}
	var m map[string]any
	if merr := json.Unmarshal(b, &m); merr != nil {
		return merr
	}
	m["parse_error"] = perftestParseError(err)
	return writeJSON(w, m, err)
}

// isToolFailure reports whether err is perftest's own failure report
// (kept in Result.Failure) and nothing else.
func isToolFailure(err error) bool {
	return errors.Is(err, perftest.ErrToolFailed) && !errors.Is(err, perftest.ErrParse) && !errors.Is(err, perftest.ErrTruncated)
}

// saysNothing reports whether a perftest result holds nothing: no row,
// no value, no failure. A version output, and the server side of
// ib_read_lat and ib_atomic_lat (which prints no table: the library
// says so in a warning), are complete without one.
func saysNothing(res *perftest.Result, data []byte) bool {
	if perftest.Detect(data) == perftest.FormVersion || res.Server {
		return false
	}
	return len(res.BW) == 0 && len(res.Lat) == 0 && len(res.Values) == 0 && res.ReportBoth == nil && res.Failure == nil
}

// perftestParseError is the "parse_error" object of any perftest error:
// the library's, or "no_result" for errNoResult.
func perftestParseError(err error) perftest.ParseErrorJSON {
	pe := perftest.NewParseErrorJSON(err)
	if errors.Is(err, errNoResult) {
		pe.Kind = "no_result"
	}
	return pe
}

// writeJSON writes v as indented JSON and returns err (or the write's).
func writeJSON(w io.Writer, v any, err error) error {
	b, merr := marshal(v)
	if merr != nil {
		return merr
	}
	if _, werr := w.Write(b); werr != nil {
		return werr
	}
	return err
}

// parsePerftest picks perftest's parser for the detected form. A failure
// the tool reported comes back inside the Result (its Failure field).
func parsePerftest(data []byte) (*perftest.Result, error) {
	switch perftest.Detect(data) {
	case perftest.FormBare:
		return perftest.ParseBare(bytes.NewReader(data))
	case perftest.FormJSON:
		return perftest.ParseJSON(bytes.NewReader(data))
	default:
		return perftest.ParseOutput(data, nil)
	}
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
