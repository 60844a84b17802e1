package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rocekit/rocekit/report"
)

func Example() {
	metric := func(v ...float64) []report.Metric {
		return []report.Metric{{Name: "bw_avg", Labels: []report.Param{{Key: "size", Value: "65536"}},
			Unit: report.UnitGbps, Better: report.HigherIsBetter, Values: v}}
	}
	start := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	base := report.Round{Name: "mtu1500", Start: start, Params: []report.Param{{Key: "mtu", Value: "1500"}},
		Fingerprint: &report.Fingerprint{NICs: []report.NICFingerprint{{Netdev: "eth1", MTU: 1500, RoCEPathMTU: 1024, RDMADevice: "rxe0"}}},
		Metrics:     metric(3.91, 4.02, 3.87, 3.95, 4.10, 3.99)}
	cand := report.Round{Name: "mtu9000", Start: start, Params: []report.Param{{Key: "mtu", Value: "9000"}},
		Fingerprint: &report.Fingerprint{NICs: []report.NICFingerprint{{Netdev: "eth1", MTU: 9000, RoCEPathMTU: 4096, RDMADevice: "rxe0"}}},
		Metrics:     metric(5.81, 5.92, 5.77, 6.03, 5.88, 5.95)}
	report.WriteComparisonMarkdown(os.Stdout, report.Compare(base, cand, report.CompareOptions{}))
	// Output:
	// ## mtu9000 vs mtu1500
	//
	// Changed: `mtu` 1500 → 9000.
	//
	// **Environment differs from the baseline:** `nic[eth1].mtu` 1500 → 9000, `nic[eth1].roce_path_mtu` 1024 → 4096.
	//
	// | metric | labels | unit | baseline | CI | candidate | CI | delta | p | n | verdict |
	// |---|---|---|--:|--:|--:|--:|--:|--:|--:|---|
	// | bw_avg | size=65536 | Gbit/s | 3.97 | ± 3% | 5.9 | ± 2% | +48.61% | 0.002 | 6+6 | better |
}

func ExampleWriteBenchfmt() {
	r := report.Round{Name: "mtu9000", Params: []report.Param{{Key: "mtu", Value: "9000"}},
		Metrics: []report.Metric{{Name: "bw_avg", Labels: []report.Param{{Key: "size", Value: "65536"}},
			Unit: report.UnitGbps, Better: report.HigherIsBetter, Values: []float64{5.81, 5.92}}}}
	report.WriteBenchfmt(os.Stdout, r)
	// Output:
	// round: mtu9000
	// mtu: 9000
	//
	// BenchmarkRocekit/metric=bw_avg/size=65536 1 5.81 Gbit/s
	// BenchmarkRocekit/metric=bw_avg/size=65536 1 5.92 Gbit/s
}

func ExampleStore() {
	dir, _ := os.MkdirTemp("", "rounds")
	defer os.RemoveAll(dir)
	store := report.OpenStore(filepath.Join(dir, "rounds.jsonl"))
	for _, mtu := range []string{"1500", "9000"} {
		store.Append(report.Round{Name: "udp", Params: []report.Param{{Key: "mtu", Value: mtu}},
			Metrics: []report.Metric{{Name: "throughput", Unit: report.UnitMbps, Better: report.HigherIsBetter, Values: []float64{3100}}}})
	}
	rounds, res, _ := store.Query("udp", report.Param{Key: "mtu", Value: "9000"})
	fmt.Println(len(rounds), rounds[0].Params, res.Lines, res.Torn)
	// Output: 1 [{mtu 9000}] 2 false
}

// Two rounds as benchstat prints them: the candidate's median, its CI and
// the change against the baseline with the U test's p-value.
func ExampleWriteBenchstat() {
	bw := func(name string, v ...float64) report.Round {
		return report.Round{Name: name, Metrics: []report.Metric{{Name: "bw_avg", Labels: []report.Param{{Key: "size", Value: "65536"}},
			Unit: report.UnitGbps, Better: report.HigherIsBetter, Values: v}}}
	}
	report.WriteBenchstat(os.Stdout, report.CompareOptions{},
		bw("mtu1500", 3.91, 4.02, 3.87, 3.95, 4.10, 3.99), bw("mtu9000", 5.81, 5.92, 5.77, 6.03, 5.88, 5.95))
	// Output:
	//                   │  mtu1500  │             mtu9000             │
	//                   │  Gbit/s   │  Gbit/s          vs base        │
	// bw_avg/size=65536   3.97 ± 3%   5.9 ± 2%  +48.61% (p=0.002 n=6)
}
