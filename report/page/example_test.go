package page_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
)

// Redraw writes report.html and the pictures of stored rounds into a
// folder.
func ExampleRedraw() {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	udp := func(name string, sent, recv, loss float64) report.Round {
		m := func(n, unit string, v float64) report.Metric {
			return report.Metric{Name: n, Unit: unit, Better: report.HigherIsBetter, Values: []float64{v}}
		}
		return report.Round{Name: name, Start: start, Metrics: []report.Metric{
			m("send_throughput", report.UnitMbps, sent), m("recv_throughput", report.UnitMbps, recv), m("loss_ratio", report.UnitRatio, loss)}}
	}
	dir, _ := os.MkdirTemp("", "redraw")
	defer os.RemoveAll(dir)
	err := page.Redraw(dir, "UDP tuning", []report.Round{udp("A_default", 5200, 3100, 0.40), udp("B_mtu9000", 9800, 9700, 0.01)})
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	fmt.Println(err)
	// Output:
	// report.html
	// throughput.svg
	// <nil>
}
