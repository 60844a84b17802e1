package bottleneck_test

import (
	"fmt"

	"github.com/rocekit/rocekit/bottleneck"
	"github.com/rocekit/rocekit/limits"
)

// The UDP runbook's ConnectX-5 at 3.8 of 25 Gbit/s: the receiver's
// softirq core is saturated.
func ExampleJudge() {
	v := bottleneck.Judge(bottleneck.Evidence{
		Gbps:    3.8,
		Ceiling: limits.Path{LinkMbps: 25000}.Ceiling(limits.IPStream{MTU: 1500}),
		Cores:   []bottleneck.Core{{Host: "receiver", CPU: 5, SoftPct: 99}},
	}, bottleneck.Thresholds{})
	fmt.Println(v)
	// Output:
	// cpu: 3.8 Gbit/s is 16 % of the 23.9 Gbit/s link ceiling; one core saturated: receiver CPU5 99 % busy (softirq 99 %, irq 0 %, system 0 %)
}
