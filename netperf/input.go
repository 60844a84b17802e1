package netperf

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Bounds on what the parsers keep of an input. netperf prints a few
// hundred lines at most (-k all, -v 2), and a demo-mode (-D) run any
// number of interim lines, which are read one by one and not kept as
// text; anything beyond these bounds is not netperf output, and reading it
// whole (a 200 MB paste, /dev/zero) would exhaust memory.
const (
	// MaxLineBytes is the longest line the parsers read; netperf's longest
	// (-o all) is about 6 KiB.
	MaxLineBytes = 1 << 20
	// MaxKeptBytes bounds the text of the lines other than interim
	// results that the parsers keep.
	MaxKeptBytes = 8 << 20
	// maxKeptLines bounds their number.
	maxKeptLines = 1 << 16
	// maxPendingKeys bounds the -k demo-mode intervals whose four keys
	// are not all read yet.
	maxPendingKeys = 64
	// maxReaderWarnings bounds the warnings about interim lines; the rest
	// are counted.
	maxReaderWarnings = 16
)

// input is a netperf output read line by line: the lines other than
// well-formed interim results (numbered as in the input), the interim
// results, and what the reading found.
type input struct {
	lines  []line
	nlines int    // every line read, interims included
	head   []byte // the first bytes of the input, for Error.Raw
	kept   int    // bytes of lines kept

	interims  []Interim     // when onInterim is nil
	onInterim func(Interim) // else interims go here
	ninterims int           // interims read, kept or not
	unit      Unit          // the unit of the interims; "" when they differ
	sawCSV    bool          // -o interim lines ("%7.2f,%s/s,%.3f,%ld.%.3ld")
	sawKeyVal bool          // -k interim keys (NETPERF_INTERIM_RESULT[n])
	pending   *line         // the last -o interim-shaped line (maybe the values)
	keys      map[int]*interimKeys
	keyOrder  []int

	warnings []error
	dropped  int // warnings not kept (maxReaderWarnings)
	perr     *ParseError
	escapes  bool // ANSI escape sequences were removed
	// unterminated is true when the last line has no "\n": netperf ends
	// every line with one, so the output was cut inside that line.
	unterminated bool
}

// readInput reads r line by line into an input. A line longer than
// MaxLineBytes, or kept lines beyond MaxKeptBytes, stop the reading with
// a *ParseError wrapping ErrTooLarge; an error of r is returned as it is.
func readInput(r io.Reader, onInterim func(Interim)) (*input, error) {
	in := &input{onInterim: onInterim}
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > MaxLineBytes {
				in.fail(in.nlines+1, string(chunk[:min(len(chunk), 120)]), fmt.Sprintf("too large: a line longer than %d bytes: not netperf output", MaxLineBytes), ErrTooLarge)
				return in.done(), nil
			}
			long = append(long, chunk...)
			continue
		}
		if len(long) > 0 {
			chunk = append(long, chunk...)
			long = long[:0]
		}
		if len(chunk) > MaxLineBytes {
			in.fail(in.nlines+1, string(chunk[:120]), fmt.Sprintf("too large: a line longer than %d bytes: not netperf output", MaxLineBytes), ErrTooLarge)
			return in.done(), nil
		}
		if len(chunk) > 0 {
			if len(in.head) < maxRaw+4096 {
				in.head = append(in.head, chunk[:min(len(chunk), maxRaw+4096-len(in.head))]...)
			}
			if !in.add(chunk) {
				return in.done(), nil
			}
		}
		if err == io.EOF {
			return in.done(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("netperf: read: %w", err)
		}
	}
}

// readString is readInput over a string, for the parsers' tests.
func readString(s string) *input {
	in, _ := readInput(strings.NewReader(s), nil)
	return in
}

// add takes one line (with its "\n", if any); false stops the reading.
func (in *input) add(raw []byte) bool {
	in.nlines++
	n := in.nlines
	in.unterminated = !bytes.HasSuffix(raw, []byte("\n"))
	b := bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r"))
	if bytes.IndexByte(b, 0x1b) >= 0 {
		b = stripEscapes(b)
		if !in.escapes {
			in.escapes = true
			in.warnf(n, "terminal escape sequences (colours) removed")
		}
	}
	text := string(b)
	l := line{n: n, text: text}
	t := leadTrim(text)
	if t != text && strings.HasPrefix(strings.TrimLeft(text, " \t"), "^C") {
		in.warnf(n, "^C: netperf was stopped with Ctrl-C; the results cover the time until then")
	}
	switch {
	case strings.HasPrefix(t, "Interim result:"):
		if in.interimHuman(l) {
			return true
		}
	case isInterimCSV(t):
		// Every -o interim-shaped line but the last is an interim
		// result; the last is the value line (parseCSV).
		in.flushPending()
		in.pending = &l
		return true
	case isSelectorLine(t):
		if in.interimKey(l, t) {
			return true
		}
	}
	if strings.TrimSpace(text) != "" && !aside(t) {
		in.flushPending()
	}
	return in.keep(l)
}

// keep keeps a line that is not an interim result, within the bounds.
func (in *input) keep(l line) bool {
	in.kept += len(l.text) + 1
	if in.kept > MaxKeptBytes || len(in.lines) >= maxKeptLines {
		in.fail(l.n, l.text, fmt.Sprintf("too large: more than %d bytes or %d lines besides interim results: not netperf output", MaxKeptBytes, maxKeptLines), ErrTooLarge)
		return false
	}
	in.lines = append(in.lines, l)
	return true
}

