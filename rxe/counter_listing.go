package rxe

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// ParseCounterListing reads counter files as a shell listed them, in one of
// three shapes:
//
//	PATH:VALUE       grep -H . /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*
//	NAME VALUE       for f in *; do printf "%-20s %s\n" $f $(<$f); done
//	=== NAME ===     for f in *; do echo "=== $f ==="; cat $f; done
//	VALUE
//
// A path names the device, port and directory of its counter (…/DEV/ports/
// N/hw_counters/NAME, also under /sys/devices/…); bare names go to the
// directory src of one port with an empty device name. A value that is not
// a number ("N/A (no PMA)", which drivers without a PMA print in
// counters/) is a warning with its line number, as is a NAME line without a
// value. It fails, wrapping ErrParse, when no counter was read or
// reading fails.
//
// Similar to: grep -H . /sys/class/infiniband/*/ports/*/counters/*
func ParseCounterListing(r io.Reader, src CounterSource) (PortCounterText, error) {
	l := listing{src: src, index: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l.line(n, sc.Text())
	}
	if l.pending != "" {
		l.warn(l.pendingLine, l.pending, fmt.Errorf("%w: counter %s has no value", ErrParse, l.pending))
	}
	if err := sc.Err(); err != nil {
		return l.out, fmt.Errorf("%w: counter listing line %d: %w", ErrParse, n+1, err)
	}
	if l.counters == 0 {
		return l.out, fmt.Errorf("%w: counter listing: no counter in %d lines", ErrParse, n)
	}
	return l.out, nil
}

type listing struct {
	out         PortCounterText
	src         CounterSource
	index       map[string]int // "dev/port" → position in out.Ports
	pending     string         // the NAME of a "=== NAME ===" line
	pendingLine int
	counters    int
}

func (l *listing) warn(n int, text string, err error) {
	l.out.Warnings = append(l.out.Warnings, LineWarning{Line: n, Text: text, Err: err})
}

func (l *listing) line(n int, text string) {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return
	case strings.HasPrefix(t, "===") && strings.HasSuffix(t, "===") && len(t) > 6:
		if l.pending != "" {
			l.warn(l.pendingLine, l.pending, fmt.Errorf("%w: counter %s has no value", ErrParse, l.pending))
		}
		name := strings.TrimSpace(t[3 : len(t)-3])
		l.pending, l.pendingLine = name[strings.LastIndexByte(name, '/')+1:], n
		return
	case l.pending != "":
		name := l.pending
		l.pending = ""
		l.add(n, text, "", 0, l.src, name, t)
		return
	}
	// PCI addresses in /sys/devices paths have colons too: the value
	// starts at the first colon after "/ports/".
	if i := strings.Index(t, "/ports/"); i >= 0 && strings.IndexByte(t[i:], ':') > 0 {
		j := i + strings.IndexByte(t[i:], ':')
		path, value := t[:j], t[j+1:]
		dev, port, src, name, ok := splitCounterPath(path)
		if !ok {
			l.warn(n, text, fmt.Errorf("%w: %q is not a port counter path", ErrParse, path))
			return
		}
		l.add(n, text, dev, port, src, name, value)
		return
	}
	f := strings.Fields(t)
	switch {
	case len(f) == 2 && isCounterName(f[0]):
		l.add(n, text, "", 0, l.src, f[0], f[1])
	case len(f) == 1 && isCounterName(f[0]) && l.counters > 0:
		// A NAME VALUE listing cut after the name.
		l.warn(n, text, fmt.Errorf("%w: counter %s has no value", ErrParse, f[0]))
	}
	// Anything else (prompts, fences, commands) is not a counter line.
}

func (l *listing) add(n int, text, dev string, port int, src CounterSource, name, value string) {
	v, err := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
	if err != nil {
		l.warn(n, text, fmt.Errorf("%w: counter %s/%s: value %q", ErrParse, src, name, strings.TrimSpace(value)))
		return
	}
	key := dev + "/" + strconv.Itoa(port)
	i, ok := l.index[key]
	if !ok {
		i = len(l.out.Ports)
		l.index[key] = i
		l.out.Ports = append(l.out.Ports, PortCounters{Device: dev, Port: port})
	}
	p := &l.out.Ports[i]
	m := &p.HW
	if src == SourcePMA {
		m = &p.PMA
	}
	if *m == nil {
		*m = map[string]uint64{}
	}
	if src == SourceHW && name == "lifespan" {
		p.Lifespan = time.Duration(v) * time.Millisecond
	} else {
		(*m)[name] = v
	}
	l.counters++
}

// splitCounterPath splits …/DEV/ports/N/{hw_counters,counters}/NAME.
func splitCounterPath(path string) (dev string, port int, src CounterSource, name string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	k := len(parts)
	if k < 5 || parts[k-4] != "ports" {
		return "", 0, "", "", false
	}
	switch CounterSource(parts[k-2]) {
	case SourceHW, SourcePMA:
		src = CounterSource(parts[k-2])
	default:
		return "", 0, "", "", false
	}
	port, err := strconv.Atoi(parts[k-3])
	if err != nil || port < 0 {
		return "", 0, "", "", false
	}
	return parts[k-5], port, src, parts[k-1], true
}

// isCounterName reports whether s looks like a sysfs counter file name
// (letters, digits, '_', ',': hfi1 has "SwLinkUp,32").
func isCounterName(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && (c < '0' || c > '9') && c != '_' && c != ',' && c != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
