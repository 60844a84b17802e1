package netperf

import "strings"

// selectorHeader is one omni selector and its four header lines.
type selectorHeader struct {
	name  string
	lines [4]string
}

// joined is the selector's -o (CSV) header: the lines up to the first
// empty one, joined with spaces ("Throughput Units").
func (h selectorHeader) joined() string { return headerJoined[h.name] }

// width is the widest of the header lines.
func (h selectorHeader) width() int {
	w := 0
	for _, l := range h.lines {
		w = max(w, len(l))
	}
	return w
}

// headerJoined holds each selector's -o header, computed once.
var headerJoined = func() map[string]string {
	m := make(map[string]string, len(selectorHeaders))
	for _, h := range selectorHeaders {
		var parts []string
		for _, l := range h.lines {
			if l == "" {
				break
			}
			parts = append(parts, l)
		}
		m[h.name] = strings.Join(parts, " ")
	}
	return m
}()

// byCSVHeader maps -o headers to the indexes of the selectors that print
// them (two pairs of deprecated selectors share a header). It is built
// once and never changed.
var byCSVHeader = func() map[string][]int {
	m := make(map[string][]int, len(selectorHeaders))
	for i, h := range selectorHeaders {
		j := h.joined()
		m[j] = append(m[j], i)
	}
	return m
}()

// knownSelector holds the netperf 2.7 omni selector names.
var knownSelector = func() map[string]bool {
	m := make(map[string]bool, len(selectorHeaders))
	for _, h := range selectorHeaders {
		m[h.name] = true
	}
	return m
}()

// warnUnknownNames flags selector names given for headerless output that
// netperf 2.7 does not know: netperf drops those from the list silently,
// so the values after them would be misnamed.
func warnUnknownNames(f *frame, n int, names []string) {
	for _, name := range names {
		if !knownSelector[strings.ToUpper(strings.TrimSpace(name))] {
			f.warnf(n, "%q is not a netperf 2.7 selector: netperf drops unknown selectors, so the values after it may be misnamed", name)
		}
	}
}

// selectorForHeader returns the selector name for a -o header, "" when
// unknown. For the headers two selectors share (REMOTE_SECURITY_TYPE and
// REMOTE_SECURITY_TYPE_ID, REMOTE_SECURITY_ENABLED and
// REMOTE_SECURITY_ENABLED_NUM), a numeric value picks the numeric one.
func selectorForHeader(header, value string) string {
	idx := byCSVHeader[header]
	switch len(idx) {
	case 0:
		return ""
	case 1:
		return selectorHeaders[idx[0]].name
	}
	numeric := isNumber(value)
	for _, i := range idx {
		n := selectorHeaders[i].name
		if numeric == (strings.HasSuffix(n, "_NUM") || strings.HasSuffix(n, "_ID")) {
			return n
		}
	}
	return selectorHeaders[idx[0]].name
}