// done ends the reading: the last -o line is kept as the values, and -k
// intervals with keys missing are malformed interim results.
func (in *input) done() *input {
	if p := in.pending; p != nil {
		in.pending = nil
		i, _ := slices.BinarySearchFunc(in.lines, p.n, func(l line, n int) int { return l.n - n })
		in.lines = slices.Insert(in.lines, i, *p)
	}
	slices.Sort(in.keyOrder)
	for _, n := range in.keyOrder {
		in.emitKeys(in.keys[n])
	}
	in.keys, in.keyOrder = nil, nil
	if in.dropped > 0 {
		in.warnings = append(in.warnings, Warning{Line: in.nlines, Text: fmt.Sprintf("%d more warnings about interim results not listed", in.dropped)})
	}
	return in
}

func (in *input) flushPending() {
	if p := in.pending; p != nil {
		in.pending = nil
		fs := splitCSV(leadTrim(p.text))
		in.sawCSV = true
		in.addInterim(*p, fs[0], fs[1], fs[2], fs[3])
	}
}

// interimHuman reads "Interim result: %7.2f %s/s over %.3f seconds ending
// at %ld.%.3ld"; a malformed one is kept for the frame to report.
func (in *input) interimHuman(l line) bool {
	fs := strings.Fields(leadTrim(l.text))
	if len(fs) != 10 || fs[4] != "over" || fs[6] != "seconds" {
		return false
	}
	return in.addInterim(l, fs[2], fs[3], fs[5], fs[9])
}

// interimKey gathers the -k demo-mode keys (NETPERF_INTERIM_RESULT[n],
// NETPERF_UNITS[n], NETPERF_INTERVAL[n], NETPERF_ENDING[n]) of an interval
// until it has all four.
func (in *input) interimKey(l line, t string) bool {
	name, value, _ := strings.Cut(t, "=")
	base, n, ok := indexedKey(name)
	if !ok {
		return false
	}
	slot := interimSlot(base)
	if slot < 0 {
		return false
	}
	in.sawKeyVal = true
	if in.keys == nil {
		in.keys = map[int]*interimKeys{}
	}
	k, seen := in.keys[n]
	if !seen {
		if len(in.keys) >= maxPendingKeys {
			oldest := slices.Min(in.keyOrder)
			in.emitKeys(in.keys[oldest])
			in.forget(oldest)
		}
		k = &interimKeys{first: l}
		in.keys[n] = k
		in.keyOrder = append(in.keyOrder, n)
	}
	k.values[slot] = unquote(strings.TrimSpace(value))
	k.set |= 1 << slot
	if k.set == 0b1111 {
		in.emitKeys(k)
		in.forget(n)
	}
	return true
}

func (in *input) forget(n int) {
	delete(in.keys, n)
	if i := slices.Index(in.keyOrder, n); i >= 0 {
		in.keyOrder = slices.Delete(in.keyOrder, i, i+1)
	}
}

func (in *input) emitKeys(k *interimKeys) {
	if !in.addInterim(k.first, k.values[0], k.values[1], k.values[2], k.values[3]) {
		in.setErr(k.first, "malformed interim result")
	}
}

// addInterim parses one interim result; false when it is malformed.
func (in *input) addInterim(l line, value, unit, interval, ending string) bool {
	v, sv, ok1 := parseNumber(value)
	iv, _, ok2 := parseNumber(interval)
	e, _, ok3 := parseNumber(ending)
	if !ok1 || !ok2 || !ok3 || !isUnitToken(unit) {
		return false
	}
	switch {
	case sv:
		in.warnf(l.n, "interim result is %v", v)
	case v < 0:
		in.setErr(l, fmt.Sprintf("interim result %v is negative: not a measurement", v))
	}
	it := Interim{Value: v, Unit: Unit(unit), IntervalSec: iv, EndingUnixSec: e}
	if in.ninterims == 0 {
		in.unit = it.Unit
	} else if in.unit != it.Unit {
		in.unit = ""
	}
	in.ninterims++
	if in.onInterim != nil {
		in.onInterim(it)
	} else {
		in.interims = append(in.interims, it)
	}
	return true
}

func (in *input) warnf(n int, format string, args ...any) {
	if len(in.warnings) >= maxReaderWarnings {
		in.dropped++
		return
	}
	in.warnings = append(in.warnings, Warning{Line: n, Text: fmt.Sprintf(format, args...)})
}

func (in *input) setErr(l line, msg string) {
	if in.perr == nil {
		in.perr = newParseError(l.n, l.text, msg)
	}
}

func (in *input) fail(n int, text, msg string, err error) {
	pe := newParseError(n, text, msg)
	pe.Err = err
	in.perr = pe
}

// raw is the input as an Error keeps it: trimmed, cut to 64 KiB.
func (in *input) raw() string {
	s := strings.TrimSpace(string(in.head))
	if len(s) > maxRaw {
		s = s[:maxRaw]
	}
	return s
}

// stripEscapes removes the terminal escape sequences a line may carry
// when it went through a terminal, a CI log or `script`: CSI sequences
// (colours: ESC [ 1;32m), OSC sequences (titles, links: ESC ] ... BEL or
// ESC \) and two-byte escapes.
func stripEscapes(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != 0x1b {
			out = append(out, b[i])
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch b[i+1] {
		case '[':
			j := i + 2
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			i = j
		case ']':
			j := i + 2
			for j < len(b) && b[j] != 0x07 && !(b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\') {
				j++
			}
			if j < len(b) && b[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return out
}

// aside reports whether a line is one netperf prints beside its result
// (a failure, a diagnostic), after which an -o value line is still the
// value line.
func aside(t string) bool {
	if _, ok := classifyFailureLine(t); ok {
		return true
	}
	for _, p := range []string{"enable_enobufs failed", "Sorry, Demo Mode", "tcpi_", "Netperf version ", "!!!"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
