package report

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// lineDecoder decodes store lines, one per call, for one goroutine. Lines
// of the shape the library writes (a round's name, start, durations,
// params, metrics, warnings and outputs; strings without escapes) take a
// hand-written path, with a tenth of encoding/json's allocations and 7
// times its speed through ScanRounds (BenchmarkStoreScan), that shares
// the copies of short strings that repeat from line to line (the
// parameter keys, host and NIC names of a fleet store). Anything else —
// another field, an escape, a null for a string, a duplicate key, a number out of
// range, a round that does not Validate — is decoded by encoding/json, so
// what a line decodes to, and why it does not, is what decodeRound says
// (FuzzLineDecoder checks it).
type lineDecoder struct {
	strs   *[internSize][2]string // shared copies of short strings, by hash
	params []Param                // scratch for a round's params
	labels []Param                // scratch for a metric's labels
	ms     []Metric               // scratch for a round's metrics
	vals   []float64              // scratch for a metric's values
	fast   int                    // lines the fast path took (for tests)
}

// The shared strings: a table of internSize pairs of strings of up to
// internLen bytes, each string in the pair of its hash (a new string
// takes the place of the older of the two). A store of unique values
// costs a hash and two compares per string, and the table stays at 64 KB.
const (
	internSize = 1 << 11
	internLen  = 64
)

func newLineDecoder() *lineDecoder {
	return &lineDecoder{strs: new([internSize][2]string)}
}

// fastLines turns the fast path off when false: benchmarks compare.
var fastLines = true

// decode returns the round on line b, as decodeRound would.
func (d *lineDecoder) decode(b []byte) (Round, error) {
	if !fastLines {
		return decodeRound(b)
	}
	if r, ok := d.decodeFast(b); ok {
		d.fast++
		return r, nil
	}
	return decodeRound(b)
}

// str returns b as a string, the shared copy when there is one.
func (d *lineDecoder) str(b []byte) string {
	if len(b) > internLen {
		return string(b)
	}
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	set := &d.strs[h%internSize]
	switch string(b) {
	case set[0]:
		return set[0]
	case set[1]:
		set[0], set[1] = set[1], set[0]
		return set[0]
	}
	s := string(b)
	set[0], set[1] = s, set[0]
	return s
}

// lineScan is a cursor over one line of JSON.
type lineScan struct {
	b []byte
	i int
}

// ws skips JSON white space.
func (p *lineScan) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// eat skips white space and c; false when the next byte is not c.
func (p *lineScan) eat(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// null skips a null.
func (p *lineScan) null() bool {
	p.ws()
	if len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "null" {
		p.i += 4
		return true
	}
	return false
}

// plain are the bytes that stand for themselves in a JSON string and in
// what encoding/json makes of it: not a quote, a backslash, a control
// byte, or a byte of a multi-byte UTF-8 sequence (checked apart).
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// raw reads a string without escapes and returns what is between its
// quotes. A string with an escape, a control byte or bytes that are not
// UTF-8 (which encoding/json would replace) is refused.
func (p *lineScan) raw() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	b, start, i := p.b, p.i, p.i
	for i < len(b) && plain[b[i]] {
		i++
	}
	if i < len(b) && b[i] == '"' { // the common case: ASCII only
		p.i = i + 1
		return b[start:i], true
	}
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			p.i = i + 1
			s := b[start:i]
			return s, utf8.Valid(s)
		case c < 0x20 || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// number reads a JSON number; integer is set when it has no fraction or
// exponent.
func (p *lineScan) number() (s []byte, integer, ok bool) {
	p.ws()
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return nil, false, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		d := i + 1
		if i = digits(b, d); i == d {
			return nil, false, false
		}
		integer = false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		if i = digits(b, d); i == d {
			return nil, false, false
		}
		integer = false
	}
	s, p.i = b[p.i:i], i
	return s, integer, true
}

// digits returns the index after the decimal digits of b from i on.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// float reads a number as encoding/json reads it into a float64.
func (p *lineScan) float() (float64, bool) {
	s, integer, ok := p.number()
	if !ok {
		return 0, false
	}
	if digits := s; integer && len(digits) <= 16 {
		neg := digits[0] == '-'
		if neg {
			digits = digits[1:]
		}
		if len(digits) <= 15 { // below 2^53: exact, as ParseFloat makes it
			var v int64
			for _, c := range digits {
				v = v*10 + int64(c-'0')
			}
			f := float64(v)
			if neg {
				f = -f
			}
			return f, true
		}
	}
	f, err := strconv.ParseFloat(string(s), 64)
	return f, err == nil
}

// int reads a number as encoding/json reads it into an int.
func (p *lineScan) int() (int, bool) {
	s, integer, ok := p.number()
	if !ok || !integer {
		return 0, false
	}
	v, err := strconv.ParseInt(string(s), 10, strconv.IntSize)
	return int(v), err == nil
}

// object reads a JSON object, calling field for each key; field reads the
// value. A key seen twice is refused (encoding/json keeps the last).
func (p *lineScan) object(field func(key []byte) (bit uint16, ok bool)) bool {
	if !p.eat('{') {
		return false
	}
	if p.eat('}') {
		return true
	}
	var seen uint16
	for {
		key, ok := p.raw()
		if !ok || !p.eat(':') {
			return false
		}
		bit, ok := field(key)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if p.eat(',') {
			continue
		}
		return p.eat('}')
	}
}

