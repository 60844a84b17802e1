package plot_test

import (
	"fmt"
	"time"

	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/plot"
)

// Two rounds of ib_send_bw at 64 KiB, drawn side by side: every run as a
// dot, the change of the median against the first round beside the
// second.
func ExampleRounds() {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	bw := func(vs ...float64) []report.Metric {
		return []report.Metric{{Name: "bw_avg", Labels: []report.Param{{Key: "size", Value: "65536"}},
			Unit: report.UnitGbps, Better: report.HigherIsBetter, Values: vs}}
	}
	rounds := []report.Round{
		{Name: "mtu1500", Start: start, Metrics: bw(9.1, 9.3, 9.2, 9.0, 9.2, 9.1)},
		{Name: "mtu9000", Start: start, Metrics: bw(11.8, 12.1, 11.9, 12.0, 12.2, 11.9)},
	}
	fig, err := plot.Rounds(rounds, "bw_avg/size=65536", plot.RoundsOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fig.Name, fig.Title, len(fig.SVG) > 1000)
	// Output: rounds bw_avg/size=65536 by round true
}
