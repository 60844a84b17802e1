package netperf

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/internal/warnjson"
)

const (
	bannerStream = "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 198.18.2.2 () port 0 AF_INET : demo\n"
	bannerUDP    = "MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 198.18.2.2 () port 0 AF_INET : demo\n"
	titlesStream = "Recv   Send    Send                          \n" +
		"Socket Socket  Message  Elapsed              \n" +
		"Size   Size    Size     Time     Throughput  \n" +
		"bytes  bytes   bytes    secs.    10^6bits/sec  \n\n"
	titlesUDP = "Socket  Message  Elapsed      Messages                \n" +
		"Size    Size     Time         Okay Errors   Throughput\n" +
		"bytes   bytes    secs            #      #   10^6bits/sec\n\n"
)

// wantParseError checks that err is a *ParseError at line n.
func wantParseError(t *testing.T, err error, n int, msg string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrParse) {
		t.Fatalf("err = %v, want a *ParseError", err)
	}
	if pe.Line != n || !strings.Contains(pe.Msg, msg) {
		t.Errorf("ParseError line %d %q, want line %d and %q", pe.Line, pe.Msg, n, msg)
	}
}

func TestClassicTruncated(t *testing.T) {
	res, err := ParseClassic(strings.NewReader(bannerStream + titlesStream))
	wantParseError(t, err, 7, "truncated")
	if res == nil || res.Test != "TCP_STREAM" || res.Classic == nil || res.Classic.Unit != "10^6bits/sec" {
		t.Errorf("what parsed must be kept: %+v", res)
	}

	// The UDP send line without its receive line: the send line is kept.
	in := bannerUDP + titlesUDP + "425984    1400   2.02        16614      0      92.12\n"
	res, err = ParseClassic(strings.NewReader(in))
	wantParseError(t, err, 7, "without its receive line")
	if res.Classic.UDPSend == nil || res.Classic.UDPSend.Messages != 16614 || res.UDP != nil {
		t.Errorf("send row %+v, UDP %+v", res.Classic.UDPSend, res.UDP)
	}

	// Only the banner.
	res, err = Parse(strings.NewReader(bannerStream))
	wantParseError(t, err, 2, "no result after the banner")
	if res.Test != "TCP_STREAM" {
		t.Errorf("test %q", res.Test)
	}
}

func TestClassicGarbled(t *testing.T) {
	in := bannerStream + titlesStream + "131072  16384  sixteen    2.10      100.59   \n"
	res, err := ParseClassic(strings.NewReader(in))
	wantParseError(t, err, 7, "message size is not an integer")
	if res.Throughput != nil {
		t.Errorf("a garbled row must not give a throughput: %+v", res.Throughput)
	}

	in = bannerStream + titlesStream + "131072  16384  16384\n"
	_, err = ParseClassic(strings.NewReader(in))
	wantParseError(t, err, 7, "truncated: no elapsed time")
}

