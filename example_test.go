package rocekit_test

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
)

// Example shows how the packages fit: the output of an ib_send_bw client
// (here captured in the lab's bookworm and trixie guests) is parsed by
// perftest, turned into rounds by report, and compared against a baseline.
// In a live run, perftest.RunPair produces the outputs and tune journals
// the changes made between the rounds.
func Example() {
	round := func(name, file string) report.Round {
		f, err := os.Open(file)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		res, err := perftest.Parse(f)
		if err != nil {
			log.Fatal(err)
		}
		r, err := report.FromPerftest(name, time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), res)
		if err != nil {
			log.Fatal(err)
		}
		return r
	}
	base := round("send_bw", "rocekittest/captures/bookworm/perftest/send-bw-gbits/client.stdout")
	cand := round("send_bw", "rocekittest/captures/trixie/perftest/send-bw-gbits/client.stdout")
	mtu, _ := base.Param("mtu")
	fmt.Println("RoCE path MTU", mtu)
	for _, m := range report.Compare(base, cand, report.CompareOptions{}).Metrics {
		fmt.Printf("%s: %g -> %g %s: %s, need %d runs per side\n", m.Key,
			m.Baseline.Median, m.Candidate.Median, m.Unit, m.Verdict, m.NeedSamples)
	}
	// Output:
	// RoCE path MTU 1024
	// bw_avg/size=65536: 0.083994 -> 0.081929 Gbit/s: too few samples, need 4 runs per side
	// bw_peak/size=65536: 0.11025 -> 0.102005 Gbit/s: too few samples, need 4 runs per side
	// msg_rate/size=65536: 0.00016 -> 0.000156 Mpps: too few samples, need 4 runs per side
}
