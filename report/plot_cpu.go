package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/rocekit/rocekit/irq"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotCPULoad draws the per-CPU load of a run: for each CPU, the share of
// its time in softirq and in hard IRQ (mpstat's %soft and %irq, from
// irq.Load) and, when dist is not nil, its share of the NIC's queue
// interrupts (from irq.Distribution), as grouped bars in percent. A hot
// softirq core and interrupts concentrated on one CPU stand out. It writes
// SVG.
//
// Similar to: mpstat -P ALL 1 and watch -d grep eth0 /proc/interrupts, side by side
func PlotCPULoad(w io.Writer, load irq.Load, dist *irq.Distribution) error {
	return svg(cpuLoadPlot(load, dist))(w)
}

func cpuLoadPlot(load irq.Load, dist *irq.Distribution) (*plot.Plot, error) {
	if len(load.CPUs) == 0 {
		return nil, fmt.Errorf("%w: no per-CPU load", ErrNoData)
	}
	var soft, hard, share plotter.Values
	names := make([]string, len(load.CPUs))
	perCPU := map[int]uint64{}
	if dist != nil {
		for _, c := range dist.PerCPU {
			perCPU[c.CPU] = c.Count
		}
	}
	for i, c := range load.CPUs {
		names[i] = "CPU" + strconv.Itoa(c.CPU)
		soft = append(soft, c.SoftPct)
		hard = append(hard, c.IRQPct)
		s := 0.0
		if dist != nil && dist.Total > 0 {
			s = 100 * float64(perCPU[c.CPU]) / float64(dist.Total)
		}
		share = append(share, s)
	}
	p := plot.New()
	p.Title.Text = "per-CPU softirq and interrupt load"
	p.Y.Label.Text = "%"
	p.Y.Min, p.Y.Max = 0, 100
	p.Legend.Top = true
	groups := []struct {
		name string
		vs   plotter.Values
	}{{"%soft", soft}, {"%irq", hard}}
	if dist != nil {
		groups = append(groups, struct {
			name string
			vs   plotter.Values
		}{"% of queue interrupts", share})
	}
	width := vg.Points(40 / float64(len(groups)))
	if len(load.CPUs) > 16 {
		width = vg.Points(120 / float64(len(load.CPUs)*len(groups)))
	}
	for i, g := range groups {
		b, err := plotter.NewBarChart(g.vs, width)
		if err != nil {
			return nil, fmt.Errorf("report: plot: %w", err)
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		b.Offset = width * vg.Length(float64(i)-float64(len(groups)-1)/2)
		p.Add(b)
		p.Legend.Add(g.name, b)
	}
	p.NominalX(names...)
	if len(names) > 16 {
		for i := range names {
			if i%4 != 0 {
				names[i] = ""
			}
		}
		p.NominalX(names...)
	}
	return p, nil
}
