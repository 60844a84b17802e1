package netperf

import (
	"os"
	"slices"
	"testing"
)

// The selector table was transcribed from nettest_omni.c; this checks it
// against what netperf 2.7 really prints: -k all gives the names, -o all
// the joined headers in the same order, -O all the header rows.
func TestSelectorTableMatchesNetperf(t *testing.T) {
	parse := func(path string, p func(string) (*Result, error)) []Selector {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p(string(b))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return res.Omni.Selectors
	}
	k := parse("../rocekittest/captures/bookworm/netperf/tcp-stream-k-all/client.stdout", parseKeyVal)
	csv := parse("testdata/loopback/tcp-stream-csv-all/client.stdout", func(s string) (*Result, error) { return parseCSV(s, nil) })
	human := parse("testdata/loopback/tcp-stream-human-all/client.stdout", func(s string) (*Result, error) { return parseHuman(s, nil) })

	names := func(sels []Selector) []string {
		var n []string
		for _, s := range sels {
			n = append(n, s.Name)
		}
		return n
	}
	// -k omits RESULT_BRAND (no -B: a NULL value); -o and -O print it.
	kNames := names(k)
	csvNames := slices.DeleteFunc(names(csv), func(n string) bool { return n == "RESULT_BRAND" })
	wantEqual(t, "-o all names vs -k all", csvNames, kNames)
	wantEqual(t, "-O all names vs -o all", names(human), names(csv))

	// Every selector of the table is printed by "all", and nothing else is.
	var table []string
	for _, h := range selectorHeaders {
		table = append(table, h.name)
	}
	slices.Sort(table)
	all := names(csv)
	slices.Sort(all)
	wantEqual(t, "table vs -o all", all, table)

	// The -o headers are the table's joined lines.
	for _, s := range csv {
		for _, h := range selectorHeaders {
			if h.name == s.Name && h.joined() != s.Header {
				t.Errorf("%s: -o header %q, table %q", s.Name, s.Header, h.joined())
			}
		}
	}
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Form
	}{
		{bannerStream + titlesStream + "131072  16384  16384    2.10      100.59   \n", FormClassic},
		{"131072  16384  16384    2.08       97.54   \n", FormClassic},
		{" 1.164 S \n", FormClassic},
		{bannerStream, FormClassic},
		{"THROUGHPUT=1\n", FormKeyVal},
		{"NETPERF_INTERIM_RESULT[0]=16218.95\n", FormKeyVal},
		{"5,8,117221.751,117221.75,Trans/s\n", FormCSV},
		{"12068.49   10^6bits/s  TCP      \n", FormHuman},
		{"Throughput \n\n\n\n8051.54    \n", FormHuman},
		{"netperf: invalid option -- 'X'\n\nUsage: netperf [global options] -- [test options] \n    -a send,recv      Set\n", FormError},
		{"The test you requested (TCP_FOO) is unknown to this netperf.\nPlease verify that you have the correct test name, \n", FormError},
		{"Netperf version 2.7.1\n", FormVersion},
		{"", FormUnknown},
		{"garbage, with a comma\n", FormUnknown},
		{"garbage\n", FormUnknown},
	} {
		if got := Detect([]byte(c.in)); got != c.want {
			t.Errorf("Detect(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBanner(t *testing.T) {
	b, _, ok := parseBanner("MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 198.18.2.2 () port 0 AF_INET : +/-2.500% @ 99% conf.  : demo")
	if !ok {
		t.Fatal("banner not recognised")
	}
	hw, level, ok := b.confidence()
	if b.Test() != "TCP_STREAM" || !ok || hw != 2.5 || level != 99 || !slices.Equal(b.Options, []string{"+/-2.500% @ 99% conf.", "demo"}) {
		t.Errorf("banner %+v: confidence %v %v %v", b, hw, level, ok)
	}
	for title, test := range map[string]string{
		"TCP STREAM TEST":                            "TCP_STREAM", // --enable-omni=no
		"UDP UNIDIRECTIONAL SEND TEST":               "UDP_STREAM",
		"MIGRATED TCP Connect/Request/Response TEST": "TCP_CRR",
		"OMNI Send|Recv TEST":                        "OMNI",
		"SCTP STREAM TEST":                           "",
	} {
		b, _, ok := parseBanner(title + " from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET")
		if !ok || b.Test() != test {
			t.Errorf("%q: test %q, want %q", title, b.Test(), test)
		}
	}
	if _, _, ok := parseBanner("THIS IS NOT A TEST"); ok {
		t.Error("a line without from/to is not a banner")
	}
}
