package netperf

import (
	"io"
	"strings"
)

// ParseHuman parses omni -O output, also what -t OMNI prints by default:
// blocks (one per ";"-separated selector list) of four header rows and a
// row of values, in columns padded with spaces, blocks separated by an
// empty line:
//
//	Throughput Throughput
//	           Units
//
//
//	13701.69   10^6bits/s
//
// Columns are found by matching the header rows against netperf 2.7's
// selector headers, so headers with spaces ("Send Socket") and values
// longer than their header are read right. With -P 0 only the value rows
// are printed; then the values are named after selectors, the list given
// to -O, in order (names are left empty without it).
//
// Similar to: netperf -t TCP_STREAM -- -O THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME
func ParseHuman(r io.Reader, selectors ...string) (*Result, error) {
	in, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return parseHumanInput(in, selectors)
}

func parseHuman(s string, names []string) (*Result, error) {
	return parseHumanInput(readString(s), names)
}

func parseHumanInput(in *input, names []string) (*Result, error) {
	f := newFrame(in, FormHuman)
	body := f.body
	o := &Omni{}
	i := 0
	for i < len(body) && strings.TrimSpace(body[i].text) == "" {
		i++
	}
	headed := i < len(body) && startsWithHeaderWord(body[i].text)
	if !headed && i < len(body) {
		warnUnknownNames(f, body[i].n, names)
	}
	for i < len(body) {
		if strings.TrimSpace(body[i].text) == "" {
			i++
			continue
		}
		if !headed {
			names = humanValuesOnly(f, o, body[i], names)
			i++
			continue
		}
		if i+4 >= len(body) {
			f.setErr(line{n: f.nlines + 1}, "truncated: -O header rows without their value row")
			break
		}
		var rows [4]string
		for k := range rows {
			rows[k] = expandTabs(body[i+k].text)
		}
		values := body[i+4]
		values.text = expandTabs(values.text)
		humanBlock(f, o, rows, values)
		i += 5
		if i < len(body) && body[i].text != "" && strings.TrimSpace(body[i].text) != "" {
			f.setErr(body[i], "unexpected line after an -O block")
			i++
		}
	}
	return f.finish(finishOmni(f, o) || f.in.ninterims > 0)
}

// humanBlock reads one block's columns.
func humanBlock(f *frame, o *Omni, rows [4]string, values line) {
	width := len(values.text)
	for _, r := range rows {
		width = max(width, len(r))
	}
	at := func(s string, p int) byte {
		if p < len(s) {
			return s[p]
		}
		return ' '
	}
	blank := func(p int) bool {
		for _, r := range rows {
			if at(r, p) != ' ' {
				return false
			}
		}
		return at(values.text, p) == ' '
	}
	pos := 0
	for pos < width && blank(pos) {
		pos++
	}
	for pos < width {
		value := valueAt(values.text, pos)
		sel := Selector{Value: unquote(value), Line: values.n}
		end := pos + len(value)
		if h, ok := matchHeader(rows, pos, sel.Value); ok {
			sel.Name, sel.Header = h.name, h.joined()
			end = max(end, pos+h.width())
		} else {
			var words []string
			for _, r := range rows {
				w := wordAt(r, pos)
				end = max(end, pos+len(w))
				if w != "" {
					words = append(words, w)
				}
			}
			sel.Header = strings.Join(words, " ")
			f.warnf(values.n, "-O column %q at offset %d is not a netperf 2.7 selector", sel.Header, pos)
		}
		o.Selectors = append(o.Selectors, sel)
		pos = max(end, pos+1)
		for pos < width && blank(pos) {
			pos++
		}
	}
}

// humanValuesOnly reads a -P 0 value row, naming the values after the
// next of names; it returns the names left.
func humanValuesOnly(f *frame, o *Omni, l line, names []string) []string {
	for pos := 0; pos < len(l.text); {
		if l.text[pos] == ' ' {
			pos++
			continue
		}
		v := valueAt(l.text, pos)
		s := Selector{Value: unquote(v), Line: l.n}
		if len(names) > 0 {
			s.Name = strings.ToUpper(strings.TrimSpace(names[0]))
			names = names[1:]
		}
		o.Selectors = append(o.Selectors, s)
		pos += len(v)
	}
	return names
}

// valueAt returns the value printed at pos: up to the next space, or a
// whole double-quoted string (COMMAND_LINE, RESULT_BRAND).
func valueAt(s string, pos int) string {
	if pos >= len(s) || s[pos] == ' ' {
		return ""
	}
	if s[pos] == '"' {
		if j := strings.IndexByte(s[pos+1:], '"'); j >= 0 {
			return s[pos : pos+j+2]
		}
	}
	return wordAt(s, pos)
}

// wordAt returns the run of non-space characters at pos.
func wordAt(s string, pos int) string {
	if pos < 0 || pos >= len(s) {
		return ""
	}
	j := strings.IndexByte(s[pos:], ' ')
	if j < 0 {
		return s[pos:]
	}
	return s[pos : pos+j]
}

// headersByFirstWords indexes selectorHeaders by their first header line
// and the first word of their second ("Local", "Send"), which is what an
// -O block shows at a column's start in its first two rows.
var headersByFirstWords = func() map[[2]string][]int {
	m := make(map[[2]string][]int)
	for i, h := range selectorHeaders {
		k := [2]string{h.lines[0], firstWord(h.lines[1])}
		m[k] = append(m[k], i)
	}
	return m
}()

// headerFirstLines holds the first header line of every selector.
var headerFirstLines = func() map[string]bool {
	m := make(map[string]bool)
	for _, h := range selectorHeaders {
		m[h.lines[0]] = true
	}
	return m
}()

// startsWithHeaderWord reports whether a line looks like the first row of
// an -O block: it starts with the first header line of a selector and at
// least half of its words are such (a newer netperf may print columns this
// table does not know). Prose that merely starts with "Throughput" is not.
func startsWithHeaderWord(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 || !headerFirstLines[f[0]] {
		return false
	}
	known := 0
	for _, w := range f {
		if headerFirstLines[w] {
			known++
		}
	}
	return 2*known >= len(f)
}

// matchHeader finds the selector whose four header lines are printed at
// pos. Of several matches the one with the most header text wins; for
// the two pairs that share their headers, value decides (see
// selectorForHeader).
func matchHeader(rows [4]string, pos int, value string) (selectorHeader, bool) {
	best, bestLen := -1, -1
	for _, i := range headersByFirstWords[[2]string{wordAt(rows[0], pos), wordAt(rows[1], pos)}] {
		h := selectorHeaders[i]
		n, ok := headerAt(rows, pos, h)
		if ok && n > bestLen {
			best, bestLen = i, n
		}
	}
	if best < 0 {
		return selectorHeader{}, false
	}
	h := selectorHeaders[best]
	if name := selectorForHeader(h.joined(), value); name != h.name {
		for _, i := range byCSVHeader[h.joined()] {
			if selectorHeaders[i].name == name {
				return selectorHeaders[i], true
			}
		}
	}
	return h, true
}

// headerAt reports whether h's header lines are printed at pos, each
// followed by a space or the end of its row, and returns their length.
func headerAt(rows [4]string, pos int, h selectorHeader) (int, bool) {
	total := 0
	for k, want := range h.lines {
		r := rows[k]
		if want == "" {
			if pos < len(r) && r[pos] != ' ' {
				return 0, false
			}
			continue
		}
		end := pos + len(want)
		if end > len(r) || r[pos:end] != want || end < len(r) && r[end] != ' ' {
			return 0, false
		}
		total += len(want)
	}
	return total, true
}
