package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rocekit/rocekit/report"
)

// RoundsOptions tune Rounds.
type RoundsOptions struct {
	// Baseline is the name of the round the others are compared with;
	// "" means the first round that has the metric.
	Baseline string
	// Name is the figure's file name without extension ("rounds" when "").
	Name string
}

// Rounds draws one metric of several rounds side by side, one row per
// round in the given order: a bar at the median, every run as a dot over
// it, the 95% confidence interval as a line where the round has enough
// runs for one (6 or more), the baseline's median as a dashed line across
// all rows, and beside each row the change of the median against the
// baseline with the Mann–Whitney verdict (report.CompareMetric): "+12.3%
// better", "-1.0% n.s." (no significant change), "+4.0% few runs" (too
// few runs to tell). The error wraps report.ErrNoData when no round has
// the metric.
//
// Similar to: the (A) default, (B) MTU 9000, (C) + IRQ spread bar chart of a tuning report
func Rounds(rounds []report.Round, metric string, opts RoundsOptions) (Figure, error) {
	type row struct {
		name  string
		m     report.Metric
		round report.Round
	}
	var rows []row
	for _, r := range rounds {
		if m, ok := r.Metric(metric); ok && len(m.Values) > 0 {
			rows = append(rows, row{r.Name, m, r})
		}
	}
	if len(rows) == 0 {
		return Figure{}, fmt.Errorf("%w: no round has %s", report.ErrNoData, metric)
	}
	base := 0
	if opts.Baseline != "" {
		base = slices.IndexFunc(rows, func(r row) bool { return r.name == opts.Baseline })
		if base < 0 {
			return Figure{}, fmt.Errorf("%w: baseline %q has no %s", report.ErrNoData, opts.Baseline, metric)
		}
	}
	names := make([]string, len(rows))
	series := make([][]float64, len(rows))
	for i, r := range rows {
		names[i], series[i] = r.name, r.m.Values
	}
	f, layout := rowFigure(metric+" by round", names, rows[0].m.Unit, metric)
	f.addRowSeries(layout, series, colorOf(0), 0, "")
	baseMed := report.Summarize(rows[base].m).Median
	layout.p.Add(lines{Segs: []seg{{baseMed, -0.5, baseMed, float64(len(rows)) - 0.5}}, Style: dashed(grey), NoRange: true})
	f.legend = append(f.legend, legendEntry{"baseline median (" + rows[base].name + ")", lines{Style: dashed(grey)}})
	var ceil []seg
	for i, r := range rows {
		if c, _, ok := ceilingOf(r.round, r.m.Unit); ok {
			ceil = append(ceil, seg{c, layout.y(i) - 0.4, c, layout.y(i) + 0.4})
		}
	}
	if len(ceil) > 0 {
		layout.p.Add(lines{Segs: ceil, Style: ceilingStyle()})
		f.legend = append(f.legend, legendEntry{"ceiling of the round's path (its verdict's lowest limit)", lines{Style: ceilingStyle()}})
	}
	for i, r := range rows {
		text := "baseline"
		if i != base {
			mc := report.CompareMetric(rows[base].m, r.m, 0.95, 0.05)
			text = pctText(mc.DeltaPct) + " " + verdictText(mc.Verdict)
		}
		f.notes = append(f.notes, note{Y: layout.y(i), Text: text})
	}
	caption := fmt.Sprintf("%s of each round: the bar is the median, each dot one run, the line the 95%% CI where there are 6 runs or more; "+
		"beside each bar the change of the median against %s and whether the Mann–Whitney U test calls it significant.", metric, rows[base].name)
	if len(ceil) > 0 {
		caption += " The red mark on a row is what that round's path could carry at best (the lowest ceiling its bottleneck verdict names)."
	}
	return f.figure(orDefault(opts.Name, "rounds"), caption)
}

// rowLayout is a row-per-round panel: row i is at y = n-1-i, so the first
// round is on top.
type rowLayout struct {
	p *gonum.Plot
	n int
}

func (l rowLayout) y(i int) float64 { return float64(l.n - 1 - i) }

