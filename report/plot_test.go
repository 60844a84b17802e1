package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/irq"
	"gonum.org/v1/plot"
)

// savePNG renders p as PNG into $ROCEKIT_PLOT_PNG, when set, for looking at
// the plots as images.
func savePNG(t *testing.T, name string, p *plot.Plot) {
	dir := os.Getenv("ROCEKIT_PLOT_PNG")
	if dir == "" {
		return
	}
	var b bytes.Buffer
	if err := writePlot(p, &b, "png"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func guestLoad(t *testing.T) (irq.Load, irq.Distribution) {
	t.Helper()
	dir := filepath.Join("..", "irq", "testdata", "trixie")
	fs := irq.NewFS(filepath.Join(dir, "proc"), filepath.Join(dir, "sys"))
	dev, err := fs.Netdev("eth0")
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "traffic")
	b, err := irq.NewFS(filepath.Join(tr, "before", "proc"), "").LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	a, err := irq.NewFS(filepath.Join(tr, "after", "proc"), "").LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	ib, err := irq.NewFS(filepath.Join(tr, "before", "proc"), "").Interrupts()
	if err != nil {
		t.Fatal(err)
	}
	ia, err := irq.NewFS(filepath.Join(tr, "after", "proc"), "").Interrupts()
	if err != nil {
		t.Fatal(err)
	}
	return irq.LoadBetween(b, a), irq.Distribute(dev, ib, ia, nil, nil)
}

func TestPlots(t *testing.T) {
	sweepB, _ := FromPerftest("bookworm 4.5", t0, perftestFixture(t, "bookworm", "send-bw-a", "client"))
	sweepT, _ := FromPerftest("trixie 25.01", t0, perftestFixture(t, "trixie", "send-bw-a", "client"))
	latB, _ := FromPerftest("bookworm 4.5", t0, perftestFixture(t, "bookworm", "send-lat", "client"))
	latT, _ := FromPerftest("trixie 25.01", t0, perftestFixture(t, "trixie", "send-lat", "client"))
	load, dist := guestLoad(t)
	for _, tc := range []struct {
		name  string
		build func() (*plot.Plot, error)
		want  []string // text the SVG must hold
	}{
		{"bandwidth", func() (*plot.Plot, error) { return bandwidthPlot([]Round{sweepB, sweepT}, "bw_avg") },
			[]string{"bw_avg vs message size", "bookworm 4.5", "trixie 25.01", "message size (B)", "Gbit/s"}},
		{"latency", func() (*plot.Plot, error) { return latencyPlot([]Round{latB, latT}, "2") },
			[]string{"latency at 2 B", "t_typical", "p99.9", "t_max", "bookworm 4.5"}},
		{"rounds", func() (*plot.Plot, error) {
			return roundsPlot([]Round{baselineRound(), candidateRound(), smallRound()}, "bw_avg/size=65536")
		}, []string{"mtu1500", "mtu9000", "mtu9000-quick", "95% CI"}},
		{"cpu_load", func() (*plot.Plot, error) { return cpuLoadPlot(load, &dist) },
			[]string{"CPU0", "CPU1", "%soft", "% of queue interrupts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := writePlot(p, &b, "svg"); err != nil {
				t.Fatal(err)
			}
			svg := b.String()
			if !strings.Contains(svg, "<svg") {
				t.Fatalf("not SVG: %.100s", svg)
			}
			for _, w := range tc.want {
				if !strings.Contains(svg, w) {
					t.Errorf("SVG lacks %q", w)
				}
			}
			golden(t, "plots/"+tc.name+".svg", b.Bytes())
			savePNG(t, tc.name, p)
		})
	}
}

func TestPlotsWithoutData(t *testing.T) {
	var b bytes.Buffer
	for name, err := range map[string]error{
		"bandwidth": PlotBandwidth(&b, []Round{baselineRound()}, "msg_rate"),
		"latency":   PlotLatency(&b, nil, "2"),
		"rounds":    PlotRounds(&b, []Round{baselineRound()}, "nope"),
		"cpu":       PlotCPULoad(&b, irq.Load{}, nil),
	} {
		if !errors.Is(err, ErrNoData) {
			t.Errorf("%s: %v, want ErrNoData", name, err)
		}
	}
	if b.Len() != 0 {
		t.Errorf("wrote %d bytes without data", b.Len())
	}
}
