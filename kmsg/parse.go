package kmsg

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxLineBytes bounds one input line; a longer line stops the scan with an
// error wrapping ErrParse (the kernel's own records are below 8 KiB).
const MaxLineBytes = 1 << 20

// Log is what Parse read: the records in input order and the lines that
// looked like records but did not parse.
type Log struct {
	Records  []Record
	Warnings []error
}

// Parse reads a kernel log in any of the forms of Format, line by line;
// the form is recognised per line, so mixed input is fine. Lines that look
// like a record but do not parse become warnings with their line number;
// the records before a fatal error (a read error, a line over
// MaxLineBytes) are kept.
//
// Similar to: dmesg -r; cat /dev/kmsg; journalctl -k
func Parse(r io.Reader) (Log, error) {
	var l Log
	s := NewScanner(r)
	for s.Scan() {
		l.Records = append(l.Records, s.Record())
	}
	l.Warnings = s.Warnings()
	return l, s.Err()
}

// ParseBytes is Parse over a byte slice.
func ParseBytes(b []byte) (Log, error) { return Parse(bytes.NewReader(b)) }

// Scanner reads records one at a time, so that a long log is never held
// whole. A /dev/kmsg record is returned once its dictionary lines (those
// starting with a space) have been read.
type Scanner struct {
	in       *bufio.Scanner
	line     int
	pending  *Record
	cur      Record
	warnings []error
	err      error
	done     bool
}

// NewScanner returns a Scanner reading r.
func NewScanner(r io.Reader) *Scanner {
	in := bufio.NewScanner(r)
	in.Buffer(make([]byte, 0, 64*1024), MaxLineBytes)
	return &Scanner{in: in}
}

// Scan advances to the next record; it returns false at the end of the
// input or on a fatal error (see Err).
func (s *Scanner) Scan() bool {
	for !s.done {
		if !s.in.Scan() {
			s.done = true
			if err := s.in.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					s.err = fmt.Errorf("%w: line %d: longer than %d bytes", ErrParse, s.line+1, MaxLineBytes)
				} else {
					s.err = fmt.Errorf("kmsg: read after line %d: %w", s.line, err)
				}
			}
			break
		}
		s.line++
		text := strings.TrimRight(s.in.Text(), "\r")
		if strings.HasPrefix(text, " ") && s.pending != nil && s.pending.Format == FormatKmsg {
			addDict(s.pending, text[1:])
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if strings.HasPrefix(text, " ") && isDictLine(text) {
			s.warnings = append(s.warnings, fmt.Errorf("%w: line %d: dictionary line without a /dev/kmsg record: %q", ErrParse, s.line, clip(text)))
			continue
		}
		if s.continues(text) {
			// dmesg prints the further lines of a multi-line record
			// indented under its text.
			s.pending.Text += "\n" + strings.TrimLeft(text, " ")
			continue
		}
		rec, ok, warn := parseLine(text)
		if warn != nil {
			s.warnings = append(s.warnings, fmt.Errorf("%w: line %d: %v: %q", ErrParse, s.line, warn, clip(text)))
		}
		if !ok {
			continue
		}
		rec.Line = s.line
		rec.Source = SourceOf(rec.Text)
		if s.emit(&rec) {
			return true
		}
	}
	return s.emit(nil)
}

// continues reports whether text is an indented further line of the
// pending dmesg record.
func (s *Scanner) continues(text string) bool {
	if s.pending == nil || !strings.HasPrefix(text, " ") {
		return false
	}
	switch s.pending.Format {
	case FormatRaw, FormatPlain, FormatCtime:
	default:
		return false
	}
	t := strings.TrimLeft(text, " ")
	return !strings.HasPrefix(t, "<") && !(strings.HasPrefix(t, "[") && looksStamped(t))
}

// emit queues next and makes the previously queued record current.
func (s *Scanner) emit(next *Record) bool {
	prev := s.pending
	s.pending = next
	if prev == nil {
		return false
	}
	s.cur = *prev
	return true
}

// Record returns the record Scan advanced to.
func (s *Scanner) Record() Record { return s.cur }

// Warnings returns the lines so far that looked like records but did not
// parse, each wrapping ErrParse with its line number.
func (s *Scanner) Warnings() []error { return append([]error(nil), s.warnings...) }

// Err returns the error that ended the scan, nil at a clean end of input.
func (s *Scanner) Err() error { return s.err }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// addDict stores a /dev/kmsg dictionary line ("SUBSYSTEM=pci").
func addDict(r *Record, kv string) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return
	}
	switch k {
	case "SUBSYSTEM":
		r.Subsystem = v
	case "DEVICE":
		r.Device = v
	}
}

