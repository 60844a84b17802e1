package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotW and plotH are the size of the SVG plots.
var plotW, plotH = 16 * vg.Centimeter, 10 * vg.Centimeter

// PlotBandwidth draws metric (normally "bw_avg") against message size, one
// line per round, from rounds with a "size" label (ib_*_bw -a): the median
// of each size, log2 sizes on the x axis. It writes SVG.
//
// Similar to: ib_send_bw -a, pasted into a spreadsheet chart per MTU
func PlotBandwidth(w io.Writer, rounds []Round, metric string) error {
	return svg(bandwidthPlot(rounds, metric))(w)
}

func bandwidthPlot(rounds []Round, metric string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = metric + " vs message size"
	p.X.Label.Text = "message size (B)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = pow2Ticks{}
	p.Legend.Top = true
	p.Legend.Left = true
	var args []any
	unit := ""
	for _, r := range rounds {
		var xys plotter.XYs
		for _, m := range r.Metrics {
			sz, ok := m.Label("size")
			n, err := strconv.ParseFloat(sz, 64)
			if m.Name != metric || !ok || err != nil || n <= 0 || len(m.Values) == 0 {
				continue
			}
			unit = m.Unit
			xys = append(xys, plotter.XY{X: n, Y: median(m)})
		}
		if len(xys) == 0 {
			continue
		}
		slices.SortFunc(xys, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
		args = append(args, r.Name, xys)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("%w: no %s with a size label", ErrNoData, metric)
	}
	p.Y.Label.Text = metric + " (" + unit + ")"
	p.Y.Min = 0
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, fmt.Errorf("report: plot: %w", err)
	}
	return p, nil
}

// latencyMetrics are the latency percentiles PlotLatency draws, in order.
var latencyMetrics = []string{"t_min", "t_typical", "t_avg", "p99", "p99.9", "t_max"}

// PlotLatency draws the latency percentiles (t_min, t_typical, t_avg, p99,
// p99.9, t_max) of each round at one message size, one line per round, on
// a log scale so that t_max far above t_typical stays readable. It writes
// SVG.
//
// Similar to: ib_send_lat, reading the percentiles off the last line
func PlotLatency(w io.Writer, rounds []Round, size string) error {
	return svg(latencyPlot(rounds, size))(w)
}

func latencyPlot(rounds []Round, size string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "latency at " + size + " B"
	p.Y.Label.Text = "us (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.NominalX(latencyMetrics...)
	p.Legend.Top = true
	p.Legend.Left = true
	var args []any
	for _, r := range rounds {
		var xys plotter.XYs
		for i, name := range latencyMetrics {
			m, ok := r.Metric(name + "/size=" + size)
			if v := median(m); ok && v > 0 {
				xys = append(xys, plotter.XY{X: float64(i), Y: v})
			}
		}
		if len(xys) > 0 {
			args = append(args, r.Name, xys)
		}
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("%w: no latency at size %s", ErrNoData, size)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, fmt.Errorf("report: plot: %w", err)
	}
	return p, nil
}

// PlotRounds draws one metric of several rounds side by side: a bar per
// round at its median, with the 95% CI as error bars where the sample is
// large enough for one (a round without is labelled "n=3, no CI"). It
// writes SVG.
//
// Similar to: the (A) default, (B) MTU 9000, (C) + IRQ spread bar chart of a tuning report
func PlotRounds(w io.Writer, rounds []Round, metric string) error {
	return svg(roundsPlot(rounds, metric))(w)
}

func roundsPlot(rounds []Round, metric string) (*plot.Plot, error) {
	var meds plotter.Values
	var errs plotter.YErrors
	var names []string
	unit := ""
	for _, r := range rounds {
		m, ok := r.Metric(metric)
		if !ok || len(m.Values) == 0 {
			continue
		}
		s := summarize(sampleOf(m), 0.95)
		unit = m.Unit
		meds = append(meds, s.Median)
		lo, hi := 0.0, 0.0
		if s.HasCI() {
			lo, hi = s.Median-s.Lo, s.Hi-s.Median
		}
		errs = append(errs, struct{ Low, High float64 }{lo, hi})
		name := r.Name
		if !s.HasCI() {
			name += fmt.Sprintf(" (n=%d, no CI)", s.N)
		}
		names = append(names, name)
	}
	if len(meds) == 0 {
		return nil, fmt.Errorf("%w: no round has %s", ErrNoData, metric)
	}
	p := plot.New()
	p.Title.Text = metric + " by round (median, 95% CI)"
	p.Y.Label.Text = metric + " (" + unit + ")"
	bars, err := plotter.NewBarChart(meds, vg.Centimeter)
	if err != nil {
		return nil, fmt.Errorf("report: plot: %w", err)
	}
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	xys := make(plotter.XYs, len(meds))
	for i, v := range meds {
		xys[i] = plotter.XY{X: float64(i), Y: v}
	}
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
	if err != nil {
		return nil, fmt.Errorf("report: plot: %w", err)
	}
	p.Add(eb)
	p.NominalX(names...)
	p.Y.Min = 0
	return p, nil
}

// svg returns a function that writes p as SVG, or returns err.
func svg(p *plot.Plot, err error) func(io.Writer) error {
	return func(w io.Writer) error {
		if err != nil {
			return err
		}
		return writePlot(p, w, "svg")
	}
}

// writePlot writes p in format ("svg", "png").
func writePlot(p *plot.Plot, w io.Writer, format string) error {
	wt, err := p.WriterTo(plotW, plotH, format)
	if err != nil {
		return fmt.Errorf("report: plot: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("report: plot: %w", err)
	}
	return nil
}

// pow2Ticks marks powers of two on a log axis: 2, 8, 32, ..., 1K, 1M.
type pow2Ticks struct{}

// Ticks returns the powers of two in [min, max], every other one labelled.
func (pow2Ticks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log2(math.Max(min, 1))); math.Pow(2, e) <= max; e++ {
		v := math.Pow(2, e)
		if v < min {
			continue
		}
		label := ""
		if int(e)%2 == 1 {
			label = sizeLabel(v)
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
	}
	return ts
}

func sizeLabel(v float64) string {
	switch {
	case v >= 1<<20:
		return strconv.FormatFloat(v/(1<<20), 'g', -1, 64) + "M"
	case v >= 1<<10:
		return strconv.FormatFloat(v/(1<<10), 'g', -1, 64) + "K"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
