package rxe

import (
	"os"
	"testing"

	"github.com/rocekit/rocekit/sysroot"
)

// referenceInfiniband is the sysfs-infiniband case of the kernel-file check
// corpus (prometheus/procfs fixtures: hfi1_0, mlx4_0, mlx5_0), read in
// place; it is not part of the project.
const referenceInfiniband = "../../shared/reference/captures/kernel/sysfs-infiniband/001-procfs-fixture-class-infiniband"

func referenceRoot(t *testing.T) Root {
	t.Helper()
	if _, err := os.Stat(referenceInfiniband + "/sys/class/infiniband"); err != nil {
		t.Skipf("reference captures absent: %v", err)
	}
	return Root(sysroot.FromFS(os.DirFS(referenceInfiniband)))
}

// TestReferenceCapturesPorts checks cases.json's expectations: every port
// ACTIVE, link layer InfiniBand; mlx5_0's phys_state holds "4: ACTIVE" (a
// fixture oddity), which reads as physical state 4 (PhysTraining).
func TestReferenceCapturesPorts(t *testing.T) {
	root := referenceRoot(t)
	for _, tc := range []struct {
		dev  string
		port int
		phys PhysState
	}{
		{"hfi1_0", 1, PhysLinkUp},
		{"mlx4_0", 1, PhysLinkUp},
		{"mlx4_0", 2, PhysLinkUp},
		{"mlx5_0", 1, PhysTraining},
	} {
		p, err := root.Port(tc.dev, tc.port)
		if err != nil {
			t.Errorf("%s/%d: %v", tc.dev, tc.port, err)
			continue
		}
		if p.State != PortActive || p.PhysState != tc.phys || p.LinkLayer != "InfiniBand" || p.Netdev != "" {
			t.Errorf("%s/%d: %+v", tc.dev, tc.port, p)
		}
	}
}

// TestReferenceCapturesCounters reads the PMA counters of the three
// devices and mlx5_0's hw_counters, values as the files hold them.
func TestReferenceCapturesCounters(t *testing.T) {
	root := referenceRoot(t)
	for _, tc := range []struct {
		dev                 string
		port                int
		nPMA, nHW           int
		xmitData, rcvData   uint64
		xmitPkts, xmitWait  uint64
		hw                  map[string]uint64
		problems            []string // against an all-zero snapshot
		lifespanMillisecond int
	}{
		{dev: "hfi1_0", port: 1, nPMA: 17, xmitData: 273558326543, rcvData: 345091702026, xmitPkts: 568318856},
		{dev: "mlx4_0", port: 1, nPMA: 17, xmitData: 26509113295, rcvData: 2221223609, xmitPkts: 85734114, xmitWait: 3599,
			problems: []string{"port_xmit_wait"}},
		{dev: "mlx4_0", port: 2, nPMA: 17, xmitData: 26540356890, rcvData: 2460436784, xmitPkts: 88622850, xmitWait: 3846,
			problems: []string{"port_xmit_wait"}},
		{dev: "mlx5_0", port: 1, nPMA: 21, nHW: 24, xmitData: 2880761508848, rcvData: 18126345378, xmitPkts: 10907922116,
			hw: map[string]uint64{"duplicate_request": 41, "local_ack_timeout_err": 131, "out_of_sequence": 1,
				"packet_seq_err": 1, "req_cqe_error": 3481, "resp_cqe_flush_error": 4708,
				"rx_read_requests": 175528982, "rx_write_requests": 742114, "roce_adp_retrans": 99,
				"roce_slow_restart_cnps": 131, "rnr_nak_retry_err": 0},
			problems: []string{
				"duplicate_request", "local_ack_timeout_err", "out_of_sequence", "packet_seq_err",
				"req_cqe_error", "req_cqe_flush_error", "resp_cqe_error", "resp_cqe_flush_error",
				"roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart_cnps"},
			lifespanMillisecond: 10},
	} {
		c, err := root.PortCounters(tc.dev, tc.port)
		if err != nil {
			t.Errorf("%s/%d: %v", tc.dev, tc.port, err)
			continue
		}
		if len(c.PMA) != tc.nPMA || len(c.HW) != tc.nHW || len(c.Warnings) != 0 {
			t.Errorf("%s/%d: %d PMA, %d hw counters, warnings %v", tc.dev, tc.port, len(c.PMA), len(c.HW), c.Warnings)
		}
		if c.PMA["port_xmit_data"] != tc.xmitData || c.PMA["port_rcv_data"] != tc.rcvData ||
			c.PMA["port_xmit_packets"] != tc.xmitPkts || c.PMA["port_xmit_wait"] != tc.xmitWait {
			t.Errorf("%s/%d: PMA %v", tc.dev, tc.port, c.PMA)
		}
		if x, r, ok := c.DataBytes(); !ok || x != 4*tc.xmitData || r != 4*tc.rcvData {
			t.Errorf("%s/%d: DataBytes %d %d %v", tc.dev, tc.port, x, r, ok)
		}
		for name, want := range tc.hw {
			if v, src, ok := c.Counter(name); !ok || v != want || src != SourceHW {
				t.Errorf("%s/%d: %s = %d (%s, %v), want %d", tc.dev, tc.port, name, v, src, ok, want)
			}
		}
		if c.Lifespan.Milliseconds() != int64(tc.lifespanMillisecond) {
			t.Errorf("%s/%d: lifespan %v", tc.dev, tc.port, c.Lifespan)
		}
		// Growth since a zeroed port: which counters would be problems.
		zero := PortCounters{Device: c.Device, Port: c.Port, Time: c.Time, HW: map[string]uint64{}, PMA: map[string]uint64{}}
		for n := range c.HW {
			zero.HW[n] = 0
		}
		for n := range c.PMA {
			zero.PMA[n] = 0
		}
		d, err := c.Sub(zero)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range d.Problems() {
			got = append(got, p.Name)
		}
		if len(got) != len(tc.problems) {
			t.Errorf("%s/%d: problems %v, want %v", tc.dev, tc.port, got, tc.problems)
			continue
		}
		for i := range got {
			if got[i] != tc.problems[i] {
				t.Errorf("%s/%d: problems %v, want %v", tc.dev, tc.port, got, tc.problems)
				break
			}
		}
	}
}
