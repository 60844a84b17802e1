package netperf

import (
	"io"
	"strconv"
	"strings"
)

// ParseKeyVal parses omni -k output: one SELECTOR=value line per selector,
// in the order asked for, after the banner (unless -P 0). Demo-mode keys
// (NETPERF_INTERIM_RESULT[n], NETPERF_UNITS[n], NETPERF_INTERVAL[n],
// NETPERF_ENDING[n]) become Result.Interims.
//
// Similar to: netperf -P 0 -t UDP_STREAM -- -m 1400 -k THROUGHPUT,LOCAL_SEND_CALLS,REMOTE_RECV_CALLS
//
// A line that is neither SELECTOR=value nor netperf's banner, diagnostics
// or failure text gives a *ParseError; the other lines are still parsed.
func ParseKeyVal(r io.Reader) (*Result, error) {
	in, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return parseKeyValInput(in)
}

func parseKeyVal(s string) (*Result, error) { return parseKeyValInput(readString(s)) }

// parseKeyValInput reads the selectors; the demo-mode keys were gathered
// into interim results by the reading (input.interimKey).
func parseKeyValInput(in *input) (*Result, error) {
	f := newFrame(in, FormKeyVal)
	o := &Omni{Selectors: make([]Selector, 0, len(f.body))}
	for _, l := range f.body {
		text := strings.TrimLeft(l.text, " \t") // a page's indentation
		if text == "" {
			continue
		}
		if !isSelectorLine(text) {
			f.setErr(l, "not a SELECTOR=value line")
			continue
		}
		name, value, _ := strings.Cut(text, "=")
		value = unquote(strings.TrimSpace(value))
		o.Selectors = append(o.Selectors, Selector{Name: name, Value: value, Line: l.n})
	}
	return f.finish(finishOmni(f, o) || f.in.ninterims > 0)
}

// interimKeys gathers the four demo-mode keys of one interval.
type interimKeys struct {
	first  line // the first of the keys, for errors
	values [4]string
	set    uint8 // which of values were read
}

// isSelectorLine reports whether s starts with NAME= or NAME[n]=, NAME
// being upper case letters, digits and underscores.
func isSelectorLine(s string) bool {
	i := 0
	for i < len(s) && (s[i] >= 'A' && s[i] <= 'Z' || s[i] == '_' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 || i >= len(s) {
		return false
	}
	if s[i] == '[' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 || j >= len(s) || s[j] != ']' {
			return false
		}
		i = j + 1
	}
	return i < len(s) && s[i] == '='
}

// indexedKey splits "NAME[n]" into NAME and n.
func indexedKey(key string) (string, int, bool) {
	base, rest, ok := strings.Cut(key, "[")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
	if err != nil || n < 0 {
		return "", 0, false
	}
	return base, n, true
}

// interimSlot places a demo-mode key in Interim order: value, unit,
// interval, ending; -1 for other keys.
func interimSlot(base string) int {
	switch base {
	case "NETPERF_INTERIM_RESULT":
		return 0
	case "NETPERF_UNITS":
		return 1
	case "NETPERF_INTERVAL":
		return 2
	case "NETPERF_ENDING":
		return 3
	}
	return -1
}

// unquote removes the double quotes netperf prints around COMMAND_LINE and
// RESULT_BRAND ("\"%s\"").
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}
