// Package plot draws the pictures of rocekit's rounds as SVG: rounds side
// by side with every run, UDP send against receive with the loss and the
// drop counters, bandwidth and message rate against message size,
// latency percentiles, QP scaling against the ideal, per-CPU softirq and
// interrupt load, and interim throughput over time. Every picture is
// built from report.Round values, as a store keeps them, so an earlier
// run can be drawn again; Auto picks the pictures that fit a set of
// rounds.
//
// Text never lies over the data or other text and nothing is cut at an
// edge: rows grow with the rounds, long names are cut with "…", legends
// and notes sit outside the data area.
//
//	rounds, _, _ := report.OpenStore("rounds.jsonl").Load()
//	fig, err := plot.Rounds(rounds, "bw_avg/size=65536", plot.RoundsOptions{})
//	if err == nil {
//		os.WriteFile(fig.Name+".svg", fig.SVG, 0o644)
//	}
//
// It is a package of its own so that importing report does not link
// gonum/plot and its fonts.
package plot
