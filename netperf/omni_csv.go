package netperf

import (
	"fmt"
	"io"
	"strings"
)

// ParseCSV parses omni -o output: after the banner, a line of headers
// ("Throughput,Throughput Units") and a line of values
// ("13199.19,10^6bits/s"). Headers are mapped back to selector names.
// With -P 0 netperf prints neither the banner nor the headers; then the
// values are named after selectors, the list given to -o, in order (names
// are left empty without it). Demo-mode interim lines printed before the
// header become Result.Interims.
//
// Similar to: netperf -t TCP_RR -- -o MIN_LATENCY,P99_LATENCY,TRANSACTION_RATE
//
// Values may be quoted (COMMAND_LINE, RESULT_BRAND) and hold commas.
func ParseCSV(r io.Reader, selectors ...string) (*Result, error) {
	in, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return parseCSVInput(in, selectors)
}

func parseCSV(s string, names []string) (*Result, error) { return parseCSVInput(readString(s), names) }

func parseCSVInput(in *input, names []string) (*Result, error) {
	f := newFrame(in, FormCSV)
	var rows []line
	for _, l := range f.body {
		if strings.TrimSpace(l.text) != "" {
			rows = append(rows, l)
		}
	}
	// The last line holds the values (or, truncated, the header); a line
	// before it that is not an interim result is the header; the lines
	// before that are demo-mode interim results.
	o := &Omni{}
	if n := len(rows); n > 0 {
		last := rows[n-1]
		var header *line
		if n > 1 && !isInterimCSV(rows[n-2].text) {
			header = &rows[n-2]
			rows = rows[:n-2]
		} else {
			rows = rows[:n-1]
		}
		for _, l := range rows {
			// The interim lines were taken by the reading.
			f.setErr(l, "unexpected line before the CSV values")
		}
		switch {
		case header != nil:
			csvValues(f, o, splitCSV(header.text), last, names)
		case isCSVHeader(last.text):
			f.setErr(line{n: f.nlines + 1}, "truncated: CSV header without values")
		default:
			csvValues(f, o, nil, last, names)
		}
	}
	return f.finish(finishOmni(f, o) || f.in.ninterims > 0)
}

// csvValues pairs the value line with the headers (or, without headers,
// with the names the caller gave).
func csvValues(f *frame, o *Omni, headers []string, l line, names []string) {
	values := splitCSV(l.text)
	if headers != nil && len(headers) != len(values) {
		f.setErr(l, fmt.Sprintf("%d headers but %d values", len(headers), len(values)))
	}
	if headers == nil {
		warnUnknownNames(f, l.n, names)
	}
	if headers == nil && len(names) > 0 && len(names) != len(values) {
		f.warnf(l.n, "%d selectors named but %d values printed (netperf drops unknown selectors)", len(names), len(values))
	}
	o.Selectors = make([]Selector, 0, len(values))
	for i, v := range values {
		s := Selector{Value: unquote(v), Line: l.n}
		switch {
		case headers != nil && i < len(headers):
			s.Header = headers[i]
			s.Name = selectorForHeader(s.Header, s.Value)
		case headers == nil && i < len(names):
			s.Name = strings.ToUpper(strings.TrimSpace(names[i]))
		}
		o.Selectors = append(o.Selectors, s)
	}
}

// splitCSV cuts a netperf CSV line at commas outside double quotes and
// trims each field (netperf leaves a space where a value is missing:
// "16793.82,, 1.00"). Quotes are kept; unquote removes them.
func splitCSV(s string) []string {
	fields := make([]string, 0, strings.Count(s, ",")+1)
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				fields = append(fields, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(fields, strings.TrimSpace(s[start:]))
}

// isInterimCSV reports a demo-mode interim line of -o output:
// "%7.2f,%s/s,%.3f,%ld.%.3ld".
func isInterimCSV(s string) bool {
	fs := splitCSV(s)
	return len(fs) == 4 && isNumber(fs[0]) && isUnitToken(fs[1]) && isNumber(fs[2]) && isNumber(fs[3])
}

// isCSVHeader reports whether every field of a line is a known -o header.
func isCSVHeader(s string) bool {
	for _, h := range splitCSV(s) {
		if _, ok := byCSVHeader[h]; !ok {
			return false
		}
	}
	return true
}
