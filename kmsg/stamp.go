package kmsg

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ctimeLayout is dmesg -T's "%a %b %e %H:%M:%S %Y".
const ctimeLayout = "Mon Jan _2 15:04:05 2006"

// parseStamp reads a leading "[ 1234.567890]" (monotonic seconds) or
// "[Mon Nov 30 12:00:00 2026]" (dmesg -T) and returns the text after it
// with one following space removed.
func parseStamp(rec *Record, s string) (string, error) {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return s, errors.New("unterminated [timestamp]")
	}
	inner := strings.TrimSpace(s[1:end])
	rest := strings.TrimPrefix(s[end+1:], " ")
	if us, ok := parseSeconds(inner); ok {
		rec.Micros, rec.HasTime = us, true
		return rest, nil
	}
	if t, err := time.Parse(ctimeLayout, inner); err == nil {
		rec.Wall = t
		if rec.Format == FormatPlain {
			rec.Format = FormatCtime
		}
		return rest, nil
	}
	return s, fmt.Errorf("bad timestamp %q", clip(inner))
}

// parseSeconds reads "1234.567890" as microseconds.
func parseSeconds(s string) (int64, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	if sec == "" || len(sec) > 12 || len(frac) > 9 {
		return 0, false
	}
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	us := n * 1e6
	if frac != "" {
		f, err := strconv.ParseUint(frac, 10, 64)
		if err != nil {
			return 0, false
		}
		for i := len(frac); i < 6; i++ {
			f *= 10
		}
		for i := len(frac); i > 6; i-- {
			f /= 10
		}
		us += int64(f)
	}
	return us, true
}

// syslogLine matches the head of a syslog or journal line tagged
// "kernel:": "Jul 23 16:18:53 host kernel: ", "Aug 24 21:45:20.428738 host
// kernel: " (journalctl -o short-precise), "Tue Feb 28 10:08:36 2023
// kern.warn kernel: " (OpenWrt logread).
var syslogLine = regexp.MustCompile(`^((?:[A-Z][a-z]{2} )?[A-Z][a-z]{2} [ 0-9]?[0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?: [0-9]{4})?) (?:\S+ ){1,2}kernel: `)

// syslogOther matches the head of any syslog or journal line, to skip the
// lines of other programs in a journal.
var syslogOther = regexp.MustCompile(`^(?:[A-Z][a-z]{2} )?[A-Z][a-z]{2} [ 0-9]?[0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?: [0-9]{4})? \S+ \S+`)

var syslogLayouts = []string{
	"Jan _2 15:04:05",
	"Jan _2 15:04:05.000000",
	"Mon Jan _2 15:04:05 2006",
}

// parseSyslog reads a syslog line whose tag is kernel:, with an optional
// "[ 1.2]" monotonic stamp after the tag.
func parseSyslog(rec Record, line string) (Record, bool) {
	m := syslogLine.FindStringSubmatchIndex(line)
	if m == nil {
		return rec, false
	}
	date := line[m[2]:m[3]]
	for _, l := range syslogLayouts {
		if t, err := time.Parse(l, date); err == nil {
			rec.Wall = t
			break
		}
	}
	rec.Format = FormatSyslog
	rest := line[m[1]:]
	if strings.HasPrefix(rest, "[") {
		if r, err := parseStamp(&rec, rest); err == nil {
			rest = r
		}
	}
	rec.Text = rest
	return rec, true
}