// rowFigure makes a frame with one panel of n rows named by names, the
// x axis labelled "metric (unit)" from 0.
func rowFigure(title string, names []string, unit, metric string) (*frame, rowLayout) {
	p := newPlot()
	n := len(names)
	labels := make([]string, n)
	for i, name := range names {
		labels[n-1-i] = fitMiddle(p.Y.Tick.Label, name, maxNameWidth)
	}
	p.NominalY(labels...)
	p.Y.Tick.Label.XAlign = draw.XRight
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.Y.Padding = 0
	p.X.Min = 0
	p.X.Label.Text = metric + " (" + unit + ")"
	f := &frame{title: title, panels: []panel{{p, 1}}, plotH: rowsHeight(n)}
	return f, rowLayout{p, n}
}

// maxNameWidth caps a row's name; a longer one keeps its start and end
// around "…", where round names differ.
const maxNameWidth = Width * 0.3

// fitMiddle cuts the middle of s with "…" so that it is at most w wide.
func fitMiddle(sty text.Style, s string, w vg.Length) string {
	if sty.Width(s) <= w {
		return s
	}
	r := []rune(s)
	head, tail := len(r)/2, len(r)/2
	for head > 0 && sty.Width(string(r[:head])+"…"+string(r[len(r)-tail:])) > w {
		if head > tail {
			head--
		} else {
			tail--
		}
	}
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// rowsHeight is the panel height for n rows and the x axis under them.
func rowsHeight(n int) vg.Length {
	return max(4*vg.Centimeter, vg.Length(n)*rowHeight+40)
}

// addRowSeries draws, for each row i, a bar at the median of series[i]
// (in the band offset..offset+h of the row, centred when h is 0), each
// value as a dot, and the 95% CI where the sample has one; the legend
// names the bars "LABEL median" and the dots "LABEL runs" ("median",
// "run" without a label), the CI once.
func (f *frame) addRowSeries(l rowLayout, series [][]float64, col color.Color, band int, label string) {
	half, off := 0.3, 0.0
	if band != 0 {
		half, off = 0.18, float64(band)*0.2
	}
	var bars rects
	var ds dots
	var cis lines
	cis.Style, cis.Caps = lineStyle(runColor, 1.2), 5
	ds.Glyph = glyph(dark(col), draw.CircleGlyph{}, 2.2)
	for i, vs := range series {
		if len(vs) == 0 {
			continue
		}
		s := report.Summarize(report.Metric{Values: vs})
		y := l.y(i) + off
		bars = append(bars, rect{0, s.Median, y - half, y + half, light(col)})
		// The runs in the bar's upper half, the CI in its lower half,
		// so that neither hides the other.
		for j, v := range vs {
			ds.Pts = append(ds.Pts, pt{v, y + half*0.45 + jitter(j, len(vs), half*0.4)})
		}
		if s.HasCI() {
			cis.Segs = append(cis.Segs, seg{s.Lo, y - half*0.5, s.Hi, y - half*0.5})
		}
	}
	l.p.Add(bars, cis, ds)
	med, runs := "median", "run"
	if label != "" {
		med, runs = label+" median", label+" runs"
	}
	f.legend = append(f.legend, legendEntry{med, bars}, legendEntry{runs, ds})
	if len(cis.Segs) > 0 && !slices.ContainsFunc(f.legend, func(e legendEntry) bool { return e.Label == ciLabel }) {
		f.legend = append(f.legend, legendEntry{ciLabel, cis})
	}
}

// jitter spreads k dots of a row over ±half so that equal values stay
// visible.
func jitter(j, k int, half float64) float64 {
	if k <= 1 {
		return 0
	}
	return -half + 2*half*float64(j)/float64(k-1)
}

// ciLabel names the CI lines in the legend.
const ciLabel = "95% CI (6 runs or more)"

// pctText is a change in percent, "—" when unknown.
func pctText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", v)
}

// verdictText is a verdict in a few letters.
func verdictText(v report.Verdict) string {
	switch v {
	case report.VerdictNoChange:
		return "n.s."
	case report.VerdictTooFewSamples:
		return "few runs"
	}
	return string(v)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
