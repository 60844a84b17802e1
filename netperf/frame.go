package netperf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// line is one input line without its line break (and without a trailing
// "\r"), with its 1-based number.
type line struct {
	n    int
	text string
}

// splitLines cuts s into lines. A final line without "\n" counts.
func splitLines(s string) []line {
	lines := make([]line, 0, strings.Count(s, "\n")+1)
	for n := 1; s != ""; n++ {
		i := strings.IndexByte(s, '\n')
		var t string
		if i < 0 {
			t, s = s, ""
		} else {
			t, s = s[:i], s[i+1:]
		}
		lines = append(lines, line{n: n, text: strings.TrimSuffix(t, "\r")})
	}
	return lines
}

// frame holds what any netperf output may carry around its result, found
// in a first pass over the lines: the banner, the "!!!" confidence block,
// demo-mode interim lines, netperf's diagnostics and failure messages.
// The lines left over (blank lines included, for the human form's block
// separators) are body, for the form's own parser.
type frame struct {
	res      *Result
	in       *input
	body     []line
	failures []failureLine
	nlines   int
	perr     *ParseError
}

type failureLine struct {
	line
	kind Kind
}

// readAll reads r line by line (see readInput), keeping its interim
// results in the Result.
func readAll(r io.Reader) (*input, error) {
	return readInput(r, nil)
}

func newFrame(in *input, form Form) *frame {
	f := &frame{res: &Result{Form: form}, in: in}
	f.res.Warnings = append(f.res.Warnings, in.warnings...)
	f.res.Interims = in.interims
	lines := in.lines
	f.nlines = in.nlines
	f.body = make([]line, 0, len(lines))
	if in.perr != nil && errors.Is(in.perr, ErrTooLarge) {
		f.perr = in.perr
	}
	sawText := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := leadTrim(l.text)
		first := false // the first line with text: a pasted command?
		if strings.TrimSpace(t) != "" {
			first, sawText = !sawText, true
		}
		switch {
		case strings.TrimSpace(t) == "":
			f.body = append(f.body, l)
		case first && isCommandLine(t):
			// A paste that starts with the command that ran netperf
			// ("$ kubectl exec pod -- netperf -H ..."): not output.
			f.warnf(l.n, "command line skipped: %q", clip(l.text))
		case strings.HasPrefix(t, "!!!"):
			i = f.confidenceBlock(lines, i) - 1
		case strings.HasPrefix(t, "Interim result:"):
			f.setErr(l, "malformed interim result")
		case strings.HasPrefix(t, "Netperf version "):
			f.res.Version = strings.TrimSpace(strings.TrimPrefix(t, "Netperf version "))
		case isSelectorLine(t):
			f.body = append(f.body, l)
		case f.diagnostic(l):
		default:
			if took := f.banner(lines, i); took > 0 {
				i += took - 1
				continue
			}
			if k, ok := classifyFailureLine(t); ok {
				f.failures = append(f.failures, failureLine{l, k})
				if k == KindBadOption && strings.HasPrefix(t, "Usage: netperf ") {
					// The usage text runs to the end of the output.
					i = len(lines)
				}
				continue
			}
			f.body = append(f.body, l)
		}
	}
	return f
}

// banner takes the first banner line, joined with its wrapped rest
// (lines[i+1]) when a page or mailer wrapped it; a second banner is kept
// as a warning. It returns how many lines it took (0: not a banner).
func (f *frame) banner(lines []line, i int) int {
	l := lines[i]
	b, incomplete, ok := parseBanner(l.text)
	if !ok {
		return 0
	}
	took := 1
	if incomplete && i+1 < len(lines) && bannerContinues(lines[i+1].text) {
		if joined, _, ok := parseBanner(b.Text + " " + strings.TrimSpace(lines[i+1].text)); ok {
			b, took = joined, 2
			f.warnf(l.n, "banner wrapped onto line %d: joined", lines[i+1].n)
		}
	}
	if f.res.Banner != nil {
		f.warnf(l.n, "a second banner (%s): only the first test is parsed", b.Title)
		return took
	}
	f.res.Banner = b
	f.res.Test = b.Test()
	if hw, level, ok := b.confidence(); ok {
		f.confidence().LevelPercent = level
		f.confidence().TargetWidthPercent = 2 * hw
	}
	return took
}

