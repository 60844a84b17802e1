package plot

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rocekit/rocekit/report"
)

// Sweep draws a message-size sweep (ib_*_bw -a): bandwidth (bw_avg) and,
// beside it, message rate (msg_rate) against message size on log2 axes,
// one line per round at the medians (MTU 1500 and 9000 on one picture),
// and each round's RoCE path MTU (its "mtu" parameter, from perftest's
// header) as a dashed line: sizes above it take several packets. The
// error wraps report.ErrNoData when no round has bw_avg at two sizes.
//
// Similar to: ib_send_bw -a per MTU, pasted into one spreadsheet chart
func Sweep(rounds []report.Round) (Figure, error) {
	var bws, rates []sizeLine
	mtus := map[float64][]string{}
	for i, r := range rounds {
		bw := sizeSeries(r, report.MetricBWAvg)
		if len(bw.pts) < 2 {
			continue
		}
		bw.name, bw.col, bw.shape = r.Name, colorOf(i), shapeOf(i)
		bws = append(bws, bw)
		if mr := sizeSeries(r, report.MetricMsgRate); len(mr.pts) > 1 {
			mr.name, mr.col, mr.shape = r.Name, colorOf(i), shapeOf(i)
			rates = append(rates, mr)
		}
		if v, ok := r.Param(report.ParamMTU); ok {
			if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
				mtus[n] = append(mtus[n], r.Name)
			}
		}
	}
	if len(bws) == 0 {
		return Figure{}, fmt.Errorf("%w: no round has bw_avg at two message sizes (-a)", report.ErrNoData)
	}
	f := &frame{title: "bandwidth and message rate vs message size", plotH: 7 * 28.35}
	bwPanel := sizePanel(bws, "bw_avg ("+bws[0].unit+")", mtus)
	var ceil []seg
	for _, r := range rounds {
		if c, _, ok := ceilingOf(r, bws[0].unit); ok {
			lo, hi := sizeRange(bws)
			ceil = append(ceil, seg{lo, c, hi, c})
		}
	}
	if len(ceil) > 0 {
		bwPanel.Add(lines{Segs: ceil, Style: ceilingStyle()})
	}
	f.panels = append(f.panels, panel{bwPanel, 1})
	if len(rates) > 0 {
		f.panels = append(f.panels, panel{sizePanel(rates, "msg_rate ("+rates[0].unit+")", mtus), 1})
	}
	for _, l := range bws {
		f.legend = append(f.legend, legendEntry{l.name, l.line()})
	}
	keys := slices.Sorted(func(yield func(float64) bool) {
		for k := range mtus {
			if !yield(k) {
				return
			}
		}
	})
	for i, k := range keys {
		who := strings.Join(mtus[k], ", ")
		if len(mtus[k]) == len(bws) && len(bws) > 1 {
			who = "every round"
		}
		f.legend = append(f.legend, legendEntry{fmt.Sprintf("RoCE path MTU %.0f B: %s", k, who), lines{Style: mtuStyle(i)}})
	}
	caption := "Median bandwidth and message rate of each round at every message size of the sweep, on log2 axes; " +
		"the dashed lines are the RoCE path MTUs the rounds ran at (a message larger than it is sent as several packets)."
	if len(ceil) > 0 {
		f.legend = append(f.legend, legendEntry{"ceiling of the path (the verdict's lowest limit)", lines{Style: ceilingStyle()}})
		caption += " The red line is what the round's path could carry at best for large messages; small messages are bound by the message rate, not by it."
	}
	return f.figure("bandwidth", caption)
}

// sizeLine is one round's metric against message size.
type sizeLine struct {
	name, unit string
	col        color.Color
	shape      draw.GlyphDrawer
	pts        []pt
}

func (l sizeLine) line() polyline {
	return polyline{Pts: l.pts, Style: lineStyle(l.col, 1.5), Glyph: glyph(l.col, l.shape, 2.2)}
}

// sizeSeries is the medians of metric at each "size" label of r.
func sizeSeries(r report.Round, metric string) sizeLine {
	var l sizeLine
	for _, m := range r.Metrics {
		sz, ok := m.Label(report.LabelSize)
		n, err := strconv.ParseFloat(sz, 64)
		if m.Name != metric || !ok || err != nil || n <= 0 || len(m.Values) == 0 {
			continue
		}
		if med := report.Summarize(m).Median; med > 0 {
			l.unit = m.Unit
			l.pts = append(l.pts, pt{n, med})
		}
	}
	slices.SortFunc(l.pts, func(a, b pt) int { return cmpFloat(a.X, b.X) })
	return l
}

// sizePanel is a log2-size panel of lines with the path MTUs marked.
func sizePanel(ls []sizeLine, ylabel string, mtus map[float64][]string) *gonum.Plot {
	p := newPlot()
	p.X.Scale = gonum.LogScale{}
	p.X.Tick.Marker = pow2Ticks{}
	p.X.Label.Text = "message size (B, log2)"
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	ymax := 0.0
	for _, l := range ls {
		p.Add(l.line())
		for _, q := range l.pts {
			ymax = math.Max(ymax, q.Y)
		}
	}
	i := 0
	for _, k := range slices.Sorted(maps.Keys(mtus)) {
		p.Add(lines{Segs: []seg{{k, 0, k, ymax}}, Style: mtuStyle(i), NoRange: true})
		i++
	}
	return p
}

// mtuStyle is the dashed style of the i-th path MTU.
func mtuStyle(i int) draw.LineStyle {
	s := dashed(grey)
	s.Dashes = [][]vg.Length{{4, 3}, {1, 2}, {6, 2, 1, 2}}[i%3]
	return s
}

// pow2Ticks marks powers of two on a log axis with at most six labels:
// 2, 32, 512, 8K, 128K, 2M.
type pow2Ticks struct{}

// Ticks returns the powers of two in [min, max].
func (pow2Ticks) Ticks(min, max float64) []gonum.Tick {
	lo, hi := math.Ceil(math.Log2(math.Max(min, 1))), math.Floor(math.Log2(math.Max(max, 1)))
	step := math.Max(1, math.Ceil((hi-lo+1)/6))
	var ts []gonum.Tick
	for e := lo; e <= hi; e++ {
		t := gonum.Tick{Value: math.Pow(2, e)}
		if math.Mod(e-lo, step) == 0 {
			t.Label = sizeLabel(t.Value)
		}
		ts = append(ts, t)
	}
	return ts
}

// sizeLabel prints a byte size: 512, 8K, 2M.
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

// shapeOf is the glyph of the i-th line: a new shape each time the
// palette's colours repeat.
func shapeOf(i int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}}
	return shapes[(i/len(plotutil.DefaultColors))%len(shapes)]
}

// sizeRange is the smallest and largest message size of the lines.
func sizeRange(ls []sizeLine) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		for _, q := range l.pts {
			lo, hi = math.Min(lo, q.X), math.Max(hi, q.X)
		}
	}
	return lo, hi
}
