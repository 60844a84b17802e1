package report

import (
	"strings"
	"testing"
)

func TestSocketDropsAgree(t *testing.T) {
	for _, tc := range []struct {
		sock, rcvbuf uint64
		want         bool
	}{
		{0, 0, true}, {1000, 1000, true},
		// The socket is sampled: its last drops can be missed, within a tenth.
		{950, 1000, true}, {1000, 950, true}, {899, 1000, false},
		{0, 5, false}, {5, 0, false}, {10000, 5000, false},
	} {
		if got := SocketDropsAgree(tc.sock, tc.rcvbuf); got != tc.want {
			t.Errorf("SocketDropsAgree(%d, %d) = %v, want %v", tc.sock, tc.rcvbuf, got, tc.want)
		}
	}
}

func TestCheckSocketDrops(t *testing.T) {
	r := Round{Name: "udp_stream_A_default", Metrics: []Metric{
		{Name: MetricSocketDrops, Unit: "count", Values: []float64{5000, 0, 300}},
		{Name: "udp_rcvbuf_errors", Unit: "count", Values: []float64{5000, 0, 1200}}}}
	fs := CheckSocketDrops(r)
	if len(fs) != 1 || fs[0].Rule != RuleSocketDropsDisagree || !strings.Contains(fs[0].Summary, "run 3: socket 300, RcvbufErrors 1200") ||
		strings.Contains(fs[0].Summary, "run 1") {
		t.Fatalf("findings %+v: want run 3 only", fs)
	}
	if ev := evidence(fs[0]); ev["run 3 "+MetricSocketDrops] != 300 || ev["run 3 udp_rcvbuf_errors"] != 1200 {
		t.Errorf("evidence %v", ev)
	}
	// Runs that agree, a round without the socket, or runs that do not
	// line up give nothing.
	r.Metrics[0].Values[2] = 1150
	if fs := CheckSocketDrops(r); len(fs) != 0 {
		t.Errorf("agreeing runs: %+v", fs)
	}
	if fs := CheckSocketDrops(Round{Metrics: r.Metrics[1:]}); fs != nil {
		t.Errorf("no socket metric: %+v", fs)
	}
	r.Metrics[0].Values = r.Metrics[0].Values[:2]
	if fs := CheckSocketDrops(r); fs != nil {
		t.Errorf("two socket values against three runs: %+v", fs)
	}
}
