package netperf

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/internal/warnjson"
)

// The real-world corpus: netperf outputs of other hosts and other netperf
// versions (before 2.4 to 2.7), found in mailing lists, issues, the
// netperf manual and other projects' test data, stored verbatim in
// ../testdata/realworld/netperf/CASE/output.txt with a source.json.

const realworldDir = "../testdata/realworld/netperf"

// realGot is what a corpus case parses to, in the terms of the text:
// every number as printed, nil or empty when the text has none.
type realGot struct {
	Form    Form
	Test    string
	Legacy  bool    // banner of netperf before 2.4
	Tput    float64 // Result.Throughput.Value (0 when nil)
	Unit    Unit    // Result.Throughput.Unit
	TPS     float64 // Result.TransPerSec (0 when nil)
	Sockets []int   // stream: recv, send; RR: local send, recv, remote send, recv; UDP: send, recv
	Msg     []int   // stream and UDP: message size; RR: request, response
	Elapsed float64 // seconds, first data line
	CPU     []float64
	UDP     []uint64 // sent, received
	Conf    string   // "", "achieved", "missed"
	Interim int
	Terse   float64           // -v 0's number
	Brand   string            // -B brand of -P 0 / -v 0 lines
	Sel     map[string]string // omni selectors as printed
	ErrKind Kind              // *Error kind
	ErrLine int               // *ParseError or *Error line
}

// realCase is one corpus case: what it must parse to, and substrings of
// its warnings (in order; the Result has exactly that many).
type realCase struct {
	want realGot
	warn []string
}

func gotOf(res *Result, err error) realGot {
	g := realGot{}
	var fe *Error
	var pe *ParseError
	switch {
	case errors.As(err, &fe):
		g.ErrKind, g.ErrLine = fe.Kind, fe.Line
	case errors.As(err, &pe):
		g.ErrLine = pe.Line
	}
	if res == nil {
		return g
	}
	g.Form, g.Test, g.Interim = res.Form, res.Test, len(res.Interims)
	g.Legacy = res.Banner != nil && res.Banner.Legacy
	if res.Throughput != nil {
		g.Tput, g.Unit = res.Throughput.Value, res.Throughput.Unit
	}
	if res.TransPerSec != nil {
		g.TPS = *res.TransPerSec
	}
	if res.UDP != nil {
		g.UDP = []uint64{res.UDP.Sent, res.UDP.Received}
	}
	if c := res.Confidence; c != nil {
		g.Conf = map[bool]string{true: "achieved", false: "missed"}[c.Achieved]
	}
	if c := res.Classic; c != nil {
		classicGot(&g, c)
	}
	if res.Omni != nil {
		g.Sel = map[string]string{}
		for _, s := range res.Omni.Selectors {
			g.Sel[s.Name] = s.Value
		}
	}
	return g
}

func classicGot(g *realGot, c *Classic) {
	cpu := func(cs ...*CPU) {
		for _, x := range cs {
			if x != nil {
				g.CPU = append(g.CPU, x.UtilPercent)
			}
		}
	}
	g.Brand = c.Brand
	switch {
	case c.Terse != nil:
		g.Terse = c.Terse.Value
	case c.Stream != nil:
		r := c.Stream
		g.Sockets, g.Msg, g.Elapsed = []int{r.RecvSocketBytes, r.SendSocketBytes}, []int{r.SendMessageBytes}, r.ElapsedSec
		cpu(r.LocalCPU, r.RemoteCPU)
	case c.RR != nil:
		r := c.RR
		g.Sockets = []int{r.LocalSendSocketBytes, r.LocalRecvSocketBytes, r.RemoteSendSocketBytes, r.RemoteRecvSocketBytes}
		g.Msg, g.Elapsed = []int{r.RequestBytes, r.ResponseBytes}, r.ElapsedSec
		cpu(r.LocalCPU, r.RemoteCPU)
	case c.UDPSend != nil && c.UDPRecv != nil:
		g.Sockets = []int{c.UDPSend.SocketBytes, c.UDPRecv.SocketBytes}
		g.Msg, g.Elapsed = []int{c.UDPSend.MessageBytes}, c.UDPSend.ElapsedSec
		cpu(c.UDPSend.CPU, c.UDPRecv.CPU)
	}
}