func TestClassicInfNaN(t *testing.T) {
	in := bannerUDP + titlesUDP +
		"212992    1400   2.00        10067      0       nan\n" +
		"212992           2.00         8494              inf\n\n"
	res, err := ParseClassic(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(*res.UDP.SendMbps) || !math.IsInf(*res.ThroughputMbps, 1) {
		t.Errorf("send %v receive %v: inf and nan must be kept", *res.UDP.SendMbps, *res.ThroughputMbps)
	}
	checkWarnings(t, warnjson.Strings(res.Warnings), []string{"line 6: send throughput is NaN", "line 7: receive throughput is +Inf"})
	var w Warning
	if len(res.Warnings) != 2 || !errors.As(res.Warnings[1], &w) || w.Line != 7 || w.Text != "receive throughput is +Inf" {
		t.Errorf("the second warning is not Warning{7, ...}: %#v", res.Warnings)
	}
}

func TestUDPLossEdges(t *testing.T) {
	in := bannerUDP + titlesUDP +
		"212992    1400   2.00            0      0       0.00\n" +
		"212992           2.00            0              0.00\n\n"
	res, err := ParseClassic(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(res.UDP.LossRatio) {
		t.Errorf("loss with nothing sent = %v, want NaN", res.UDP.LossRatio)
	}
	checkWarnings(t, warnjson.Strings(res.Warnings), []string{"sent no messages"})

	in = "LOCAL_SEND_CALLS=10\nREMOTE_RECV_CALLS=12\n"
	res, err = ParseKeyVal(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if res.UDP == nil || math.Abs(res.UDP.LossRatio+0.2) > 1e-9 {
		t.Errorf("UDP %+v, want loss -0.2", res.UDP)
	}
	checkWarnings(t, warnjson.Strings(res.Warnings), []string{"received 12 messages but netperf sent 10"})
}

func TestKeyValBadLines(t *testing.T) {
	in := "THROUGHPUT=92.68\nthis is not a selector\nTHROUGHPUT_UNITS=10^6bits/s\nLOCAL_SEND_CALLS=many\n"
	res, err := ParseKeyVal(strings.NewReader(in))
	wantParseError(t, err, 2, "not a SELECTOR=value line")
	if res.Omni == nil || len(res.Omni.Selectors) != 3 || res.ThroughputMbps == nil || *res.ThroughputMbps != 92.68 {
		t.Errorf("the good lines must be kept: %+v", res.Omni)
	}
	_, err = ParseKeyVal(strings.NewReader("THROUGHPUT=fast\n"))
	wantParseError(t, err, 1, "THROUGHPUT is not a number")
}

func TestOmniUnits(t *testing.T) {
	// THROUGHPUT without THROUGHPUT_UNITS: assumed from the banner's test,
	// unknown without a banner.
	res, err := Parse(strings.NewReader(bannerStream + "THROUGHPUT=100.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "assumed", res.Throughput, &Rate{Value: 100.5, Unit: "10^6bits/s", Assumed: true})
	wantEqual(t, "mbps", res.ThroughputMbps, f64(100.5))
	checkWarnings(t, warnjson.Strings(res.Warnings), []string{"assumed 10^6bits/s"})

	res, err = Parse(strings.NewReader("THROUGHPUT=100.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res.ThroughputMbps != nil || res.Throughput.Unit != "" {
		t.Errorf("no unit, no banner: %+v %v", res.Throughput, res.ThroughputMbps)
	}
	checkWarnings(t, warnjson.Strings(res.Warnings), []string{"its unit is unknown"})

	// Omni throughput in KBytes (-f K) is converted.
	res, _ = Parse(strings.NewReader("THROUGHPUT=1000.00\nTHROUGHPUT_UNITS=KBytes/s\n"))
	wantEqual(t, "KBytes", res.ThroughputMbps, f64(8.192))
}

func TestCSVErrors(t *testing.T) {
	_, err := ParseCSV(strings.NewReader("Throughput,Throughput Units\n92.68\n"))
	wantParseError(t, err, 2, "2 headers but 1 values")

	_, err = ParseCSV(strings.NewReader(bannerStream + "Throughput,Throughput Units\n"))
	wantParseError(t, err, 3, "truncated: CSV header without values")

	// Fewer names than values: the rest stay unnamed, with a warning.
	res, err := ParseCSV(strings.NewReader("92.68,10^6bits/s\n"), "throughput")
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "names", []string{res.Omni.Selectors[0].Name, res.Omni.Selectors[1].Name}, []string{"THROUGHPUT", ""})
	checkWarnings(t, warnjson.Strings(res.Warnings), []string{"1 selectors named but 2 values printed", "its unit is unknown"})
}

func TestHumanTruncated(t *testing.T) {
	in := bannerStream + "Throughput Throughput  \n           Units       \n"
	res, err := ParseHuman(strings.NewReader(in))
	wantParseError(t, err, 4, "truncated")
	if res.Test != "TCP_STREAM" {
		t.Errorf("test %q", res.Test)
	}
}

func TestHumanUnknownHeader(t *testing.T) {
	// A column this package does not know (a later netperf) is kept by its
	// header text.
	in := "Throughput Frobnication \n           Level        \n\n\n12.50      7            \n"
	res, err := ParseHuman(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got := res.Omni.Selectors
	if len(got) != 2 || got[0].Name != "THROUGHPUT" || got[1].Name != "" || got[1].Header != "Frobnication Level" || got[1].Value != "7" {
		t.Errorf("selectors %+v", got)
	}
	checkWarnings(t, warnjson.Strings(res.Warnings), []string{`"Frobnication Level"`, "THROUGHPUT without THROUGHPUT_UNITS"})
}

func TestCRLF(t *testing.T) {
	in := strings.ReplaceAll(bannerStream+titlesStream+"131072  16384  16384    2.10      100.59   \n", "\n", "\r\n")
	res, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "mbps", res.ThroughputMbps, f64(100.59))
}

func TestParseUnrecognized(t *testing.T) {
	for _, in := range []string{"", "  \n\n", "hello world\n", "Starting netserver with host 'IN(6)ADDR_ANY' port '12866' and family AF_UNSPEC\n"} {
		res, err := Parse(strings.NewReader(in))
		if res != nil || !errors.Is(err, ErrUnrecognized) {
			t.Errorf("Parse(%q) = %v, %v; want nil and ErrUnrecognized", in, res, err)
		}
	}
	_, err := ParseClassic(strings.NewReader(""))
	wantParseError(t, err, 1, "no netperf result")
}

func TestFailureKinds(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind Kind
	}{
		{"netperf: remote error 22", KindRemote},
		{"recv_response_timed_n: no response received. errno 28 counter 0", KindTimeout},
		{"netperf: send_omni: recv_data failed: Connection reset by peer", KindDataRecv},
		{"netperf: send_omni: connect_data_socket failed: Connection refused", KindDataConnect},
		{"send_data: data send error: Connection refused (errno 111)", KindDataSend},
		{"netperf: something new went wrong", KindUnknown},
		{"get_sockaddr_family_addr_port family mismatch 10 vs 2", KindBadOption},
	} {
		res, err := Parse(strings.NewReader(bannerStream + c.in + "\n"))
		var e *Error
		if !errors.As(err, &e) || e.Kind != c.kind || e.Line != 2 || e.Message != c.in {
			t.Errorf("%q: err %v, want kind %s at line 2", c.in, err, c.kind)
			continue
		}
		if res.Form != FormError || res.Test != "TCP_STREAM" {
			t.Errorf("%q: form %q test %q", c.in, res.Form, res.Test)
		}
	}
}

func TestUnits(t *testing.T) {
	for _, c := range []struct {
		u    Unit
		v    float64
		mbps float64
		ok   bool
	}{
		{"10^6bits/sec", 100, 100, true},
		{"10^6bits/s", 100, 100, true},
		{"10^9bits/s", 1.5, 1500, true},
		{"10^3bits/sec", 1500, 1.5, true},
		{"10^0bits/sec", 1e6, 8, true}, // -f b: bytes labelled bits
		{"Bytes/sec", 1e6, 8, true},
		{"KBytes/sec", 1000, 8.192, true},
		{"MBytes/s", 1, 8.388608, true},
		{"GBytes/sec", 1, 8589.934592, true},
		{"Trans/s", 100, 0, false},
		{"Usec/sec", 1, 0, false},
		{"", 1, 0, false},
	} {
		got, ok := c.u.Mbps(c.v)
		if ok != c.ok || math.Abs(got-c.mbps) > 1e-9 {
			t.Errorf("%q.Mbps(%v) = %v, %v; want %v, %v", c.u, c.v, got, ok, c.mbps, c.ok)
		}
	}
	if !Unit("Trans/sec").IsTransactions() || Unit("10^6bits/s").IsTransactions() {
		t.Error("IsTransactions")
	}
}

func TestNumbers(t *testing.T) {
	for _, s := range []string{"1_000", "0x10", "0x1p4", "", "-", ".", "e5", "1,5"} {
		if isNumber(s) {
			t.Errorf("isNumber(%q) = true", s)
		}
	}
	for _, s := range []string{"-nan", "nan", "-inf", "inf", "1e5", "-1.000", "5.", "+3"} {
		if !isNumber(s) {
			t.Errorf("isNumber(%q) = false", s)
		}
	}
	if _, ok := parseCount("-1"); ok {
		t.Error("parseCount(-1) must fail")
	}
	if n, ok := parseCount("17694720"); !ok || n != 17694720 {
		t.Error("parseCount")
	}
}

func TestOmniMap(t *testing.T) {
	res, err := ParseHuman(strings.NewReader("Throughput Frobnication \n           Level        \n\n\n12.50      7            \n"))
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "map", res.Omni.Map(), map[string]string{"THROUGHPUT": "12.50", "Frobnication Level": "7"})
	res, err = ParseCSV(strings.NewReader("5,8,Trans/s\n"), "MIN_LATENCY")
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "map", res.Omni.Map(), map[string]string{"MIN_LATENCY": "5", "#2": "8", "#3": "Trans/s"})
	var none *Omni
	if none.Map() != nil {
		t.Error("nil Omni")
	}
}

func TestUnknownNames(t *testing.T) {
	res, err := ParseCSV(strings.NewReader("92.68,10^6bits/s\n"), "THROUGHPUT", "THRUPUT_UNITS")
	if err != nil {
		t.Fatal(err)
	}
	checkWarnings(t, warnjson.Strings(res.Warnings), []string{`"THRUPUT_UNITS" is not a netperf 2.7 selector`, "THROUGHPUT without THROUGHPUT_UNITS"})
}

func TestDetectRejectsProseStartingWithANumber(t *testing.T) {
	for _, s := range []string{
		"150 MB of disk per image. KVM is not used (it does not work here)\n",
		"3 reasons to tune IRQs\nand more text\n",
		"go run ./examples/qp-scaling -netdev eth0 -qps 1,2,4,8\n",
		"MTU 1500 versus 4200, 9000 on both ends\n",
	} {
		if f := Detect([]byte(s)); f != "" {
			t.Errorf("Detect(%q) = %q, want unknown", s, f)
		}
	}
}
