package report

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/sysroot"
)

// guestLoad is the per-CPU load and queue-interrupt distribution of the
// trixie guest under netperf traffic (irq/testdata/trixie/traffic).
func guestLoad(t *testing.T) (irq.Load, irq.Distribution) {
	t.Helper()
	dir := filepath.Join("..", "irq", "testdata", "trixie")
	fs := irq.Root(sysroot.ProcSys(filepath.Join(dir, "proc"), filepath.Join(dir, "sys")))
	dev, err := fs.Netdev("eth0")
	if err != nil {
		t.Fatal(err)
	}
	ib, err := trafficProc("before").Interrupts()
	if err != nil {
		t.Fatal(err)
	}
	ia, err := trafficProc("after").Interrupts()
	if err != nil {
		t.Fatal(err)
	}
	return trafficLoad(t), irq.Distribute(dev, ib, ia, nil, irq.Thresholds{})
}

// trafficProc reads the trixie guest's /proc before or after ("before",
// "after") its TCP_STREAM traffic (irq/testdata/trixie/traffic).
func trafficProc(when string) irq.Root {
	return irq.Root(sysroot.ProcSys(filepath.Join("..", "irq", "testdata", "trixie", "traffic", when, "proc"), ""))
}

// trafficLoad is the CPU load of the trixie guest's TCP_STREAM traffic.
func trafficLoad(t *testing.T) irq.Load {
	t.Helper()
	b, err := trafficProc("before").LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	a, err := trafficProc("after").LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	return a.Sub(b)
}

func TestAddNetperfInterims(t *testing.T) {
	res := netperfFixture(t, "trixie", "tcp-stream")
	r, err := FromNetperf("tcp_stream", t0, res)
	if err != nil {
		t.Fatal(err)
	}
	// The demo-mode capture: Interim result lines before the table.
	b, err := os.ReadFile(filepath.Join("..", "netperf", "testdata", "loopback", "tcp-stream-demo", "client.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	demo, _ := netperf.Parse(bytes.NewReader(b))
	if err := r.AddNetperfInterims(1, demo); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range r.Metrics {
		if m.Name == "interim_throughput" {
			got = append(got, m.Key())
			if m.Unit != UnitMbps || len(m.Values) != 1 {
				t.Errorf("%s: unit %s, %d values", m.Key(), m.Unit, len(m.Values))
			}
		}
	}
	if len(got) != len(demo.Interims) || len(got) < 3 {
		t.Fatalf("interim metrics %v, want %d", got, len(demo.Interims))
	}
	// First interval: 13441.39 10^6bits/s over 0.331 s.
	if got[0] != "interim_throughput/repeat=1/t=0.331" {
		t.Errorf("first interim %s, want interim_throughput/repeat=1/t=0.331", got[0])
	}
	if m, _ := r.Metric(got[0]); m.Values[0] != 13441.39 {
		t.Errorf("first interim value %v, want 13441.39", m.Values[0])
	}
	if err := r.AddInterim("throughput", UnitMbps, 0, nan(), 1); err == nil {
		t.Error("NaN time accepted")
	}
	if err := r.AddInterim("throughput", UnitMbps, 0, 1, nan()); err == nil {
		t.Error("NaN value accepted")
	}
}

func TestAddPerftestInterims(t *testing.T) {
	// The trixie ib_write_bw --run_infinitely -D 1 client: four rows in
	// MiB/s, the first 6.44.
	b, err := os.ReadFile(filepath.Join("..", "rocekittest", "captures", "trixie", "perftest", "write-bw-infinite", "client.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := perftest.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	rows := perftest.Interims(res, time.Second)
	var r Round
	if err := r.AddPerftestInterims(2, rows); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range r.Metrics {
		if m.Name == "interim_bw_avg" && m.Unit == UnitGbps && len(m.Values) == 1 {
			keys = append(keys, m.Key())
		}
	}
	if len(keys) != 4 || len(r.Metrics) != 4 {
		t.Fatalf("interim metrics %v of %d, want 4", keys, len(r.Metrics))
	}
	if keys[0] != "interim_bw_avg/repeat=2/t=1.000" || keys[3] != "interim_bw_avg/repeat=2/t=4.000" {
		t.Errorf("keys %v, want t=1.000 to t=4.000 of repeat 2", keys)
	}
	if m, _ := r.Metric(keys[0]); math.Abs(m.Values[0]-6.44*0.008388608) > 1e-12 {
		t.Errorf("first interim %v Gbit/s, want 6.44 MiB/s = %v", m.Values[0], 6.44*0.008388608)
	}
	// A row without a unit (NaN) is left out; a non-finite time fails.
	nan := perftest.Interim{Row: perftest.BWRow{BWAvgGbps: math.NaN()}, End: time.Second}
	if err := r.AddPerftestInterims(3, []perftest.Interim{nan}); err != nil || len(r.Metrics) != 4 {
		t.Errorf("a NaN row: %v, %d metrics", err, len(r.Metrics))
	}
	bad := perftest.Interim{Row: perftest.BWRow{BWAvgGbps: math.Inf(1)}, End: time.Second}
	if err := r.AddPerftestInterims(3, []perftest.Interim{bad}); !errors.Is(err, ErrInvalidRound) {
		t.Errorf("an inf row: %v, want ErrInvalidRound", err)
	}
}