// Shorthands for the table.
func stream(test string, tput float64, unit Unit, recv, send, msg int, elapsed float64) realGot {
	return realGot{Form: FormClassic, Test: test, Tput: tput, Unit: unit, Sockets: []int{recv, send}, Msg: []int{msg}, Elapsed: elapsed}
}

func rr(test string, rate float64, sockets [4]int, req, resp int, elapsed float64) realGot {
	return realGot{Form: FormClassic, Test: test, Tput: rate, Unit: UnitTransPerSec, TPS: rate, Sockets: sockets[:], Msg: []int{req, resp}, Elapsed: elapsed}
}

func udp(tput float64, unit Unit, send, recv, msg int, elapsed float64, sent, received uint64) realGot {
	return realGot{Form: FormClassic, Test: "UDP_STREAM", Tput: tput, Unit: unit, Sockets: []int{send, recv}, Msg: []int{msg}, Elapsed: elapsed, UDP: []uint64{sent, received}}
}

func failed(test string, kind Kind, line int) realGot {
	return realGot{Form: FormError, Test: test, ErrKind: kind, ErrLine: line}
}

func omni(form Form, test string, tput float64, unit Unit, sel map[string]string) realGot {
	g := realGot{Form: form, Test: test, Tput: tput, Unit: unit, Sel: sel}
	if Unit(unit).IsTransactions() {
		g.TPS = tput
	}
	return g
}

func with(g realGot, f func(*realGot)) realGot { f(&g); return g }

const wrapped = "banner wrapped onto line 2: joined"

