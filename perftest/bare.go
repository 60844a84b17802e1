package perftest

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// ParseBare parses the output of --output=bandwidth, --output=message_rate
// or --output=latency: perftest drops the banner, header and tables and
// prints each result as "%lf\n", one per size with -a. Warnings it still
// prints ("WARNING: BW peak won't be measured in this run.", "Disabling
// dynamic polling", dashes) become Warnings. Result.Value is the last
// number, Result.Values all of them; the unit follows the option (MiB/s or
// Gb/s, Mpps, usec) and is not in the output.
//
// A full table row, which perftest prints when --output does not fit the
// test (latency of a BW test), is kept as a warning, not as a value. A
// last number with fewer than the six decimals of "%lf" ("19.49" of
// "19.499903") was cut: it is dropped and the error wraps ErrTruncated;
// a negative number is a *ParseError wrapping ErrParse.
//
// Similar to: ib_send_bw --output=bandwidth ... | tail -1
func ParseBare(r io.Reader) (*Result, error) {
	p := newBareParser()
	if r == nil {
		return p.res, errNilReader
	}
	data, err := readAll(r)
	if err != nil {
		return p.res, err
	}
	p.readBytes(data)
	return p.res, p.finish()
}

type bareParser struct {
	collector
	line  int
	noted bool // something of perftest's was seen
	// held is a number with fewer decimals than "%lf" prints ("19.49"
	// of "19.499903"), kept until a line follows it: at the end of the
	// input it was cut.
	held     []byte
	heldLine int
}

func newBareParser() *bareParser {
	return &bareParser{collector: collector{res: &Result{Kind: ResultBare, Header: newHeader()}}}
}

func (p *bareParser) readBytes(data []byte) {
	for line := range lines(data) {
		p.feed(line)
	}
}

func (p *bareParser) feed(raw []byte) {
	p.line++
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return
	}
	if p.held != nil {
		p.value(p.held, p.heldLine)
		p.held = nil
	}
	if isDashes(t) {
		p.noted = true
		return
	}
	var f [maxFields][]byte
	n := splitFields(t, &f)
	if n == 1 {
		if _, ok := parseFloat(t); ok {
			if !isBareNumber(t) {
				p.held, p.heldLine = append([]byte(nil), t...), p.line
				return
			}
			p.value(t, p.line)
			return
		}
	}
	s := string(t)
	if n > 1 && n <= maxFields && allNumbers(f[:n]) {
		p.noted = true
		p.res.warn(WarnUnknownLine, p.line, "a full result row in --output mode (the option does not fit the test): "+s)
		return
	}
	if _, ok := p.noise(p.line, raw, s); ok {
		p.noted = true
		return
	}
	p.res.warn(WarnUnknownLine, p.line, clip(s))
}

// value takes the number of line n.
func (p *bareParser) value(t []byte, n int) {
	v, _ := parseFloat(t)
	if v < 0 && finite(v) {
		p.setErr(newParseError(ErrParse, n, t, "a negative number: perftest prints none"))
		p.res.warn(WarnBadRow, n, clip("a negative number: "+string(t)))
		return
	}
	p.res.Values = append(p.res.Values, v)
	p.res.Value = v
	if !finite(v) {
		p.res.warn(WarnNonFinite, n, fmt.Sprintf("value %s (kept as printed)", t))
	}
}

func allNumbers(f [][]byte) bool {
	for _, b := range f {
		if _, ok := parseFloat(b); !ok {
			return false
		}
	}
	return true
}

func (p *bareParser) finish() error {
	if p.held != nil {
		msg := `the last number has fewer decimals than perftest's "%lf" prints: the output was cut inside it`
		p.res.warn(WarnBadRow, p.heldLine, clip(msg+": "+string(p.held)))
		p.setErr(newParseError(ErrTruncated, p.heldLine, p.held, msg))
		p.held = nil
	}
	var err error
	if len(p.res.Values) == 0 {
		if p.noted {
			err = &ParseError{Err: ErrTruncated, Line: p.line, Msg: fmt.Sprintf("no number in --output mode (%d lines)", p.line)}
		} else {
			err = &ParseError{Err: ErrUnrecognized, Msg: fmt.Sprintf("no number in %d lines", p.line)}
		}
	}
	if p.firstErr != nil {
		err = p.firstErr
	}
	return p.result(markNoResult(err, p.res, 0))
}

// isBareValue reports whether a trimmed line is a value perftest's --output
// mode prints: a "%lf" number that is not negative and finite (ParseBare
// refuses those), so that Detect calls bare only what ParseBare keeps.
func isBareValue(t []byte) bool {
	if !isBareNumber(t) {
		return false
	}
	v, _ := parseFloat(t)
	return !(v < 0 && finite(v))
}

// isBareNumber reports whether a trimmed line is a number as perftest's
// "%lf" prints it: six decimals, or inf or nan.
func isBareNumber(t []byte) bool {
	if len(t) > 0 && (t[0] == '-' || t[0] == '+') {
		t = t[1:]
	}
	if equalFold(t, "inf") || equalFold(t, "nan") {
		return true
	}
	dot := bytes.IndexByte(t, '.')
	if dot <= 0 || len(t)-dot-1 != 6 {
		return false
	}
	_, err := strconv.ParseUint(string(t[:dot]), 10, 64)
	_, err2 := strconv.ParseUint(string(t[dot+1:]), 10, 64)
	return err == nil && err2 == nil
}
