package netperf

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Detect tells which form a netperf output is, from its text: classic
// table, omni -k, -o or -O, netperf's failure message, or netperf -V.
// It looks past the banner, the "!!!" confidence block, demo-mode interim
// lines and netperf's diagnostics. Output that has a banner but nothing
// else is FormClassic (ParseClassic then reports it truncated).
//
// Two outputs cannot be told apart by their text: a headerless (-P 0)
// -o or -O with a single numeric selector looks like -v 0, and is
// reported as FormClassic; call ParseCSV or ParseHuman directly for them.
func Detect(data []byte) Form {
	return detect(string(data))
}

func detect(s string) Form { return detectInput(readString(s)) }

func detectInput(in *input) Form {
	// Interim lines are taken by the reading; only -k and -o print them
	// in their own forms, before anything else.
	switch {
	case in.sawKeyVal:
		return FormKeyVal
	case in.sawCSV:
		return FormCSV
	}
	// stray is set by a line that is nothing netperf prints: a bare
	// number after it is not -v 0 output ("hello world\n7\n").
	var banner, version, failed, wrapped, stray, sawText bool
	lines := in.lines
	for i, l := range lines {
		next := ""
		if i+1 < len(lines) {
			next = lines[i+1].text
		}
		t := leadTrim(l.text)
		trimmed := strings.TrimSpace(t)
		firstText := !sawText && trimmed != ""
		if wrapped {
			wrapped = false
			if bannerContinues(t) {
				continue
			}
		}
		if trimmed != "" {
			sawText = true
		}
		switch {
		case trimmed == "", strings.HasPrefix(t, "!!!"), strings.HasPrefix(t, "Interim result:"),
			strings.HasPrefix(t, "enable_enobufs failed"), strings.HasPrefix(t, "Sorry, Demo Mode"),
			strings.HasPrefix(t, "tcpi_"):
			continue
		case strings.HasPrefix(t, "Netperf version "):
			version = true
			continue
		case firstText && isCommandLine(t): // the command of a paste, not output
			continue
		case isSelectorLine(t):
			return FormKeyVal
		case isCSVTitleLine(trimmed) && !blankLine(next):
			return FormCSV // -o with one selector: "Round Trip Latency usec/tran"
		}
		if _, incomplete, ok := parseBanner(t); ok {
			banner, wrapped = true, incomplete
			continue
		}
		if wordsPrefix(t, titleStream) || wordsEqual(t, titleRR) || wordsPrefix(t, titleUDP) {
			return FormClassic
		}
		if k, ok := classifyFailureLine(t); ok {
			failed = true
			if k == KindBadOption && strings.HasPrefix(t, "Usage: netperf ") {
				break
			}
			continue
		}
		first, nextw := nextWord(t, 0)
		switch {
		case failed:
			// Text after a failure message is part of it ("Please
			// verify that you have the correct test name, ...").
			if isNumber(first) && !strings.Contains(t, ",") {
				return FormClassic
			}
		case strings.Contains(t, ",") && looksCSV(t):
			return FormCSV
		case isNumber(first) && !stray:
			if second, _ := nextWord(t, nextw); isUnitToken(second) {
				return FormHuman // -P 0 -O: "12068.49   10^6bits/s  TCP"
			}
			if numericLine(t) || terseWithBrand(first, t) {
				return FormClassic
			}
			stray = true
		case startsWithHeaderWord(t):
			return FormHuman
		default:
			stray = true
		}
	}
	switch {
	case failed:
		return FormError
	case version:
		return FormVersion
	case banner, in.ninterims > 0:
		return FormClassic // ParseClassic reports it truncated
	}
	return FormUnknown
}

// isCSVTitleLine reports whether a line is the -o header of a single
// selector ("Round Trip Latency usec/tran", "Throughput"): with one
// selector there is no comma to tell it by. -O prints such a title over
// four lines, so a title that is a whole -o header and is followed by a
// value line (not by -O's blank-padded lines) is -o.
func isCSVTitleLine(t string) bool {
	if strings.Contains(t, ",") {
		return false
	}
	_, ok := byCSVHeader[t]
	return ok
}

func blankLine(s string) bool { return strings.TrimSpace(s) == "" }

