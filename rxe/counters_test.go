package rxe

import (
	"encoding/json"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/internal/fixturefs"
)

// rxeCounterNames are the hw_counters of rdma_rxe in kernels 6.1 and 6.12
// (drivers/infiniband/sw/rxe/rxe_hw_counters.c), lifespan left out.
var rxeCounterNames = []string{
	"ack_deferred", "completer_retry_err", "duplicate_request", "link_downed",
	"out_of_seq_request", "rcvd_pkts", "rcvd_rnr_err", "rcvd_seq_err", "rdma_recvs",
	"rdma_sends", "retry_exceeded_err", "retry_rnr_exceeded_err", "send_err",
	"send_rnr_err", "sent_pkts",
}

// TestPortCountersLabCaptures reads rxe0's hw_counters as the lab guests
// had them before and after the ib_send_bw pair of capture.sh.
func TestPortCountersLabCaptures(t *testing.T) {
	for _, tc := range []struct {
		suite                       string
		pkts, dup, ackDef, compRetr uint64
	}{
		{"bookworm", 453, 64, 1, 1},
		{"trixie", 325, 0, 5, 0},
	} {
		t.Run(tc.suite, func(t *testing.T) {
			caps := suiteCapture(t, tc.suite)
			before, err := caps["rxe0-ipv6-only"].root().PortCounters("rxe0", 1)
			if err != nil {
				t.Fatal(err)
			}
			after, err := caps["rxe0-ipv4"].root().PortCounters("rxe0", 1)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(rxeCounterNames, after.Names()); d != "" {
				t.Errorf("names (-want +got):\n%s", d)
			}
			if after.PMA != nil || len(after.Warnings) != 0 || after.Lifespan != 12*time.Millisecond {
				t.Errorf("PMA %v, warnings %v, lifespan %v", after.PMA, after.Warnings, after.Lifespan)
			}
			for name, v := range before.HW {
				if v != 0 {
					t.Errorf("before traffic: %s = %d", name, v)
				}
			}
			after.Time = before.Time.Add(time.Second)
			d, err := after.Sub(before)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]uint64{"sent_pkts": tc.pkts, "rcvd_pkts": tc.pkts, "rdma_sends": 5, "rdma_recvs": 5,
				"duplicate_request": tc.dup, "ack_deferred": tc.ackDef, "completer_retry_err": tc.compRetr, "send_err": 0}
			for name, w := range want {
				if c, ok := d.Get(name); !ok || c.Delta != w || c.Source != SourceHW {
					t.Errorf("%s: %+v, want delta %d", name, c, w)
				}
			}
			var problems []string
			for _, c := range d.Problems() {
				problems = append(problems, c.Name)
			}
			var wantProblems []string
			for _, n := range []string{"completer_retry_err", "duplicate_request"} {
				if want[n] > 0 {
					wantProblems = append(wantProblems, n)
				}
			}
			if !cmp.Equal(problems, wantProblems) {
				t.Errorf("problems %v, want %v", problems, wantProblems)
			}
			if n := len(d.ByClass(ClassTraffic)); n != 4 {
				t.Errorf("%d traffic counters, want 4", n)
			}
		})
	}
}

const counterManifest = `# SCENARIO t
D	/sys/class/infiniband/mlx5_0/ports/1/hw_counters
F	/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence	17
F	/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent	18446744073709551615
E	/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rx_icrc_encapsulated	Operation not supported
F	/sys/class/infiniband/mlx5_0/ports/1/hw_counters/garbled	12x
D	/sys/class/infiniband/mlx5_0/ports/1/counters
F	/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data	1000
F	/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data	250
F	/sys/class/infiniband/mlx5_0/ports/1/counters/link_downed	3
E	/sys/class/infiniband/mlx5_0/ports/1/counters/VL15_dropped	Invalid argument
D	/sys/class/infiniband/mlx5_0/ports/2
`

func counterRoot(t *testing.T) Root {
	t.Helper()
	scs, err := fixturefs.Parse(strings.NewReader(counterManifest))
	if err != nil {
		t.Fatal(err)
	}
	return Root(scs["t"].Root())
}

