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
// port N FAMILY to ADDR (ADDR) port N FAMILY[ : option]...".
func parseBanner(s string) (*Banner, bool) {
	title, rest, ok := strings.Cut(s, " from ")
	if !ok || !strings.HasSuffix(title, " TEST") || !strings.Contains(rest, " to ") {
		return nil, false
	}
	b := &Banner{Text: s, Title: title}
	parts := strings.Split(rest, " : ")
	for _, p := range parts[1:] {
		if p = strings.TrimSpace(p); p != "" {
			b.Options = append(b.Options, p)
		}
	}
	if d, ok := strings.CutPrefix(title, "OMNI "); ok {
		b.Direction = strings.TrimSuffix(d, " TEST")
	}
	return b, true
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
