package netperf

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Run with: go test ./netperf -run '^$' -bench . -benchmem

func benchInput(b *testing.B, path string) string {
	b.Helper()
	in, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return string(in)
}

func benchParse(b *testing.B, in string, parse func(string) (*Result, error)) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseClassicUDP(b *testing.B) {
	benchParse(b, benchInput(b, "../rocekittest/captures/bookworm/netperf/udp-stream/client.stdout"), parseClassic)
}

func BenchmarkParseClassicRRCPU(b *testing.B) {
	benchParse(b, benchInput(b, "../rocekittest/captures/bookworm/netperf/tcp-rr-cpu/client.stdout"), parseClassic)
}

func BenchmarkParseKeyValAll(b *testing.B) {
	benchParse(b, benchInput(b, "../rocekittest/captures/bookworm/netperf/tcp-stream-k-all/client.stdout"), parseKeyVal)
}

func BenchmarkParseCSVAll(b *testing.B) {
	in := benchInput(b, "testdata/loopback/tcp-stream-csv-all/client.stdout")
	benchParse(b, in, func(s string) (*Result, error) { return parseCSV(s, nil) })
}

func BenchmarkParseHumanAll(b *testing.B) {
	in := benchInput(b, "testdata/loopback/tcp-stream-human-all/client.stdout")
	benchParse(b, in, func(s string) (*Result, error) { return parseHuman(s, nil) })
}

// BenchmarkParseDetect is Parse's routing on a mix of all forms.
func BenchmarkParseDetect(b *testing.B) {
	for _, path := range []string{
		"../rocekittest/captures/bookworm/netperf/tcp-stream/client.stdout",
		"../rocekittest/captures/bookworm/netperf/udp-stream-k/client.stdout",
		"../rocekittest/captures/bookworm/netperf/tcp-rr-csv/client.stdout",
		"../rocekittest/captures/bookworm/netperf/tcp-stream-human/client.stdout",
	} {
		in := benchInput(b, path)
		b.Run(strings.Split(path, "/")[4], func(b *testing.B) {
			benchParse(b, in, func(s string) (*Result, error) { return Parse(strings.NewReader(s)) })
		})
	}
}

// A long demo-mode run (-D 0.1 for about 17 minutes): 10000 interim
// results, in the classic and the -k forms. Reported per interim line.
func BenchmarkParseDemoLong(b *testing.B) {
	const n = 10000
	var classic, kv strings.Builder
	classic.WriteString(bannerStream)
	kv.WriteString(bannerStream)
	for i := range n {
		fmt.Fprintf(&classic, "Interim result: %.2f 10^6bits/s over 0.100 seconds ending at %d.%03d\n", 13000+float64(i%97), 1795974172+i/10, i%10*100)
		fmt.Fprintf(&kv, "NETPERF_INTERIM_RESULT[%d]=%.2f\nNETPERF_UNITS[%d]=10^6bits/s\nNETPERF_INTERVAL[%d]=0.100\nNETPERF_ENDING[%d]=%d.%03d\n",
			i, 13000+float64(i%97), i, i, i, 1795974172+i/10, i%10*100)
	}
	classic.WriteString(titlesStream + "131072  16384  16384 1000.00     13048.12   \n")
	kv.WriteString("THROUGHPUT=13048.12\nTHROUGHPUT_UNITS=10^6bits/s\n")
	for _, c := range []struct {
		name  string
		in    string
		parse func(string) (*Result, error)
	}{{"classic", classic.String(), parseClassic}, {"keyval", kv.String(), parseKeyVal}} {
		b.Run(c.name, func(b *testing.B) {
			res, err := c.parse(c.in)
			if err != nil || len(res.Interims) != n {
				b.Fatalf("%d interims, err %v", len(res.Interims), err)
			}
			benchParse(b, c.in, c.parse)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/interim")
		})
	}
}

// BenchmarkParseRealworld parses every real-world corpus output (all
// forms, failures included) once per iteration; b.SetBytes is the whole
// corpus.
func BenchmarkParseRealworld(b *testing.B) {
	ins := loadRealworld(b)
	var total int64
	for _, in := range ins {
		total += int64(len(in.text))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range ins {
			if res, _ := Parse(strings.NewReader(string(in.text))); res == nil {
				b.Fatalf("%s: no result", in.name)
			}
		}
	}
}