// array reads a JSON array, calling elem for each element; empty is set
// for "[]" (which encoding/json decodes to an empty, non-nil slice). A
// null is no element, as encoding/json reads it into a slice (nil).
func (p *lineScan) array(elem func() bool) (empty, ok bool) {
	if p.null() {
		return false, true
	}
	if !p.eat('[') {
		return false, false
	}
	if p.eat(']') {
		return true, true
	}
	for {
		if !elem() {
			return false, false
		}
		if p.eat(',') {
			continue
		}
		return false, p.eat(']')
	}
}

// decodeFast decodes b when it has the shape the library writes; ok is
// false for anything else, left to encoding/json.
func (d *lineDecoder) decodeFast(b []byte) (r Round, ok bool) {
	p := &lineScan{b: b}
	ok = p.object(func(key []byte) (uint16, bool) {
		switch string(key) {
		case "name":
			return 1 << 0, d.text(p, &r.Name)
		case "start":
			p.ws()
			at := p.i
			if _, ok := p.raw(); !ok {
				return 0, false
			}
			return 1 << 1, r.Start.UnmarshalJSON(b[at:p.i]) == nil
		case "duration_sec":
			v, ok := p.float()
			r.DurationSec = v
			return 1 << 2, ok
		case "tool_sec":
			v, ok := p.float()
			r.ToolSec = v
			return 1 << 3, ok
		case "params":
			ps, ok := d.paramList(p, &d.params)
			r.Params = ps
			return 1 << 4, ok
		case "metrics":
			ms, ok := d.metrics(p)
			r.Metrics = ms
			return 1 << 5, ok
		case "warnings":
			ws, ok := d.strings(p)
			r.Warnings = ws
			return 1 << 6, ok
		case "outputs":
			outs, ok := d.outputs(p)
			r.Outputs = outs
			return 1 << 7, ok
		}
		return 0, false
	})
	p.ws()
	if !ok || p.i != len(b) || !valid(&r) {
		return Round{}, false
	}
	return r, true
}

// valid is r.Validate() == nil, without building the metrics' keys for a
// round of one metric (a fleet cell's). JSON numbers are finite.
func valid(r *Round) bool {
	if len(r.Metrics) > 1 {
		return r.Validate() == nil
	}
	if r.Name == "" || r.DurationSec < 0 {
		return false
	}
	for _, m := range r.Metrics {
		if m.Name == "" || m.Unit == "" || strings.ContainsAny(m.Unit, " \t\n") {
			return false
		}
	}
	return true
}

// paramList reads [{"key":..,"value":..},...] through the scratch slice
// *scratch and returns a slice of its own.
func (d *lineDecoder) paramList(p *lineScan, scratch *[]Param) ([]Param, bool) {
	return list(p, scratch, func() (kv Param, ok bool) {
		ok = p.object(func(key []byte) (uint16, bool) {
			switch string(key) {
			case "key":
				return 1, d.text(p, &kv.Key)
			case "value":
				return 2, d.text(p, &kv.Value)
			}
			return 0, false
		})
		return kv, ok
	})
}

// metrics reads the metrics array.
func (d *lineDecoder) metrics(p *lineScan) ([]Metric, bool) {
	return list(p, &d.ms, func() (m Metric, ok bool) {
		ok = p.object(func(key []byte) (uint16, bool) {
			switch string(key) {
			case "name":
				return 1, d.text(p, &m.Name)
			case "labels":
				ls, ok := d.paramList(p, &d.labels)
				m.Labels = ls
				return 2, ok
			case "unit":
				return 4, d.text(p, &m.Unit)
			case "better":
				s, ok := p.raw()
				return 8, ok && m.Better.UnmarshalText(s) == nil
			case "values":
				vs, ok := list(p, &d.vals, p.float)
				m.Values = vs
				return 16, ok
			}
			return 0, false
		})
		return m, ok
	})
}

// strings reads an array of strings.
func (d *lineDecoder) strings(p *lineScan) ([]string, bool) {
	return list(p, nil, func() (string, bool) {
		s, ok := p.raw()
		return d.str(s), ok
	})
}

// outputs reads the outputs array.
func (d *lineDecoder) outputs(p *lineScan) ([]Output, bool) {
	return list(p, nil, func() (o Output, ok bool) {
		ok = p.object(func(key []byte) (uint16, bool) {
			switch string(key) {
			case "repeat":
				v, ok := p.int()
				o.Repeat = v
				return 1, ok
			case "role":
				return 2, d.text(p, &o.Role)
			case "stream":
				return 4, d.text(p, &o.Stream)
			case "path":
				return 8, d.text(p, &o.Path)
			}
			return 0, false
		})
		return o, ok
	})
}

// text reads a string into *dst, the shared copy.
func (d *lineDecoder) text(p *lineScan, dst *string) bool {
	s, ok := p.raw()
	*dst = d.str(s)
	return ok
}

// list reads an array, each element through elem, as encoding/json reads
// it into a slice: an empty non-nil slice for [], nil for null, nil and
// false when it is not an array of elements elem reads. A non-nil scratch
// is the decoder's buffer the elements are gathered in, then copied out
// of, so that a line of many arrays grows no slice of its own; it is
// cleared after, keeping no strings or slices past the call.
func list[T any](p *lineScan, scratch *[]T, elem func() (T, bool)) ([]T, bool) {
	var buf []T
	if scratch != nil {
		buf = (*scratch)[:0]
	}
	empty, ok := p.array(func() bool {
		v, ok := elem()
		buf = append(buf, v)
		return ok
	})
	var out []T
	switch {
	case !ok:
	case empty:
		out = []T{}
	case scratch == nil:
		out = buf
	default:
		out = append([]T(nil), buf...)
	}
	if scratch != nil {
		clear(buf)
		*scratch = buf
	}
	return out, ok
}