// realworldCases holds the expected values, read off each output.
var realworldCases = map[string]realCase{
	// netperf before 2.4: "TITLE to HOST" banners.
	"lkml-2002-sci-tcp-stream-mbytes":         {want: with(stream("TCP_STREAM", 157.73, "MBytes/sec", 262144, 262144, 262144, 10.00), func(g *realGot) { g.Legacy = true })},
	"lkml-2002-sci-udp-unidirectional-mbytes": {want: with(udp(174.82, "MBytes/sec", 262144, 262144, 32768, 10.00, 55958, 55925), func(g *realGot) { g.Legacy = true })},
	"ibm-article-tcp-rr-old-banner":           {want: with(rr("TCP_RR", 4945.97, [4]int{16384, 87380, 16384, 87380}, 32, 1024, 10.00), func(g *realGot) { g.Legacy = true })},
	"ibm-article-tcp-crr-old-banner":          {want: with(rr("TCP_CRR", 2662.20, [4]int{131070, 131070, 16384, 87380}, 1, 1, 9.99), func(g *realGot) { g.Legacy = true })},
	"ibm-article-udp-rr-old-banner":           {want: with(rr("UDP_RR", 10141.16, [4]int{65535, 65535, 65535, 65535}, 1, 1, 9.99), func(g *realGot) { g.Legacy = true })},

	// 2.4.x: "TITLE from ... to ..." banners.
	"manual-2.4-tcp-stream-hpux":             {want: stream("TCP_STREAM", 80.42, "10^6bits/sec", 32768, 16384, 16384, 10.00)},
	"manual-2.4-udp-stream-10g-loss":         {want: udp(2748.50, "10^6bits/sec", 124928, 135168, 32768, 10.00, 105672, 104844)},
	"manual-2.4-udp-rr-cpu-interval-method":  {want: with(rr("UDP_RR", 15262.48, [4]int{65535, 65535, 65535, 65535}, 1, 1, 10.01), func(g *realGot) { g.CPU = []float64{13.90, 16.11} })},
	"manual-2.4-tcp-rr-burst":                {want: rr("TCP_RR", 3525.97, [4]int{524288, 524288, 524288, 524288}, 32768, 32768, 10.01)},
	"manual-2.4-udp-stream-message-too-long": {want: failed("UDP_STREAM", KindDataSend, 2)},
	"manual-2.4-tcp-maerts-socket-sizes":     {want: stream("TCP_MAERTS", 81.14, "10^6bits/sec", 221184, 131072, 131072, 10.03)},
	"manual-2.4-tcp-sendfile":                {want: stream("TCP_SENDFILE", 81.83, "10^6bits/sec", 131072, 221184, 221184, 10.02)},
	"manual-2.4-tcp-sendfile-file-too-small": {want: failed("TCP_SENDFILE", KindBadOption, 2)},
	"manual-2.4-tcp-rr-v0-p0-brand": {
		want: realGot{Form: FormClassic, Terse: 9457.59, Brand: "-b 0"},
		warn: []string{"line 1: -v 0 without a banner: the test, and so the meaning and unit of 9457.59, are unknown"}},
	"lkml-2006-ipoib-mellanox-cpu-wrapped-banner": {
		want: with(stream("TCP_STREAM", 286.45, "MBytes/s", 87380, 16384, 16384, 10.00), func(g *realGot) { g.CPU = []float64{40.20, 25.28} }),
		warn: []string{wrapped}},
	"lkml-2006-ipoib-mellanox-wrapped-banner": {want: stream("TCP_STREAM", 782.55, "MBytes/sec", 87380, 16384, 16384, 10.01), warn: []string{wrapped}},
	"sunstone-cpu-mbytes-negative": {
		want: with(stream("TCP_STREAM", 142.94, "MBytes/s", 87380, 16384, 16384, 10.00), func(g *realGot) { g.CPU = []float64{-2934.86, -5440.08} }),
		warn: []string{"line 7: local CPU utilisation -2934.86% is negative", "line 7: remote CPU utilisation -5440.08% is negative"}},
	"sunstone-udp-stream-cpu": {
		want: with(udp(83.3, "MBytes/sec", 212992, 212992, 65507, 10.00, 13341, 13341), func(g *realGot) { g.CPU = []float64{-4324.69, -12338.67} }),
		warn: []string{"line 6: local CPU utilisation -4324.69% is negative", "line 7: remote CPU utilisation -12338.67% is negative"}},

	// 2.5: omni output.
	"manual-2.5-omni-keyval-rr": {want: omni(FormKeyVal, "OMNI", 59092.65, "Trans/s", map[string]string{"THROUGHPUT": "59092.65", "THROUGHPUT_UNITS": "Trans/s"})},
	"manual-2.5-omni-csv-rr":    {want: omni(FormCSV, "OMNI", 60999.07, "Trans/s", map[string]string{"THROUGHPUT": "60999.07", "THROUGHPUT_UNITS": "Trans/s"})},
	"manual-2.5-omni-human-rr":  {want: omni(FormHuman, "OMNI", 60492.57, "Trans/s", map[string]string{"THROUGHPUT": "60492.57", "THROUGHPUT_UNITS": "Trans/s"})},

	// 2.5 to 2.7: MIGRATED banners.
	"bismark-wndr3700-cpu-indented":     {want: with(stream("TCP_STREAM", 4.11, "10^6bits/s", 87380, 16384, 16384, 10.37), func(g *realGot) { g.CPU = []float64{0.96, 0.19} })},
	"axienet-wrapped-banner-udp-stream": {want: udp(830.66, "10^6bits/sec", 212992, 212992, 65507, 10.00, 15851, 15851), warn: []string{wrapped}},
	"tab-indented-2.6.0-udp-stream":     {want: udp(3035.15, "10^6bits/sec", 229376, 229376, 2048, 60.00, 11159606, 11115165)},
	"xdp-newbies-mlx5-demo-interims": {
		want: with(stream("TCP_STREAM", 35801.94, "10^6bits/sec", 131072, 16384, 16384, 4.51), func(g *realGot) { g.Interim = 5 }),
		warn: []string{"line 6: ^C: netperf was stopped with Ctrl-C"}},
	"grpc-7988-tcp-rr-demo":          {want: rr("TCP_RR", 12507.44, [4]int{65536, 87380, 65536, 87380}, 1, 1, 10.00)},
	"gazelle-tcp-stream-bound-local": {want: stream("TCP_STREAM", 9824.61, "10^6bits/sec", 131072, 16384, 1024, 2.00)},
	"gazelle-udp-rr-omni-latency": {want: omni(FormHuman, "UDP_RR", 5646.59, "Trans/s", map[string]string{
		"MIN_LATENCY": "77", "MAX_LATENCY": "7293", "MEAN_LATENCY": "176.77", "P99_LATENCY": "885",
		"STDDEV_LATENCY": "193.87", "THROUGHPUT": "5646.59", "THROUGHPUT_UNITS": "Trans/s"})},
	"vxlan-confidence-achieved-cpu": {want: with(stream("TCP_STREAM", 2254.21, "10^6bits/s", 65536, 65536, 32768, 15.00), func(g *realGot) {
		g.CPU, g.Conf = []float64{34.11, 29.88}, "achieved"
	})},
	"vxlan-confidence-not-achieved-cpu": {
		want: with(stream("TCP_STREAM", 2205.32, "10^6bits/s", 65536, 65536, 8192, 15.00), func(g *realGot) {
			g.CPU, g.Conf = []float64{37.64, 26.85}, "missed"
		}),
		warn: []string{"line 2: netperf: desired confidence was not achieved within the specified iterations (throughput interval 2.030%, wanted 5.000%)"}},
	"vxlan-garbled-data-line": {
		want: realGot{Form: FormClassic, Test: "TCP_STREAM", Conf: "missed", ErrLine: 15},
		warn: []string{"line 2: netperf: desired confidence was not achieved", "line 15: result row not parsed (elapsed time is not a number)"}},
	"pkb-tcp-crr-csv-confidence": {
		want: with(omni(FormCSV, "TCP_CRR", 404.17, "Trans/s", map[string]string{
			"THROUGHPUT": "404.17", "THROUGHPUT_UNITS": "Trans/s", "THROUGHPUT_CONFID": "21.161", "CONFIDENCE_ITERATION": "20"}),
			func(g *realGot) { g.Conf = "missed" }),
		warn: []string{"line 3: desired confidence was not achieved: THROUGHPUT_CONFID 21.161% wider than the 5.000% wanted"}},
	"pkb-tcp-stream-csv-confidence": {
		want: with(omni(FormCSV, "TCP_STREAM", 2804.90, "10^6bits/s", map[string]string{
			"THROUGHPUT": "2804.90", "THROUGHPUT_UNITS": "10^6bits/s", "THROUGHPUT_CONFID": "34.388", "CONFIDENCE_ITERATION": "20"}),
			func(g *realGot) { g.Conf = "missed" }),
		warn: []string{"line 3: desired confidence was not achieved: THROUGHPUT_CONFID 34.388% wider than the 5.000% wanted"}},
	"rt-latency-csv-null-banner": {want: realGot{Form: FormCSV, Test: "TCP_RR", Sel: map[string]string{"RT_LATENCY": "28.072"}}},

	// Failures.
	"flent-209-no-netserver":               {want: failed("", KindNoServer, 1)},
	"netperf-issue-64-connect-data-socket": {want: failed("TCP_STREAM", KindDataConnect, 2)},
	"netperf-issue-77-send-data-reset":     {want: failed("TCP_STREAM", KindDataSend, 2)},
	"gazelle-remote-error-11":              {want: failed("", KindRemote, 2)},
}