// parseLine reads one line; ok is false when it holds no record, warn is
// set when it looked like a record but did not parse.
func parseLine(line string) (rec Record, ok bool, warn error) {
	rec = Record{Priority: -1, Facility: -1}
	if t := strings.TrimLeft(line, " \t"); t != line && (strings.HasPrefix(t, "<") || strings.HasPrefix(t, "[") && looksStamped(t)) {
		line = t // indented in a report or a mail
	}
	switch {
	case isKmsgLine(line):
		return parseKmsg(rec, line)
	case strings.HasPrefix(line, "<"):
		end := strings.IndexByte(line, '>')
		if end < 2 {
			return rec, false, errors.New("unterminated <priority>")
		}
		n, err := strconv.Atoi(line[1:end])
		if err != nil || n < 0 || n > 1023 {
			return rec, false, fmt.Errorf("bad priority %q", line[1:end])
		}
		rec.Priority, rec.Facility = n&7, n>>3
		rec.Format = FormatRaw
		rest := line[end+1:]
		if strings.HasPrefix(rest, "[") {
			rest, warn = parseStamp(&rec, rest)
		}
		rec.Text = rest
		return rec, warn == nil, warn
	case strings.HasPrefix(line, "[") && looksStamped(line):
		rec.Format = FormatPlain
		rest, warn := parseStamp(&rec, line)
		if warn != nil {
			return rec, false, warn
		}
		rec.Text = rest
		return rec, true, nil
	}
	if host, rest, ok := cutHostPrefix(line); ok {
		rec, ok, warn = parseLine(rest)
		rec.Host = host
		return rec, ok, warn
	}
	if r, ok := parseSyslog(rec, line); ok {
		return r, true, nil
	}
	if syslogOther.MatchString(line) {
		return rec, false, nil // a syslog line of another program
	}
	rec.Format = FormatBare
	rec.Text = line
	return rec, true, nil
}

// isKmsgLine reports whether line starts like a /dev/kmsg record: digits,
// then a header without spaces holding three commas before a ';' (the
// header is checked by parseKmsg, which warns when it is bad).
func isKmsgLine(line string) bool {
	if line == "" || line[0] < '0' || line[0] > '9' {
		return false
	}
	commas := 0
	for i := 1; i < len(line) && i < 128; i++ {
		switch line[i] {
		case ',':
			commas++
		case ';':
			return commas >= 3
		case ' ', '\t':
			return false
		}
	}
	return false
}

// parseKmsg reads "PRI,SEQ,USEC,FLAGS[,...];TEXT".
func parseKmsg(rec Record, line string) (Record, bool, error) {
	head, text, _ := strings.Cut(line, ";")
	f := strings.Split(head, ",")
	if len(f) < 4 {
		return rec, false, errors.New("kmsg header has fewer than 4 fields")
	}
	pri, err1 := strconv.Atoi(f[0])
	seq, err2 := strconv.ParseUint(f[1], 10, 64)
	usec, err3 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || pri < 0 || pri > 1023 {
		return rec, false, fmt.Errorf("bad kmsg header %q", head)
	}
	rec.Format = FormatKmsg
	rec.Priority, rec.Facility = pri&7, pri>>3
	rec.Seq, rec.HasSeq = seq, true
	rec.Micros, rec.HasTime = usec, true
	rec.Continued = strings.Contains(f[3], "c")
	rec.Text = unescapeKmsg(text)
	return rec, true, nil
}

// unescapeKmsg decodes the \xNN escapes /dev/kmsg uses for non-printable
// bytes.
func unescapeKmsg(s string) string {
	if !strings.Contains(s, `\x`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if n, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// looksStamped reports whether a line starting with "[" holds a timestamp
// there (a digit or space: "[ 12.3]", or a weekday: "[Mon Nov"), rather
// than text such as "[Firmware Bug]: ...".
func looksStamped(line string) bool {
	if len(line) < 2 {
		return false
	}
	if c := line[1]; c == ' ' || (c >= '0' && c <= '9') {
		return true
	}
	if len(line) >= 5 && line[4] == ' ' {
		switch line[1:4] {
		case "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun":
			return true
		}
	}
	return false
}

// isDictLine reports whether a line indented by one space is a /dev/kmsg
// dictionary entry (" SUBSYSTEM=pci").
func isDictLine(line string) bool {
	k, _, ok := strings.Cut(line[1:], "=")
	if !ok || k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'A' && c <= 'Z' || c == '_' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cutHostPrefix splits "node1: [ 12.3] text" (pdsh, clush) into the host
// and the rest, when the rest is a stamped or prioritised record; a shell
// prompt "host> " before a console record is dropped.
func cutHostPrefix(line string) (host, rest string, ok bool) {
	i := strings.IndexAny(line, ":>")
	if i <= 0 || i > 64 || i+1 >= len(line) || line[i+1] != ' ' || strings.ContainsAny(line[:i], " []<>") {
		return "", "", false
	}
	rest = line[i+2:]
	if strings.HasPrefix(rest, "[") && looksStamped(rest) || strings.HasPrefix(rest, "<") && strings.IndexByte(rest, '>') > 1 {
		if line[i] == '>' {
			return "", rest, true // a shell prompt ("SynologyNAS> ") on a console
		}
		return line[:i], rest, true
	}
	return "", "", false
}
