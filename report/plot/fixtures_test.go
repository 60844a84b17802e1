package plot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/sysroot"
)

var t0 = time.Date(2026, 11, 29, 17, 15, 53, 0, time.UTC)

// demoRounds loads a store the lab demo wrote (testdata/demo-trixie, from
// "go run ./internal/lab/cmd/lab demo -suite trixie" on 2026-12-01).
func demoRounds(t testing.TB, example string) []report.Round {
	t.Helper()
	rs, res, err := report.OpenStore(filepath.Join("testdata", "demo-trixie", example+".jsonl")).Load()
	if err != nil || res.Torn || len(res.Corrupt) > 0 || len(rs) == 0 {
		t.Fatalf("%s: %d rounds, %+v, %v", example, len(rs), res, err)
	}
	return rs
}

// perftestRound is a round from a captured perftest client output.
func perftestRound(t testing.TB, name, suite, c string) report.Round {
	t.Helper()
	dir := filepath.Join("..", "..", "rocekittest", "captures", suite, "perftest", c)
	out, err := os.ReadFile(filepath.Join(dir, "client.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errb, _ := os.ReadFile(filepath.Join(dir, "client.stderr"))
	res, _ := perftest.ParseOutput(out, errb)
	r, err := report.FromPerftest(name, t0, res)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// guestRound is a round holding the per-CPU load and queue interrupts of
// the trixie guest under netperf traffic (irq/testdata/trixie/traffic).
func guestRound(t testing.TB) report.Round {
	t.Helper()
	dir := filepath.Join("..", "..", "irq", "testdata", "trixie")
	dev, err := irq.Root(sysroot.ProcSys(filepath.Join(dir, "proc"), filepath.Join(dir, "sys"))).Netdev("eth0")
	if err != nil {
		t.Fatal(err)
	}
	at := func(when string) irq.Root {
		return irq.Root(sysroot.ProcSys(filepath.Join(dir, "traffic", when, "proc"), ""))
	}
	lb, err1 := at("before").LoadSnapshot()
	la, err2 := at("after").LoadSnapshot()
	ib, err3 := at("before").Interrupts()
	ia, err4 := at("after").Interrupts()
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			t.Fatal(err)
		}
	}
	r := report.Round{Name: "udp_stream_guest", Start: t0,
		Fingerprint: &report.Fingerprint{NICs: []report.NICFingerprint{{Host: "remote", Netdev: "eth0", NUMANode: 0, NUMANodeCPUs: "0"}}}}
	if err := r.AddCPULoad(la.Sub(lb)); err != nil {
		t.Fatal(err)
	}
	if err := r.AddIRQDistribution(irq.Distribute(dev, ib, ia, nil, irq.Thresholds{})); err != nil {
		t.Fatal(err)
	}
	return r
}

// interimRound is a round with the interim results of a captured
// netperf -D run (netperf/testdata/loopback/tcp-stream-demo).
func interimRound(t testing.TB) report.Round {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "netperf", "testdata", "loopback", "tcp-stream-demo", "client.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := netperf.Parse(bytes.NewReader(b))
	r, err := report.FromNetperf("tcp_stream_demo", t0, res)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddNetperfInterims(0, res); err != nil {
		t.Fatal(err)
	}
	return r
}

// longName is a round name of exactly 40 characters ending in i.
func longName(i int) string {
	s := fmt.Sprintf("udp_stream_mtu9000_irqspread_round_%02d", i)
	return s + strings.Repeat("x", 40-len(s))
}

// many makes n rounds from base: names of 40 characters, every value
// scaled by 1 + 0.07 i (so rows differ), the runs repeated rep times with
// a small spread so that some rounds have a CI.
func many(base report.Round, n, rep int) []report.Round {
	out := make([]report.Round, n)
	for i := range out {
		r := base
		r.Name = longName(i)
		r.Metrics = make([]report.Metric, len(base.Metrics))
		for j, m := range base.Metrics {
			m.Values = nil
			for k := 0; k < rep; k++ {
				for _, v := range base.Metrics[j].Values {
					m.Values = append(m.Values, v*(1+0.07*float64(i))*(1+0.01*float64(k)))
				}
			}
			r.Metrics[j] = m
		}
		out[i] = r
	}
	return out
}

// savePNG writes fig as PNG into $ROCEKIT_PLOT_PNG, when set, to look at.
func savePNG(t *testing.T, name string, fig Figure) {
	dir := os.Getenv("ROCEKIT_PLOT_PNG")
	if dir == "" {
		return
	}
	b, err := fig.PNG(110)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644)
	os.WriteFile(filepath.Join(dir, name+".svg"), fig.SVG, 0o644)
}

// soakRound is a round with the interim rows of one side of a captured
// perftest --run_infinitely -D 1 run (rocekittest/captures/SUITE/perftest/C).
func soakRound(t testing.TB, suite, c string, role ...string) report.Round {
	t.Helper()
	side := "client"
	if len(role) > 0 {
		side = role[0]
	}
	dir := filepath.Join("..", "..", "rocekittest", "captures", suite, "perftest", c)
	out, err := os.ReadFile(filepath.Join(dir, side+".stdout"))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := perftest.Parse(bytes.NewReader(out))
	r := report.Round{Name: c + " " + suite + " " + side, Start: t0}
	if err := r.AddPerftestInterims(0, perftest.Interims(res, time.Second)); err != nil {
		t.Fatal(err)
	}
	return r
}

// withInterims gives each round the interim results of the captured
// netperf -D run (interimRound) as runs 0 to runs-1, scaled per round and
// run so that the lines differ: the example's page after -interval 1.
func withInterims(t testing.TB, rounds []report.Round, runs int) []report.Round {
	t.Helper()
	demo := interimRound(t)
	out := make([]report.Round, len(rounds))
	for i, r := range rounds {
		r.Metrics = slices.Clone(r.Metrics)
		for k := range runs {
			for _, m := range demo.Metrics {
				ts, ok := m.Label("t")
				if m.Name != "interim_throughput" || !ok {
					continue
				}
				sec, _ := strconv.ParseFloat(ts, 64)
				v := m.Values[0] * (1 + 0.1*float64(i)) * (1 - 0.05*float64(k))
				if err := r.AddInterim("throughput", m.Unit, k, sec, v); err != nil {
					t.Fatal(err)
				}
			}
		}
		out[i] = r
	}
	return out
}

// withCeiling judges each round against a link of mbps Mb/s at its RoCE
// path MTU (report.Bottleneck), as a step stores the verdict.
func withCeiling(t testing.TB, rounds []report.Round, mbps int) []report.Round {
	t.Helper()
	out := slices.Clone(rounds)
	for i := range out {
		mtu := 1500
		if v, ok := out[i].Param("netdev_mtu"); ok {
			mtu, _ = strconv.Atoi(v)
		}
		end := report.End{Host: "lab", Snapshot: nic.Snapshot{Netdev: "eth0", MTU: mtu, Link: &nic.LinkSettings{SpeedMbps: mbps, LinkDetected: true}}}
		out[i].Bottleneck = report.Bottleneck(report.BottleneckInput{Round: &out[i], Ends: []report.End{end}})
		if v := out[i].Bottleneck; v == nil || v.Ceiling == nil {
			t.Fatalf("%s: no ceiling at %d Mb/s: %+v", out[i].Name, mbps, v)
		}
	}
	return out
}