// diagnostic turns netperf's informational lines into warnings.
func (f *frame) diagnostic(l line) bool {
	t := leadTrim(l.text)
	switch {
	case strings.HasPrefix(t, "enable_enobufs failed"):
		f.warnf(l.n, "netperf: %s (UDP send errors are not counted)", strings.TrimSpace(t))
	case strings.HasPrefix(t, "Sorry, Demo Mode not configured"):
		f.warnf(l.n, "netperf: %s", strings.TrimSpace(t))
	case strings.HasPrefix(t, "tcpi_"):
		// DUMP_TCP_INFO lines, on stderr.
	default:
		return false
	}
	return true
}

func (f *frame) confidence() *Confidence {
	if f.res.Confidence == nil {
		f.res.Confidence = &Confidence{Achieved: true}
	}
	return f.res.Confidence
}

// confidenceBlock reads the "!!! WARNING" block that classic output prints
// when the confidence interval was not reached, and returns the index of
// the first line after it.
func (f *frame) confidenceBlock(lines []line, i int) int {
	c := f.confidence()
	c.Achieved = false
	first := lines[i].n
	for ; i < len(lines) && strings.HasPrefix(leadTrim(lines[i].text), "!!!"); i++ {
		t := lines[i].text
		_, val, ok := strings.Cut(t, " : ")
		if !ok {
			continue
		}
		v, special, ok := parseNumber(strings.TrimSuffix(strings.TrimSpace(val), "%"))
		if !ok {
			f.setErr(lines[i], "confidence interval is not a number")
			continue
		}
		if special {
			f.warnf(lines[i].n, "confidence interval is %v", v)
		}
		switch {
		case strings.Contains(t, "Throughput"):
			c.ThroughputWidthPercent = float64p(v)
		case strings.Contains(t, "Local CPU"):
			c.LocalCPUWidthPercent = float64p(v)
		case strings.Contains(t, "Remote CPU"):
			c.RemoteCPUWidthPercent = float64p(v)
		}
	}
	msg := "netperf: desired confidence was not achieved within the specified iterations"
	if c.ThroughputWidthPercent != nil {
		msg += fmt.Sprintf(" (throughput interval %.3f%%", *c.ThroughputWidthPercent)
		if c.TargetWidthPercent > 0 {
			msg += fmt.Sprintf(", wanted %.3f%%", c.TargetWidthPercent)
		}
		msg += ")"
	}
	f.warnf(first, "%s", msg)
	return i
}

// setErr records the first parse error.
func (f *frame) setErr(l line, msg string) {
	if f.perr == nil {
		f.perr = newParseError(l.n, l.text, msg)
	}
}

// lineText is the text of line n, for errors.
func (f *frame) lineText(n int) string {
	for _, l := range f.body {
		if l.n == n {
			return l.text
		}
	}
	return ""
}

func (f *frame) warnf(n int, format string, args ...any) {
	f.res.Warnings = append(f.res.Warnings, Warning{Line: n, Text: fmt.Sprintf(format, args...)})
}

// warnSpecial flags an inf or nan value.
func (f *frame) warnSpecial(n int, what string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		f.warnf(n, "%s is %v", what, v)
	}
}

// finish decides between the result, netperf's failure and a parse error.
// hasResult says whether the form's parser found a result.
func (f *frame) finish(hasResult bool) (*Result, error) {
	res := f.res
	if res.Version != "" && !hasResult && res.Banner == nil && len(f.failures) == 0 {
		res.Form = FormVersion
		return res, nil
	}
	if len(f.failures) > 0 {
		if !hasResult {
			first := f.failures[0]
			res.Form = FormError
			return res, &Error{Kind: first.kind, Message: strings.TrimSpace(first.text), Line: first.n, Raw: f.in.raw()}
		}
		for _, fl := range f.failures {
			f.warnf(fl.n, "netperf reported (the test still ran): %s", strings.TrimSpace(fl.text))
		}
	}
	if f.perr == nil && f.in.perr != nil {
		f.perr = f.in.perr // found while reading: an interim result
	}
	if f.perr != nil {
		return res, f.perr
	}
	if !hasResult {
		pe := newParseError(f.nlines+1, "", "no netperf result in the input")
		switch {
		case f.in.ninterims > 0:
			pe = newParseError(f.nlines+1, "", "truncated: interim results without the final result")
		case res.Banner != nil:
			pe = newParseError(f.nlines+1, "", "truncated: no result after the banner")
		}
		pe.Err = errors.Join(pe.Err, ErrNoResult)
		return res, pe
	}
	return res, nil
}