// looksCSV reports whether a line with commas is -o output: every field
// a known -o header (the header line), or some field a number or a header
// and no other field with a blank in it (values are single tokens; prose
// with commas, such as "-qps 1,2,4,8" in a sentence, has words).
func looksCSV(s string) bool {
	fields := splitCSV(s)
	known, numeric, worded := 0, 0, 0
	for _, f := range fields {
		switch _, ok := byCSVHeader[f]; {
		case ok:
			known++
		case isNumber(f):
			numeric++
		case strings.ContainsAny(strings.TrimSpace(f), " \t"):
			worded++
		}
	}
	return known == len(fields) || (known+numeric > 0 && worded == 0)
}

// Parse detects the form of a netperf output (see Detect) and parses it
// with ParseClassic, ParseKeyVal, ParseCSV or ParseHuman. A failure
// message gives a Result with Form FormError and an *Error; the output of
// netperf -V a Result with Form FormVersion. Input Detect cannot place
// gives a nil Result and an error wrapping ErrUnrecognized.
//
// Similar to: netperf ... | tee out.txt, then reading out.txt by eye.
func Parse(r io.Reader) (*Result, error) {
	return ParseStream(r, nil)
}

// ParseStream is Parse for outputs of any length: it reads r line by
// line, and hands each demo-mode interim result (-D) to interim as it is
// read instead of keeping it in Result.Interims (a nil interim keeps
// them, as Parse does). Besides the interim results it keeps at most
// MaxKeptBytes of text and reads lines of at most MaxLineBytes, so its
// memory stays bounded whatever r holds: past either bound it stops with
// a *ParseError wrapping ErrTooLarge (or ErrUnrecognized when what it read
// is no netperf output).
//
// Similar to: netperf -D 1 -l 86400 ... | while read line; do ...; done
func ParseStream(r io.Reader, interim func(Interim)) (*Result, error) {
	in, err := readInput(r, interim)
	if err != nil {
		return nil, err
	}
	switch detectInput(in) {
	case FormClassic:
		return parseClassicInput(in)
	case FormKeyVal:
		return parseKeyValInput(in)
	case FormCSV:
		return parseCSVInput(in, nil)
	case FormHuman:
		return parseHumanInput(in, nil)
	case FormError, FormVersion:
		return newFrame(in, FormUnknown).finish(false)
	}
	if in.perr != nil && errors.Is(in.perr, ErrTooLarge) {
		return nil, fmt.Errorf("%w: %w", ErrUnrecognized, in.perr)
	}
	if in.nlines == 0 || allBlank(in.lines) {
		return nil, fmt.Errorf("%w: empty input", ErrUnrecognized)
	}
	return nil, fmt.Errorf("%w: not a netperf output this package knows", ErrUnrecognized)
}

func allBlank(lines []line) bool {
	for _, l := range lines {
		if strings.TrimSpace(l.text) != "" {
			return false
		}
	}
	return true
}

// isCommandLine reports whether a line is the command that ran netperf,
// pasted with its output ("$ netperf -H host -t TCP_RR", "kubectl exec
// pod -- netperf -H 10.0.0.2 -- -O THROUGHPUT"): a word netperf (or a path
// to it) followed by an option.
func isCommandLine(t string) bool {
	fs := strings.Fields(t)
	for i, w := range fs {
		if (w == "netperf" || strings.HasSuffix(w, "/netperf")) && i+1 < len(fs) && strings.HasPrefix(fs[i+1], "-") {
			_, failure := classifyFailureLine(t)
			_, _, banner := parseBanner(t)
			return !failure && !banner
		}
	}
	return false
}

// terseWithBrand reports whether a line is -v 0's "%7.2f %s": a number
// with two decimals followed by a -B brand of any words ("9457.59 -b 0").
// Prose rarely starts with such a number; a comma (CSV) rules it out.
func terseWithBrand(first, t string) bool {
	_, frac, ok := strings.Cut(first, ".")
	return ok && len(frac) == 2 && !strings.Contains(t, ",") && isNumber(first)
}

// numericLine reports whether every field of a line is a number, but for
// an optional last word: a -B brand or the CPU method letter of -v 0
// ("1.302 S"). Prose that happens to start with a number is not a table.
func numericLine(t string) bool {
	f := strings.Fields(t)
	for i, w := range f {
		if !isNumber(w) && i != len(f)-1 {
			return false
		}
	}
	return len(f) > 0
}
