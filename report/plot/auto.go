package plot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocekit/rocekit/report"
)

// Auto draws every picture that fits rounds, the way the examples draw
// them, so that any earlier run can be drawn again from its store:
//
//	send_throughput/recv_throughput  UDP ("throughput")
//	bw_avg at several sizes          Sweep ("bandwidth")
//	a qps parameter with 2+ counts   QPScaling ("qps")
//	t_typical                        Latency ("latency")
//	otherwise                        Rounds of the headline metric ("rounds")
//	cpu_soft                         CPULoad per round ("cpu-NAME")
//	interim_*                        Interims
//
// A picture that cannot be drawn is left out and its error returned
// joined with the others'; the figures that could be drawn are kept.
//
// Similar to: opening the results spreadsheet and charting what is in it
func Auto(rounds []report.Round) ([]Figure, error) {
	var figs []Figure
	var errs []string
	add := func(f Figure, err error) {
		if err != nil {
			errs = append(errs, err.Error())
			return
		}
		figs = append(figs, f)
	}
	udp := has(rounds, report.MetricSendThroughput) || has(rounds, report.MetricRecvThroughput)
	sweep := maxSizes(rounds, report.MetricBWAvg) > 1
	qps := distinctParam(rounds, report.ParamQPs) > 1
	switch {
	case udp:
		add(UDP(rounds))
	case sweep:
		add(Sweep(rounds))
	case qps:
		add(QPScaling(rounds, Headline(rounds), 0))
	}
	if !udp && !sweep && !qps {
		if k := Headline(rounds); k != "" {
			add(Rounds(rounds, k, RoundsOptions{}))
		}
	}
	if has(rounds, report.MetricTTypical) {
		add(Latency(rounds))
	}
	for _, r := range rounds {
		if _, ok := r.Metric("cpu_soft_max"); ok {
			add(CPULoad(r, CPULoadOptions{Name: "cpu-" + FileName(r.Name)}))
		}
	}
	for _, name := range interimNames(rounds) {
		add(Interims(rounds, name))
	}
	if len(errs) > 0 {
		return figs, fmt.Errorf("plot: %s", strings.Join(errs, "; "))
	}
	return figs, nil
}

// Headline is the metric a round is judged by: bw_avg at 64 KiB (or the
// largest size) for perftest bandwidth, t_typical likewise for latency,
// recv_throughput or throughput for netperf, "" when none.
//
// Similar to: ib_send_bw ... | grep 65536 | awk '{print $4}'
func Headline(rounds []report.Round) string {
	for _, name := range []string{report.MetricBWAvg, report.MetricTTypical, report.MetricTAvg, report.MetricRecvThroughput, report.MetricThroughput, report.MetricTransRate, report.MetricValue} {
		best, bestSize := "", -1.0
		for _, r := range rounds {
			for _, m := range r.Metrics {
				if m.Name != name || len(m.Values) == 0 {
					continue
				}
				sz, _ := m.Label(report.LabelSize)
				v := atof(sz)
				if v == 65536 {
					v = 1e18
				}
				if v > bestSize {
					best, bestSize = m.Key(), v
				}
			}
		}
		if best != "" {
			return best
		}
	}
	return ""
}

func has(rounds []report.Round, name string) bool {
	for _, r := range rounds {
		if slices.ContainsFunc(r.Metrics, func(m report.Metric) bool { return m.Name == name && len(m.Values) > 0 }) {
			return true
		}
	}
	return false
}

// maxSizes is the largest number of sizes one round has metric at.
func maxSizes(rounds []report.Round, name string) int {
	most := 0
	for _, r := range rounds {
		n := 0
		for _, m := range r.Metrics {
			if _, ok := m.Label(report.LabelSize); ok && m.Name == name {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

func distinctParam(rounds []report.Round, key string) int {
	seen := map[string]bool{}
	for _, r := range rounds {
		if v, ok := r.Param(key); ok {
			seen[v] = true
		}
	}
	return len(seen)
}

// interimNames are the NAMEs of the interim_NAME metrics, in first-seen order.
func interimNames(rounds []report.Round) []string {
	var ns []string
	for _, r := range rounds {
		for _, m := range r.Metrics {
			if n, ok := strings.CutPrefix(m.Name, "interim_"); ok && !slices.Contains(ns, n) {
				ns = append(ns, n)
			}
		}
	}
	return ns
}

// FileName is s made a file name: its letters, digits, '-', '_' and '.'
// kept, the rest as '_'; the names Auto gives its plots, and
// report/page its sections' files.
func FileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}
