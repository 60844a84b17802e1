package report

import (
	"errors"
	"testing"

	"github.com/rocekit/rocekit/nic"
)

func TestRoundSnapshots(t *testing.T) {
	r, err := FromNetperf("udp_a", t0, netperfFixture(t, "bookworm", "udp-stream-loss"))
	if err != nil {
		t.Fatal(err)
	}
	before := nic.Stats{Netdev: "eth1", Ethtool: map[string]uint64{"rx_queue_0_drops": 10}, Link: map[string]uint64{"rx_dropped": 3}}
	after := nic.Stats{Netdev: "eth1", Ethtool: map[string]uint64{"rx_queue_0_drops": 110}, Link: map[string]uint64{"rx_dropped": 3}}
	d, err := after.Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	load, dist := guestLoad(t)
	for _, err := range []error{r.AddNICLosses(d), r.AddUDPErrors(nic.UDPCounters{InErrors: 1774, RcvbufErrors: 1774}),
		r.AddCPULoad(load), r.AddIRQDistribution(dist)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]float64{}
	for _, m := range r.Metrics[6:] {
		got[m.Key()] = m.Values[0]
	}
	want := map[string]float64{
		"nic_loss/netdev=eth1/counter=ethtool.rx_queue_0_drops": 100,
		"udp_rcvbuf_errors": 1774, "udp_sndbuf_errors": 0, "udp_mem_errors": 0, "udp_in_errors": 1774,
		"queue_irqs/netdev=eth0/cpu=1": 231, "queue_irqs/netdev=eth0/cpu=2": 496,
		"queue_irq_busiest_share/netdev=eth0": 496.0 / 727,
	}
	maxSoft := 0.0
	for _, c := range load.CPUs {
		want["cpu_soft/cpu="+itoa(c.CPU)] = c.SoftPct
		want["cpu_irq/cpu="+itoa(c.CPU)] = c.IRQPct
		maxSoft = max(maxSoft, c.SoftPct)
	}
	want["cpu_soft_max"] = maxSoft
	diff(t, want, got)
	if maxSoft <= 0 {
		t.Error("the guest capture shows no softirq time")
	}
	if err := r.Validate(); err != nil {
		t.Error(err)
	}
	// A second repeat adds values to the same metrics.
	if err := r.AddUDPErrors(nic.UDPCounters{}); err != nil {
		t.Fatal(err)
	}
	m, _ := r.Metric("udp_rcvbuf_errors")
	diff(t, []float64{1774, 0}, m.Values)
	if err := r.AddValue("udp_rcvbuf_errors", nil, "us", LowerIsBetter, 1); !errors.Is(err, ErrInvalidRound) {
		t.Errorf("unit change: %v", err)
	}
	if err := r.AddValue("x", nil, "u", LowerIsBetter, nan()); !errors.Is(err, ErrInvalidRound) {
		t.Errorf("NaN: %v", err)
	}
}
