package plot

import (
	"fmt"
	"slices"
	"strconv"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rocekit/rocekit/report"
)

// QPScaling draws metric (normally "bw_avg/size=65536") of rounds run at
// several QP counts (their "qps" parameter) against the QP count on a
// log2 axis: the median as a line, every run as a dot, the ideal (the
// smallest count's median times the QP ratio) as a dashed line, and the
// knee, the first count whose gain over the one before is below minGain
// (0 means report.DefaultThresholds.MinQPGain, 1.10), as a vertical line
// named in the legend. The error wraps report.ErrNoData when fewer than
// one round has both the parameter and the metric.
//
// Similar to: ib_send_bw -q 1,2,4,8 in a loop, the bandwidth column charted
func QPScaling(rounds []report.Round, metric string, minGain float64) (Figure, error) {
	if minGain == 0 {
		minGain = report.DefaultThresholds.MinQPGain
	}
	type point struct {
		qps  float64
		med  float64
		runs []float64
		unit string
	}
	var pts []point
	for _, r := range rounds {
		q, _ := r.Param(report.ParamQPs)
		n, err := strconv.Atoi(q)
		m, ok := r.Metric(metric)
		if err != nil || n <= 0 || !ok || len(m.Values) == 0 {
			continue
		}
		pts = append(pts, point{float64(n), report.Summarize(m).Median, m.Values, m.Unit})
	}
	if len(pts) == 0 {
		return Figure{}, fmt.Errorf("%w: no round has a qps parameter and %s", report.ErrNoData, metric)
	}
	slices.SortStableFunc(pts, func(a, b point) int { return cmpFloat(a.qps, b.qps) })
	p := newPlot()
	p.X.Scale = gonum.LogScale{}
	p.X.Tick.Marker = qpTicks(nil)
	p.X.Label.Text = "queue pairs (-q, log2)"
	p.Y.Label.Text = metric + " (" + pts[0].unit + ")"
	p.Y.Min = 0
	med := polyline{Style: lineStyle(colorOf(0), 1.5), Glyph: glyph(colorOf(0), draw.CircleGlyph{}, 2.5)}
	runs := dots{Glyph: glyph(runColor, draw.RingGlyph{}, 2)}
	ideal := lines{Style: dashed(grey)}
	var ticks qpTicks
	for i, q := range pts {
		med.Pts = append(med.Pts, pt{q.qps, q.med})
		for _, v := range q.runs {
			runs.Pts = append(runs.Pts, pt{q.qps, v})
		}
		ticks = append(ticks, q.qps)
		if i > 0 {
			ideal.Segs = append(ideal.Segs, seg{pts[i-1].qps, pts[0].med * pts[i-1].qps / pts[0].qps, q.qps, pts[0].med * q.qps / pts[0].qps})
		}
	}
	p.X.Tick.Marker = ticks
	p.Add(ideal, med, runs)
	f := &frame{title: metric + " vs queue pairs", panels: []panel{{p, 1}}, plotH: 7 * 28.35}
	f.legend = append(f.legend, legendEntry{"median", med}, legendEntry{"run", runs},
		legendEntry{fmt.Sprintf("ideal: %.3g × QPs/%g", pts[0].med, pts[0].qps), ideal})
	if k := knee(pts, minGain, func(p point) (float64, float64) { return p.qps, p.med }); k > 0 {
		top := 0.0
		for _, q := range pts {
			top = max(top, q.med, pts[0].med*q.qps/pts[0].qps)
			for _, v := range q.runs {
				top = max(top, v)
			}
		}
		knee := lines{Segs: []seg{{pts[k].qps, 0, pts[k].qps, top}}, Style: lineStyle(colorOf(1), 1.5), NoRange: true}
		p.Add(knee)
		f.legend = append(f.legend, legendEntry{fmt.Sprintf("knee at %g QPs: ×%.2f from %g QPs (below ×%.2f)",
			pts[k].qps, pts[k].med/pts[k-1].med, pts[k-1].qps, minGain), knee})
	} else if len(pts) > 1 {
		f.footnotes = append(f.footnotes, fmt.Sprintf("no knee: every step gains at least ×%.2f", minGain))
	}
	caption := "The median of each QP count with every run, against the ideal (linear from the smallest count); " +
		"the knee is where one more doubling stops paying (gain below the threshold)."
	return f.figure("qps", caption)
}

// knee returns the index of the first point whose y gains less than
// minGain over the point before, 0 when none does.
func knee[P any](ps []P, minGain float64, xy func(P) (float64, float64)) int {
	for i := 1; i < len(ps); i++ {
		_, prev := xy(ps[i-1])
		_, y := xy(ps[i])
		if prev > 0 && y/prev < minGain {
			return i
		}
	}
	return 0
}

// qpTicks labels the QP counts that ran.
type qpTicks []float64

// Ticks returns a labelled tick per count in [min, max].
func (q qpTicks) Ticks(min, max float64) []gonum.Tick {
	var ts []gonum.Tick
	for _, v := range q {
		if v >= min && v <= max {
			ts = append(ts, gonum.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return ts
}
