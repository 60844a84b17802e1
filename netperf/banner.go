package netperf

import (
	"strconv"
	"strings"
)

// bannerTests maps banner titles (without "MIGRATED ") to test names.
// The MIGRATED titles come from nettest_omni.c, the others from
// nettest_bsd.c (netperf built with --enable-omni=no).
var bannerTests = map[string]string{
	"TCP STREAM TEST":                   "TCP_STREAM",
	"TCP MAERTS TEST":                   "TCP_MAERTS",
	"TCP SENDFILE TEST":                 "TCP_SENDFILE",
	"TCP REQUEST/RESPONSE TEST":         "TCP_RR",
	"TCP Connect/Request/Response TEST": "TCP_CRR",
	"TCP Connect/Close TEST":            "TCP_CC",
	"TCP MSS TEST":                      "TCP_MSS",
	"UDP STREAM TEST":                   "UDP_STREAM",
	"UDP UNIDIRECTIONAL SEND TEST":      "UDP_STREAM",
	"UDP REQUEST/RESPONSE TEST":         "UDP_RR",
}

// parseBanner recognises netperf's banner line: "TITLE from ADDR (ADDR)
// port N FAMILY to ADDR (ADDR) port N FAMILY[ : option]..." (2.4 and
// later, "MIGRATED TITLE ..." from 2.5 on), or the banner of netperf
// before 2.4, "TITLE to HOST[ : option]...". Leading blanks (a page's
// indentation) and a "^C" echoed by the terminal are skipped. A banner
// that a page or mailer wrapped (no " to " part, or no "port" after it)
// is returned with incomplete set, for the caller to join with the next
// line.
func parseBanner(s string) (b *Banner, incomplete, ok bool) {
	s = strings.TrimSpace(leadTrim(s))
	title, rest, found := strings.Cut(s, " from ")
	legacy := false
	if !found || !strings.HasSuffix(title, " TEST") {
		title, rest, found = strings.Cut(s, " TEST to ")
		if !found || !legacyTitle(title+" TEST") {
			return nil, false, false
		}
		title, rest, legacy = title+" TEST", "to "+rest, true
	}
	b = &Banner{Text: s, Title: title, Legacy: legacy}
	parts := strings.Split(rest, " : ")
	for _, p := range parts[1:] {
		if p = strings.TrimSpace(p); p != "" {
			b.Options = append(b.Options, p)
		}
	}
	if d, ok := strings.CutPrefix(title, "OMNI "); ok {
		b.Direction = strings.TrimSuffix(d, " TEST")
	}
	if !legacy {
		head := strings.TrimSuffix(parts[0], " to") + " "
		_, to, hasTo := strings.Cut(head, " to ")
		incomplete = !hasTo || !strings.Contains(to, " port ")
	}
	return b, incomplete, true
}

// legacyTitle reports whether a title is one that netperf before 2.4
// printed as "TITLE to HOST": the classic titles, and their XTI, SCTP,
// DLPI and Unix-domain cousins (upper-case words ending in TEST). Prose
// such as "Ran the TCP TEST to see" does not match: its words are not
// all upper case.
func legacyTitle(title string) bool {
	if _, ok := bannerTests[title]; ok {
		return true
	}
	words := strings.Fields(title)
	if len(words) < 2 || len(words) > 6 {
		return false
	}
	for _, w := range words {
		if strings.ToUpper(w) != w {
			return false
		}
	}
	return true
}

// bannerContinues reports whether a line is the wrapped rest of an
// incomplete banner: "to 192.168.10.20 () port 0 AF_INET", "port 0
// AF_INET", or the remote part after a banner cut after its " to"
// ("10.200.0.1 () port 0 AF_INET : demo").
func bannerContinues(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "to ") || strings.HasPrefix(t, "port ") || strings.Contains(t, " AF_")
}

// leadTrim drops what can stand before a netperf line in a pasted
// output: blanks and tabs (a page's indentation) and the "^C" a terminal
// echoes when netperf is stopped with Ctrl-C.
func leadTrim(s string) string {
	s = strings.TrimLeft(s, " \t")
	return strings.TrimPrefix(s, "^C")
}

// Test returns the netperf test name the banner's title stands for:
// "TCP_STREAM", "UDP_RR", "OMNI"; "" for a title this package does not
// know.
func (b *Banner) Test() string {
	if b == nil {
		return ""
	}
	if b.Direction != "" || strings.HasPrefix(b.Title, "OMNI ") {
		return "OMNI"
	}
	return bannerTests[strings.TrimPrefix(b.Title, "MIGRATED ")]
}

// confidence reads the banner's " : +/-2.500% @ 99% conf." option: the
// half width in percent and the level.
func (b *Banner) confidence() (halfWidth float64, level int, ok bool) {
	if b == nil {
		return 0, 0, false
	}
	for _, o := range b.Options {
		rest, found := strings.CutPrefix(o, "+/-")
		if !found {
			continue
		}
		w, rest, found := strings.Cut(rest, "% @ ")
		if !found {
			continue
		}
		l, _, found := strings.Cut(rest, "%")
		if !found {
			continue
		}
		hw, err1 := strconv.ParseFloat(strings.TrimSpace(w), 64)
		lv, err2 := strconv.Atoi(strings.TrimSpace(l))
		if err1 != nil || err2 != nil {
			continue
		}
		return hw, lv, true
	}
	return 0, 0, false
}

// testFamily says what kind of test a name is, for the defaults netperf
// uses when it prints no unit.
type testFamily int

const (
	familyUnknown testFamily = iota
	familyStream             // TCP_STREAM, TCP_MAERTS, TCP_SENDFILE, UDP_STREAM
	familyRR                 // TCP_RR, UDP_RR, TCP_CRR, TCP_CC
)

func familyOf(test string) testFamily {
	switch {
	case test == "":
		return familyUnknown
	case strings.Contains(test, "RR") || strings.HasSuffix(test, "_CC"):
		return familyRR
	case strings.Contains(test, "STREAM") || strings.Contains(test, "MAERTS") || test == "TCP_SENDFILE":
		return familyStream
	}
	return familyUnknown
}
