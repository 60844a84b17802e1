package plot

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rocekit/rocekit/report"
)

// Interims draws the interim results of rounds over time
// (Round.AddInterim, AddNetperfInterims: netperf -D, perftest
// --run_infinitely): metric "interim_"+name against the seconds since
// each repeat began, one line per round and repeat, so that a stall
// (a drop to zero, a gap) is visible. name is "throughput" for netperf.
// The error wraps report.ErrNoData when no round has the metric.
//
// Similar to: netperf -D 1 ... | grep 'Interim result', charted
func Interims(rounds []report.Round, name string) (Figure, error) {
	metric := "interim_" + name
	p := newPlot()
	p.X.Label.Text = "seconds since the run began"
	p.Y.Min, p.X.Min = 0, 0
	f := &frame{title: name + " over time (interim results)", panels: []panel{{p, 1}}, plotH: 7 * 28.35}
	unit, n := "", 0
	for ri, r := range rounds {
		series := map[string][]pt{}
		for _, m := range r.Metrics {
			rep, ok1 := m.Label("repeat")
			t, err := strconv.ParseFloat(labelOr(m, "t"), 64)
			if m.Name != metric || !ok1 || err != nil || len(m.Values) == 0 {
				continue
			}
			series[rep] = append(series[rep], pt{t, m.Values[0]})
			unit = m.Unit
		}
		reps := slices.SortedFunc(maps.Keys(series), func(a, b string) int { return cmpFloat(atof(a), atof(b)) })
		for k, rep := range reps {
			ps := series[rep]
			slices.SortFunc(ps, func(a, b pt) int { return cmpFloat(a.X, b.X) })
			st := lineStyle(colorOf(ri), 1.2)
			if k > 0 {
				st.Dashes = [][]vg.Length{nil, {4, 2}, {1, 2}, {6, 2, 1, 2}}[k%4]
			}
			l := polyline{Pts: ps, Style: st, Glyph: glyph(colorOf(ri), draw.CircleGlyph{}, 1.5)}
			p.Add(l)
			f.legend = append(f.legend, legendEntry{r.Name + " run " + rep, l})
			n++
		}
	}
	if n == 0 {
		return Figure{}, fmt.Errorf("%w: no round has %s", report.ErrNoData, metric)
	}
	p.Y.Label.Text = name + " (" + unit + ")"
	caption := "Each run's interim results against the time since it began: a dip to zero or a long interval is a stall that the run's average hides."
	return f.figure("interims-"+strings.ReplaceAll(name, "/", "_"), caption)
}

func labelOr(m report.Metric, key string) string {
	v, _ := m.Label(key)
	return v
}
