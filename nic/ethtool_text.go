package nic

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// TextWarning is a line of a text output that was not read as it stands:
// a line that is no counter, a value that is no number, text after the
// value, a repeated name, several counters joined on one line.
type TextWarning struct {
	Line   int    `json:"line"`   // 1-based
	Text   string `json:"text"`   // the line, trimmed, cut to 120 bytes
	Reason string `json:"reason"` // what was wrong and what was kept
}

// String formats the warning with its line number.
func (w TextWarning) String() string {
	return fmt.Sprintf("line %d: %s: %q", w.Line, w.Reason, w.Text)
}

// Reasons of TextWarnings.
const (
	reasonNotCounter = "not a counter line"
	reasonNoValue    = "no value"
	reasonNoName     = "no name"
	reasonNotNumber  = "value is not a number"
	reasonRange      = "value does not fit in 64 bits"
	reasonTrailing   = "text after the value (value kept)"
	reasonRepeated   = "counter repeated (last value kept)"
	reasonJoined     = "several counters on one line, as a web page joins lines (read by fields)"
)

// ParseEthtoolStats reads the text of `ethtool -S NAME` as a terminal,
// a log or a web page gave it, so that captures from hosts rocekit cannot
// reach compare like Handle.Stats snapshots: the result's Ethtool map is
// what the ioctl returns (Netdev, Time and Link are left for the caller to
// set; Delta and ClassifyCounter work on it as they are).
//
// Each "name: value" line is a counter, whatever the indentation (spaces or
// tabs). The value is after the last colon, so names keep their colons,
// dots, brackets and spaces: bnxt "[0]: rx_ucast_packets", be2net "rxq0:
// rx_bytes", i40e "port.rx_bytes", "tx-0.tx_packets". Headers ("NIC
// statistics:", "Standard stats for eth0:") and blank lines are skipped;
// the header may be missing. Every other line becomes a TextWarning with
// its line number and, where the text allows, still gives its counters: a
// value followed by a note ("75776 <<<<") is kept; a line a web page joined
// from many ("a: 1 b: 2 ...") is read field by field. A repeated name keeps
// the last value, as the ioctl's map does.
//
// The error wraps ErrEthtoolText with a line number when no counter was
// found or a line exceeds 16 MiB; the counters read before are returned.
//
// Similar to: ethtool -S eth0 > eth0.txt (read back)
func ParseEthtoolStats(r io.Reader) (Stats, []TextWarning, error) {
	st := Stats{Ethtool: map[string]uint64{}}
	var p ethtoolTextParser
	p.stats = st.Ethtool
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		p.line(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		return st, p.warnings, fmt.Errorf("%w: line %d: %w", ErrEthtoolText, p.n+1, err)
	}
	if len(st.Ethtool) == 0 {
		if p.firstText == 0 {
			return st, p.warnings, fmt.Errorf("%w: no counters: empty input", ErrEthtoolText)
		}
		return st, p.warnings, fmt.Errorf("%w: line %d: no counters in %d lines", ErrEthtoolText, p.firstText, p.n)
	}
	return st, p.warnings, nil
}

// ethtoolTextParser is the state of one ParseEthtoolStats.
type ethtoolTextParser struct {
	stats     map[string]uint64
	warnings  []TextWarning
	n         int // lines read
	repeatAt  int // line of the last repeated-counter warning: one a line
	firstText int // first line that is not blank
}

func (p *ethtoolTextParser) warn(b []byte, reason string) {
	if len(b) > 120 {
		b = b[:120]
	}
	p.warnings = append(p.warnings, TextWarning{Line: p.n, Text: string(b), Reason: reason})
}

func (p *ethtoolTextParser) add(name []byte, v uint64, b []byte) {
	if _, dup := p.stats[string(name)]; dup && p.repeatAt != p.n {
		p.repeatAt = p.n
		p.warn(b, reasonRepeated)
	}
	p.stats[string(name)] = v
}

// line reads one line.
func (p *ethtoolTextParser) line(raw []byte) {
	p.n++
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return
	}
	if p.firstText == 0 {
		p.firstText = p.n
	}
	colon := bytes.LastIndexByte(b, ':')
	if colon < 0 {
		p.warn(b, reasonNotCounter)
		return
	}
	head, rest := bytes.TrimSpace(b[:colon]), bytes.TrimSpace(b[colon+1:])
	if bytes.IndexByte(head, ':') >= 0 && p.joined(b) {
		return
	}
	if len(rest) == 0 {
		if bytes.IndexByte(head, ' ') < 0 || bytes.IndexByte(head, ':') >= 0 {
			p.warn(b, reasonNoValue) // "os2bmc_rx_by_bmc:" cut off; headers have spaces
		}
		return
	}
	if len(head) == 0 {
		p.warn(b, reasonNoName)
		return
	}
	v, n, ok := parseUintPrefix(rest)
	switch {
	case n == 0 || (n < len(rest) && rest[n] != ' ' && rest[n] != '\t'):
		p.warn(b, reasonNotNumber)
	case !ok:
		p.warn(b, reasonRange)
	default:
		p.add(head, v, b)
		if n < len(rest) {
			p.warn(b, reasonTrailing)
		}
	}
}

// joined reads a line that holds several "name: value" pairs (two or more
// fields ending in ':' each followed by a number) field by field, and
// reports whether it did.
func (p *ethtoolTextParser) joined(b []byte) bool {
	if joinedPairs(b, nil) < 2 {
		return false
	}
	p.warn(b, reasonJoined)
	joinedPairs(b, func(name []byte, v uint64) { p.add(name, v, b) })
	return true
}

// joinedPairs counts the fields of b that end in ':' and are followed by a
// field that is a number, and gives each pair to fn unless fn is nil.
func joinedPairs(b []byte, fn func(name []byte, v uint64)) int {
	pairs := 0
	var prev []byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		j := i
		for j < len(b) && b[j] != ' ' && b[j] != '\t' {
			j++
		}
		f := b[i:j]
		b = b[j:]
		if len(f) == 0 {
			break
		}
		if len(prev) > 1 && prev[len(prev)-1] == ':' {
			if v, n, ok := parseUintPrefix(f); ok && n == len(f) {
				pairs++
				if fn != nil {
					fn(prev[:len(prev)-1], v)
				}
				prev = nil
				continue
			}
		}
		prev = f
	}
	return pairs
}

// parseUintPrefix parses the decimal digits at the start of b: the value,
// the number of digits, and false when there are none or they overflow.
func parseUintPrefix(b []byte) (uint64, int, bool) {
	var v uint64
	n := 0
	ok := true
	for ; n < len(b) && b[n] >= '0' && b[n] <= '9'; n++ {
		d := uint64(b[n] - '0')
		if v > (1<<64-1-d)/10 {
			ok = false
		}
		v = v*10 + d
	}
	return v, n, ok && n > 0
}