// realSource is the part of source.json the tests use.
type realSource struct {
	URL        string `json:"url"`
	Version    string `json:"version"`
	Whitespace string `json:"whitespace"`
}

type realInput struct {
	name string
	text []byte
	src  realSource
}

func loadRealworld(t testing.TB) []realInput {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(realworldDir, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no real-world netperf corpus in %s (%v)", realworldDir, err)
	}
	var ins []realInput
	for _, d := range dirs {
		text, err := os.ReadFile(filepath.Join(d, "output.txt"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(d, "source.json"))
		if err != nil {
			t.Fatal(err)
		}
		var src realSource
		if err := json.Unmarshal(b, &src); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		ins = append(ins, realInput{name: filepath.Base(d), text: text, src: src})
	}
	return ins
}

func TestRealworld(t *testing.T) {
	seen := map[string]bool{}
	for _, in := range loadRealworld(t) {
		t.Run(in.name, func(t *testing.T) {
			c, ok := realworldCases[in.name]
			if !ok {
				t.Fatalf("corpus case %s has no entry in realworldCases", in.name)
			}
			seen[in.name] = true
			if in.src.URL == "" || in.src.Version == "" || in.src.Whitespace == "" {
				t.Errorf("source.json lacks url, version or whitespace: %+v", in.src)
			}
			if f := Detect(in.text); f != c.want.Form {
				t.Errorf("Detect: %q, want %q", f, c.want.Form)
			}
			res, err := Parse(bytes.NewReader(in.text))
			if d := cmp.Diff(c.want, gotOf(res, err), cmpFloats); d != "" {
				t.Errorf("parsed (-want +got):\n%s\nerr: %v", d, err)
			}
			var warnings []string
			if res != nil {
				warnings = warnjson.Strings(res.Warnings)
			}
			checkWarnings(t, warnings, c.warn)
		})
	}
	for name := range realworldCases {
		if !seen[name] {
			t.Errorf("realworldCases has %s but the corpus has no such folder", name)
		}
	}
}

// TestRealworldWhitespace: what a terminal, a web page or a CI log does
// to the whitespace (tabs expanded, lines indented, CRLF line ends,
// trailing blanks stripped) does not change what the text says.
func TestRealworldWhitespace(t *testing.T) {
	variants := map[string]func(string) string{
		"crlf":       func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		"indent-tab": func(s string) string { return eachLine(s, func(l string) string { return "\t" + l }) },
		"indent-4":   func(s string) string { return eachLine(s, func(l string) string { return "    " + l }) },
		"no-trailing": func(s string) string {
			return eachLine(s, func(l string) string { return strings.TrimRight(l, " \t") })
		},
		"tabs-expanded":  func(s string) string { return eachLine(s, expandTabs) },
		"leading-blanks": func(s string) string { return "\n\n" + s },
		"wrap-banner":    wrapBanner,
	}
	for _, in := range loadRealworld(t) {
		base := gotOf(Parse(bytes.NewReader(in.text)))
		for name, v := range variants {
			t.Run(in.name+"/"+name, func(t *testing.T) {
				text := v(string(in.text))
				got := gotOf(Parse(strings.NewReader(text)))
				if got.ErrLine > 0 { // lines added before the error line
					got.ErrLine -= strings.Count(text, "\n") - strings.Count(string(in.text), "\n")
				}
				if d := cmp.Diff(base, got, cmpFloats); d != "" {
					t.Errorf("(-original +%s):\n%s", name, d)
				}
			})
		}
	}
}

func eachLine(s string, f func(string) string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		if body == "" && !nl {
			continue
		}
		lines[i] = f(body)
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}

// wrapBanner wraps the banner line at 72 columns, at a blank, as mailers
// and commit messages do ("... port 0 AF_INET to" / "10.200.0.1 () port
// 0 AF_INET").
func wrapBanner(s string) string {
	return eachLine(s, func(l string) string {
		if _, _, ok := parseBanner(l); !ok || len(l) <= 72 {
			return l
		}
		cut := strings.LastIndexByte(l[:72], ' ')
		if cut <= 0 {
			return l
		}
		return l[:cut] + "\n" + l[cut+1:]
	})
}
