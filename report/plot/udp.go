package plot

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/rocekit/rocekit/report"
)

// UDP draws UDP_STREAM rounds (report.FromNetperf with the receiver's
// counters added by Round.AddNICLosses and AddUDPErrors), one row per
// round: send and receive throughput side by side (medians as bars, every
// run as a dot), the loss in percent in a second panel on the same rows,
// the drop counters that grew beside each row as a total, and under the
// legend one line per round naming the counters that grew and by how
// much. The error wraps report.ErrNoData when no round has
// send_throughput or recv_throughput.
//
// Similar to: netperf -t UDP_STREAM -- -m 1400 per round, with ethtool -S | grep drop before and after
func UDP(rounds []report.Round) (Figure, error) {
	var rs []report.Round
	for _, r := range rounds {
		_, s := r.Metric(report.MetricSendThroughput)
		_, v := r.Metric(report.MetricRecvThroughput)
		if s || v {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return Figure{}, fmt.Errorf("%w: no round has send_throughput or recv_throughput", report.ErrNoData)
	}
	names := make([]string, len(rs))
	send, recv, loss := make([][]float64, len(rs)), make([][]float64, len(rs)), make([][]float64, len(rs))
	unit := report.UnitMbps
	for i, r := range rs {
		names[i] = r.Name
		if m, ok := r.Metric(report.MetricSendThroughput); ok {
			send[i], unit = m.Values, m.Unit
		}
		if m, ok := r.Metric(report.MetricRecvThroughput); ok {
			recv[i] = m.Values
		}
		if m, ok := r.Metric(report.MetricLossRatio); ok {
			for _, v := range m.Values {
				loss[i] = append(loss[i], 100*v)
			}
		}
	}
	f, l := rowFigure("UDP send vs receive and loss by round", names, unit, "throughput")
	f.addRowSeries(l, send, colorOf(0), 1, "send (netperf)")
	f.addRowSeries(l, recv, colorOf(1), -1, "receive (netserver)")

	lp := newPlot()
	lp.NominalY(make([]string, len(rs))...)
	lp.Y.Min, lp.Y.Max, lp.Y.Padding = -0.5, float64(len(rs))-0.5, 0
	lp.X.Min = 0
	lp.X.Label.Text = "loss (%)"
	ll := rowLayout{lp, len(rs)}
	lf := &frame{}
	lf.addRowSeries(ll, loss, colorOf(2), 0, "loss")
	f.legend = append(f.legend, lf.legend...)
	f.panels = append(f.panels, panel{lp, 0})

	for i, r := range rs {
		total, grew := drops(r)
		f.notes = append(f.notes, note{Y: l.y(i), Text: "drops +" + count(total)})
		if len(grew) > 0 {
			f.footnotes = append(f.footnotes, r.Name+": "+strings.Join(grew, ", "))
		} else {
			f.footnotes = append(f.footnotes, r.Name+": no drop counter grew")
		}
	}
	// Share the data width 3:2 between throughput and loss, after the
	// names, which only the throughput panel has.
	names0 := vg.Length(0)
	for _, n := range l.p.Y.Tick.Marker.Ticks(l.p.Y.Min, l.p.Y.Max) {
		names0 = max(names0, l.p.Y.Tick.Label.Width(n.Label))
	}
	data := Width - 2*pad - f.notesWidth() - 2*panelMargin - names0 - 40
	f.panels[0].weight = float64(names0 + 20 + data*0.6)
	f.panels[1].weight = float64(20 + data*0.4)
	caption := "Per round: what netperf sent and netserver received (bars: medians, dots: runs), the loss in percent on the same rows, " +
		"and the receiver's drop counters that grew over the round (summed over the runs)."
	return f.figure("throughput", caption)
}

// drops sums the round's nic_loss and UDP error counters over its runs:
// the total (the larger of ethtool's and the link's sums, which count the
// same drops twice on many drivers, plus the largest UDP error counter,
// since InErrors counts RcvbufErrors again) and one
// "counter +N" per counter that grew, largest first.
func drops(r report.Round) (uint64, []string) {
	type grown struct {
		name string
		n    uint64
	}
	var gs []grown
	bySource := map[string]uint64{}
	var udp uint64
	for _, m := range r.Metrics {
		sum := uint64(0)
		for _, v := range m.Values {
			sum += uint64(max(v, 0))
		}
		switch {
		case sum == 0:
			continue
		case m.Name == "nic_loss":
			c, _ := m.Label("counter")
			bySource[strings.SplitN(c, ".", 2)[0]] += sum
			gs = append(gs, grown{c, sum})
		case strings.HasPrefix(m.Name, "udp_") && strings.HasSuffix(m.Name, "_errors"):
			udp = max(udp, sum) // InErrors counts RcvbufErrors again
			gs = append(gs, grown{m.Name, sum})
		}
	}
	var nic uint64
	for _, v := range bySource {
		nic = max(nic, v)
	}
	slices.SortStableFunc(gs, func(a, b grown) int { return cmp.Compare(b.n, a.n) })
	s := make([]string, len(gs))
	for i, g := range gs {
		s[i] = g.name + " +" + count(g.n)
	}
	return nic + udp, s
}

// count prints a counter compactly: 1234, 12.3k, 4.5M.
func count(n uint64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 100_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