// TestPortCountersWarnings: unreadable and garbled files are warnings, the
// rest is read.
func TestPortCountersWarnings(t *testing.T) {
	c, err := counterRoot(t).PortCounters("mlx5_0", 1)
	if err != nil {
		t.Fatal(err)
	}
	wantHW := map[string]uint64{"out_of_sequence": 17, "np_cnp_sent": 1<<64 - 1}
	wantPMA := map[string]uint64{"port_xmit_data": 1000, "port_rcv_data": 250, "link_downed": 3}
	if d := cmp.Diff(wantHW, c.HW); d != "" {
		t.Errorf("HW (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantPMA, c.PMA); d != "" {
		t.Errorf("PMA (-want +got):\n%s", d)
	}
	if len(c.Warnings) != 3 {
		t.Fatalf("warnings %v, want 3", c.Warnings)
	}
	byName := map[string]CounterWarning{}
	for _, err := range c.Warnings {
		var w CounterWarning
		if !errors.As(err, &w) {
			t.Fatalf("warning %v is not a CounterWarning", err)
		}
		byName[w.Name] = w
	}
	if w := byName["rx_icrc_encapsulated"]; !errors.Is(w, syscall.EOPNOTSUPP) || w.Source != SourceHW {
		t.Errorf("rx_icrc_encapsulated: %v", w)
	}
	if w := byName["VL15_dropped"]; !errors.Is(w, syscall.EINVAL) || w.Source != SourcePMA {
		t.Errorf("VL15_dropped: %v", w)
	}
	if w := byName["garbled"]; !errors.Is(w, ErrParse) {
		t.Errorf("garbled: %v", w)
	}
	// JSON (the runbook peer protocol) carries the messages.
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back PortCounters
	if err := json.Unmarshal(b, &back); err != nil || len(back.Warnings) != 3 || back.Warnings[0].Error() != c.Warnings[0].Error() {
		t.Errorf("JSON round trip: %v, %v\n%s", back.Warnings, err, b)
	}
	if x, r, ok := c.DataBytes(); !ok || x != 4000 || r != 1000 {
		t.Errorf("DataBytes = %d, %d, %v", x, r, ok)
	}
	if v, src, ok := c.Counter("link_downed"); !ok || v != 3 || src != SourcePMA {
		t.Errorf("Counter(link_downed) = %d %q %v", v, src, ok)
	}

	// A port without counter directories has none, without error.
	c2, err := counterRoot(t).PortCounters("mlx5_0", 2)
	if err != nil || c2.HW != nil || c2.PMA != nil || len(c2.Names()) != 0 {
		t.Errorf("port 2: %+v, %v", c2, err)
	}
	for _, p := range []struct {
		dev  string
		port int
	}{{"mlx5_0", 3}, {"nosuch", 1}} {
		if _, err := counterRoot(t).PortCounters(p.dev, p.port); !errors.Is(err, ErrDeviceNotFound) {
			t.Errorf("%s/%d: err = %v, want ErrDeviceNotFound", p.dev, p.port, err)
		}
	}
}

func TestDeltaPortCountersResetAndSaturation(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	before := PortCounters{Device: "mlx4_0", Port: 1, Time: t0,
		HW:  map[string]uint64{"out_of_sequence": 10, "np_cnp_sent": 5, "gone": 1},
		PMA: map[string]uint64{"port_xmit_data": 4294967000, "symbol_error": 65535, "port_rcv_data": 7}}
	after := PortCounters{Device: "mlx4_0", Port: 1, Time: t0.Add(2 * time.Second),
		HW:  map[string]uint64{"out_of_sequence": 4, "np_cnp_sent": 9, "new": 1},
		PMA: map[string]uint64{"port_xmit_data": 4294967295, "symbol_error": 65535, "port_rcv_data": 107}}
	d, err := after.Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	want := []PortCounterDelta{
		{Source: SourceHW, Name: "np_cnp_sent", Class: ClassCongestion, Before: 5, After: 9, Delta: 4},
		{Source: SourceHW, Name: "out_of_sequence", Class: ClassRetransmission, Before: 10, After: 4, Delta: 4, Reset: true},
		{Source: SourcePMA, Name: "port_rcv_data", Class: ClassTraffic, Before: 7, After: 107, Delta: 100},
		{Source: SourcePMA, Name: "port_xmit_data", Class: ClassTraffic, Before: 4294967000, After: 4294967295, Delta: 295, Saturated: true},
		{Source: SourcePMA, Name: "symbol_error", Class: ClassError, Before: 65535, After: 65535, Saturated: true},
	}
	if diff := cmp.Diff(want, d.Counters); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if d.Interval != 2*time.Second {
		t.Errorf("interval %v", d.Interval)
	}
	if x, r, ok := d.DataBytes(); !ok || x != 1180 || r != 400 {
		t.Errorf("DataBytes = %d %d %v", x, r, ok)
	}
	if n := len(d.Problems()); n != 2 {
		t.Errorf("problems %v", d.Problems())
	}
	if _, err := (PortCounters{Device: "mlx4_0", Port: 2}).Sub(before); err == nil {
		t.Error("another port: no error")
	}
	if _, err := before.Sub(after); err == nil {
		t.Error("older second snapshot: no error")
	}
}

func TestClassifyCounter(t *testing.T) {
	for name, want := range map[string]CounterClass{
		// rdma_rxe
		"sent_pkts": ClassTraffic, "rdma_recvs": ClassTraffic, "rcvd_seq_err": ClassRetransmission,
		"retry_rnr_exceeded_err": ClassRetransmission, "ack_deferred": ClassOther,
		"send_err": ClassError, "link_downed": ClassError,
		// mlx5, also in switchdev mode
		"out_of_sequence": ClassRetransmission, "vport_packet_seq_err": ClassRetransmission,
		"local_ack_timeout_err": ClassRetransmission, "out_of_buffer": ClassRetransmission,
		"np_cnp_sent": ClassCongestion, "rp_cnp_ignored": ClassCongestion,
		"np_ecn_marked_roce_packets": ClassCongestion, "req_cqe_error": ClassError,
		"rx_read_requests": ClassTraffic, "rx_dct_connect": ClassOther, "lifespan": ClassOther,
		// PMA
		"port_xmit_data": ClassTraffic, "port_xmit_wait": ClassCongestion, "symbol_error": ClassError,
		"port_rcv_errors": ClassError, "port_xmit_discards": ClassError, "VL15_dropped": ClassError,
		// by words: irdma, bnxt_re
		"ip4RxDiscards": ClassError, "cnpSent": ClassCongestion, "RxECNMrkd": ClassCongestion,
		"tcpRetransSegs": ClassRetransmission, "ip4TxOctets": ClassTraffic,
		"to_retransmits": ClassRetransmission, "seq_err_naks_rcvd": ClassRetransmission,
		"rx_pkts": ClassTraffic, "active_qps": ClassOther,
	} {
		if got := ClassifyCounter(name); got != want {
			t.Errorf("ClassifyCounter(%q) = %q, want %q", name, got, want)
		}
	}
}
