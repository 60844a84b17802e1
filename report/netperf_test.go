package report

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/netperf"
)

func TestFromNetperfUDPLoss(t *testing.T) {
	r, err := FromNetperf("udp", t0, netperfFixture(t, "bookworm", "udp-stream-loss"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range r.Metrics {
		got[m.Key()] = m.Values[0]
	}
	diff(t, map[string]float64{
		"throughput": 17.68, "send_throughput": 74.11, "recv_throughput": 17.68,
		"loss_ratio": 1 - 556.0/2330, "sent": 2330, "received": 556,
	}, got)
	diff(t, []Param{{"test", "UDP_STREAM"}, {"message_size", "8000"}, {"elapsed_sec", "2.01"}}, r.Params)
	loss, _ := r.Metric("loss_ratio")
	if loss.Better != LowerIsBetter || loss.Unit != UnitRatio {
		t.Errorf("loss_ratio: %v", loss)
	}
	diff(t, []string{"repeat 1: line 2: netperf: enable_enobufs failed: getprotobyname (UDP send errors are not counted)"}, r.Warnings)
}

func TestFromNetperfOmniLatency(t *testing.T) {
	r, err := FromNetperf("rr", t0, netperfFixture(t, "bookworm", "tcp-rr-k-latency"), netperfFixture(t, "trixie", "tcp-rr-k-latency"))
	if err != nil {
		t.Fatal(err)
	}
	rate, _ := r.Metric("trans_rate")
	if rate.Values[0] != 75.497 || len(rate.Values) != 2 {
		t.Errorf("trans_rate %v", rate.Values)
	}
	p99, _ := r.Metric("p99_latency")
	if p99.Values[0] != 84000 || p99.Unit != UnitMicros {
		t.Errorf("p99_latency %v", p99)
	}
	if _, ok := r.Metric("throughput"); ok {
		t.Error("Trans/s throughput taken as a data rate")
	}
}

func TestFromNetperfFailed(t *testing.T) {
	_, err := FromNetperf("x", t0, netperfFixture(t, "bookworm", "noserver"))
	if !errors.Is(err, ErrNoData) {
		t.Fatalf("err = %v", err)
	}
}

// TestFromNetperfSocketBuffers: a real UDP_STREAM that asked 64M socket
// buffers on a host whose caps are 4 MiB records what it asked and got,
// and CheckSocketBuffers names the four clamps with their sysctls.
func TestFromNetperfSocketBuffers(t *testing.T) {
	f, err := os.Open("../netperf/testdata/loopback/udp-stream-sockbuf-clamp/client.stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := netperf.ParseKeyVal(f)
	if err != nil {
		t.Fatal(err)
	}
	r, err := FromNetperf("udp", t0, res)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Param("sockbuf_remote_recv_asked"); v != "67108864" {
		t.Errorf("asked %q", v)
	}
	if v, _ := r.Param("sockbuf_remote_recv_got"); v != "8388608" {
		t.Errorf("got %q", v)
	}
	// Each warning names the repeat 1-based and the line of the output
	// that holds the size the kernel gave (LSS_SIZE_END is line 10,
	// RSR_SIZE_END line 13).
	if len(r.Warnings) != 4 || !strings.HasPrefix(r.Warnings[0], "repeat 1: line 10: local send socket buffer clamped") ||
		!strings.HasPrefix(r.Warnings[3], "repeat 1: line 13: remote recv socket buffer clamped") {
		t.Errorf("warnings %q", r.Warnings)
	}
	fs := CheckSocketBuffers(r)
	var sums []string
	for _, f := range fs {
		sums = append(sums, f.Summary[:strings.Index(f.Summary, ":")])
	}
	diff(t, []string{"local send socket buffer clamped", "local recv socket buffer clamped", "remote send socket buffer clamped", "remote recv socket buffer clamped"}, sums)
	if !strings.Contains(fs[3].Action, "raise net.core.rmem_max to at least 67108864 on netserver's host") {
		t.Errorf("action %q", fs[3].Action)
	}
}

// netperfCapture is a captured client's result with the command line it
// ran, as netperf.Run sets it.
func netperfCapture(t *testing.T, suite, c string) *netperf.Result {
	t.Helper()
	res := netperfFixture(t, suite, c)
	var cf struct {
		Sides []struct{ Role, Command string } `json:"sides"`
	}
	if err := json.Unmarshal(fixture(t, suite, "netperf", c, "case.json"), &cf); err != nil {
		t.Fatal(err)
	}
	for _, s := range cf.Sides {
		if s.Role == "client" {
			res.Argv = strings.Fields(s.Command)
		}
	}
	return res
}

// TestFromNetperfDuration: a netperf round carries its test length as
// duration_sec (from -l, as perftest rounds carry -D; netperf's 10 s
// without -l; none for a negative -l or without a command line), what
// netperf reports it ran as elapsed_sec (omni or the classic table), and
// the sum of the repeats' elapsed times as DurationSec.
func TestFromNetperfDuration(t *testing.T) {
	udp := netperfCapture(t, "bookworm", "udp-stream-loss")    // classic table, -l 2, 2.01 s
	omni := netperfCapture(t, "trixie", "tcp-stream-k-all")    // ELAPSED_TIME=2.13
	rr := netperfCapture(t, "trixie", "tcp-rr-k-latency")      // -l 2, no elapsed printed
	noArgv := netperfFixture(t, "bookworm", "udp-stream-loss") // parsed from a file
	r, err := FromNetperf("udp", t0, udp, netperfCapture(t, "bookworm", "udp-stream-loss"))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := r.Param("duration_sec"); d != "2" {
		t.Errorf("duration_sec %q, want -l 2", d)
	}
	if e, _ := r.Param("elapsed_sec"); e != "2.01" || math.Abs(r.DurationSec-4.02) > 1e-9 {
		t.Errorf("elapsed_sec %q, DurationSec %v; want 2.01 and two repeats' 4.02", e, r.DurationSec)
	}
	r, _ = FromNetperf("tcp", t0, omni)
	if d, _ := r.Param("duration_sec"); d != "2" || r.DurationSec != 2.13 {
		t.Errorf("omni: duration_sec %q, DurationSec %v", d, r.DurationSec)
	}
	r, _ = FromNetperf("rr", t0, rr)
	if _, ok := r.Param("elapsed_sec"); ok || r.DurationSec != 0 {
		t.Errorf("rr without ELAPSED_TIME: elapsed %v, DurationSec %v", ok, r.DurationSec)
	}
	r, _ = FromNetperf("udp", t0, noArgv)
	if _, ok := r.Param("duration_sec"); ok {
		t.Error("duration_sec without a command line")
	}
	for argv, want := range map[string]string{
		"netperf -H 198.18.2.2 -t UDP_STREAM":                 "10",
		"netperf -H 198.18.2.2 -l30 -t UDP_STREAM":            "30",
		"netperf -H 198.18.2.2 -t TCP_RR -l -1000":            "",
		"netperf -H 198.18.2.2 -t UDP_STREAM -- -l 5 -m 1400": "10",
	} {
		res := *udp
		res.Argv = strings.Fields(argv)
		r, err := FromNetperf("udp", t0, &res)
		if d, _ := r.Param("duration_sec"); err != nil || d != want {
			t.Errorf("%s: duration_sec %q, want %q (%v)", argv, d, want, err)
		}
	}
}
