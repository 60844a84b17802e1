package fleet_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rocekit/rocekit/fleet"
	"github.com/rocekit/rocekit/host"
)

// A round-robin schedule of five hosts: five rounds, one host sitting out
// each.
func ExampleAllPairs() {
	s, _ := fleet.AllPairs(5, 1)
	for i, r := range s.Rounds {
		fmt.Println("round", i+1, r)
	}
	// Output:
	// round 1 [1-4 2-3]
	// round 2 [0-4 1-2]
	// round 3 [0-3 2-4]
	// round 4 [0-2 1-3]
	// round 5 [0-1 3-4]
}

// A matrix of four hosts measured by a stand-in for perftest, where the
// link between h1 and h3 is slow: the outlier names the link, and the gate
// fails it.
func ExamplePlan_Run() {
	var hosts []fleet.Host
	for i := range 4 {
		hosts = append(hosts, fleet.Host{Name: fmt.Sprint("h", i), Runner: &host.Fake{}, NICs: []fleet.NIC{{Netdev: "eth0", LineRateGbps: 25}}})
	}
	measure := fleet.MeasurerFunc(func(ctx context.Context, a, b fleet.Host, slot int) fleet.Cell {
		bw := 23.5
		if a.Name == "h1" && b.Name == "h3" {
			bw = 6.2
		}
		return fleet.Cell{OK: true, BWGbps: bw, LineRateGbps: 25}
	})
	sched, _ := fleet.AllPairs(len(hosts), 1)
	m, _ := fleet.Plan{Name: "rack", Hosts: hosts, Schedule: sched, Measurer: measure}.Run(context.Background())
	m.WriteMarkdown(os.Stdout)
	for _, o := range fleet.Outliers(m, 0) {
		fmt.Println(o)
	}
	fmt.Println(fleet.LineRateGate{}.Check(m))
	// Output:
	// | | h0 | h1 | h2 | h3 |
	// |---|---:|---:|---:|---:|
	// | **h0** | — | 23.5 | 23.5 | 23.5 |
	// | **h1** | 23.5 | — | 23.5 | 6.2 |
	// | **h2** | 23.5 | 23.5 | — | 23.5 |
	// | **h3** | 23.5 | 6.2 | 23.5 | — |
	//
	// link h1–h3: 6.2 Gbit/s, 26% of its peers' median 23.5 Gbit/s
	// fleet: pairs below line rate: 1 of 6 pairs under 90%: h1–h3: 6.2 of 25 Gbit/s (25%)
}
