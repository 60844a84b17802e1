package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rocekit/rocekit/report"
)

// maxLatencyRows caps the rows of Latency; a sweep with more sizes is
// thinned to every k-th size (the first and last kept).
const maxLatencyRows = 24

// Latency draws the latency distribution of perftest latency rounds
// (ib_*_lat), one row per round and message size, on a log axis: a thin
// line from t_min to t_max, a thick one from t_typical to p99, and marks
// at t_min, t_typical, p99, p99.9 and t_max (medians over the runs);
// beside each row the jitter ratio t_max/t_typical. The error wraps
// report.ErrNoData when no round has t_typical.
//
// Similar to: ib_send_lat -a, reading t_min, t_typical, 99% and 99.9% off each line
func Latency(rounds []report.Round) (Figure, error) {
	type row struct {
		name string
		v    map[string]float64
	}
	var rows []row
	for _, r := range rounds {
		sizes := latencySizes(r)
		for _, sz := range thin(sizes, max(1, maxLatencyRows/max(1, len(rounds)))) {
			v := map[string]float64{}
			for _, name := range latencyMarks {
				if m, ok := r.Metric(name + "/size=" + sz); ok {
					if med := report.Summarize(m).Median; med > 0 {
						v[name] = med
					}
				}
			}
			if v[report.MetricTTypical] > 0 {
				rows = append(rows, row{r.Name + " @" + sizeLabel(atof(sz)) + " B", v})
			}
		}
	}
	if len(rows) == 0 {
		return Figure{}, fmt.Errorf("%w: no round has t_typical", report.ErrNoData)
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.name
	}
	f, l := rowFigure("latency distribution by round and size", names, report.UnitMicros, "latency, log scale")
	l.p.X.Min = math.Inf(1)
	l.p.X.Scale = gonum.LogScale{}
	l.p.X.Tick.Marker = decadeTicks{}
	whisker, box := lines{Style: lineStyle(grey, 1)}, lines{Style: lineStyle(colorOf(0), 5)}
	marks := make([]dots, len(latencyMarks))
	for i := range marks {
		marks[i].Glyph = glyph(markColors[i], markShapes[i], 3)
	}
	for i, r := range rows {
		y := l.y(i)
		lo, hi := r.v[report.MetricTMin], r.v[report.MetricTMax]
		if lo > 0 && hi > 0 {
			whisker.Segs = append(whisker.Segs, seg{lo, y, hi, y})
		}
		if p99 := r.v[report.MetricP99]; p99 > 0 {
			box.Segs = append(box.Segs, seg{r.v[report.MetricTTypical], y, p99, y})
		}
		for j, name := range latencyMarks {
			if v := r.v[name]; v > 0 {
				marks[j].Pts = append(marks[j].Pts, pt{v, y})
			}
		}
		text := "no t_max"
		if hi > 0 {
			text = fmt.Sprintf("max/typ ×%.3g", hi/r.v[report.MetricTTypical])
		}
		f.notes = append(f.notes, note{Y: y, Text: text})
	}
	l.p.Add(whisker, box)
	f.legend = append(f.legend, legendEntry{"t_min – t_max", whisker}, legendEntry{"t_typical – p99", box})
	for i, d := range marks {
		l.p.Add(d)
		f.legend = append(f.legend, legendEntry{latencyMarks[i], d})
	}
	caption := "Latency medians over the runs for each round and message size on a log axis: t_min, t_typical, p99, p99.9 and t_max; " +
		"beside each row t_max/t_typical, the jitter ratio (above 10 the latency is jittery)."
	return f.figure("latency", caption)
}

// latencyMarks are the percentiles Latency marks, in order.
var latencyMarks = []string{report.MetricTMin, report.MetricTTypical, report.MetricP99, report.MetricP999, report.MetricTMax}

var (
	markShapes = []draw.GlyphDrawer{draw.BoxGlyph{}, draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}}
	markColors = []color.Color{colorOf(2), colorOf(0), colorOf(1), colorOf(3), colorOf(4)}
)

// latencySizes are the sizes at which r has t_typical, smallest first.
func latencySizes(r report.Round) []string {
	var s []string
	for _, m := range r.Metrics {
		if sz, ok := m.Label(report.LabelSize); ok && m.Name == report.MetricTTypical {
			s = append(s, sz)
		}
	}
	slices.SortFunc(s, func(a, b string) int { return cmpFloat(atof(a), atof(b)) })
	return s
}

// thin keeps at most n of ss, evenly spaced, the first and last included.
func thin(ss []string, n int) []string {
	if len(ss) <= n {
		return ss
	}
	if n == 1 {
		return ss[len(ss)-1:]
	}
	out := make([]string, n)
	for i := range out {
		out[i] = ss[i*(len(ss)-1)/(n-1)]
	}
	return out
}

func atof(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// decadeTicks marks powers of ten on a log axis, at most six labelled:
// 1, 10, 100, 1k, 10k, 1M.
type decadeTicks struct{}

// Ticks returns the powers of ten in [min, max] and minor ticks between.
func (decadeTicks) Ticks(min, max float64) []gonum.Tick {
	lo, hi := math.Floor(math.Log10(math.Max(min, 1e-9))), math.Ceil(math.Log10(math.Max(max, 1e-9)))
	step := math.Max(1, math.Ceil((hi-lo+1)/6))
	var ts []gonum.Tick
	for e := lo; e <= hi; e++ {
		v := math.Pow(10, e)
		if v >= min && v <= max {
			t := gonum.Tick{Value: v}
			if math.Mod(e-lo, step) == 0 {
				t.Label = siLabel(v)
			}
			ts = append(ts, t)
		}
		for k := 2.0; k < 10; k++ {
			if w := k * v; w >= min && w <= max {
				ts = append(ts, gonum.Tick{Value: w})
			}
		}
	}
	return ts
}

// siLabel prints a power of ten: 0.01, 1, 100, 10k, 1M.
func siLabel(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', -1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
