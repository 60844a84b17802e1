package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rocekit/rocekit/perftest"
)

// PerftestMeasurer measures a fleet pair with perftest: one pair per NIC
// pair the two hosts share (Links), all at once (RunParallel), the cell's
// bandwidth their sum. Port is Options.Port (or perftest.DefaultPort)
// plus slot × 16 plus the NIC pair's index, so pairs of one round never
// share a port on a host.
type PerftestMeasurer struct {
	Options perftest.Options
	// Pin pins each side to its NIC's share of the NUMA-local CPUs.
	Pin bool
}

// Measure runs the pair; see PerftestMeasurer. A run that perftest
// voided by a failed clock sampling (ErrClockSampling) is run again, up
// to clockRetries times, each attempt named in the cell's Warnings.
//
// Similar to: ib_write_bw -d DEV -p PORT & ; ssh b ib_write_bw -d DEV -p PORT a
func (pm PerftestMeasurer) Measure(ctx context.Context, a, b Host, slot int) Cell {
	c := Cell{A: a.Name, B: b.Name}
	base := pm.Options.Port
	if base == 0 {
		base = perftest.DefaultPort
	}
	specs, err := NICPairs(a, b, pm.Options, base+16*slot, pm.Pin)
	if err != nil {
		return failed(c, err)
	}
	c.ANIC, c.BNIC, c.LineRateGbps = linkNames(a, b, specs)
	par, err := RunParallel(ctx, specs)
	for retry := 1; retry <= clockRetries && errors.Is(err, ErrClockSampling) && ctx.Err() == nil; retry++ {
		c.Warnings = append(c.Warnings, fmt.Errorf("attempt %d void (%w): measured again", retry, err))
		par, err = RunParallel(ctx, specs)
	}
	if par == nil {
		return failed(c, err)
	}
	for _, o := range par.Pairs {
		if o.Result != nil {
			for _, s := range []perftest.Process{o.Result.Server, o.Result.Client} {
				if s.Result != nil {
					for _, w := range s.Result.Warnings {
						c.Warnings = append(c.Warnings, fmt.Errorf("%s %s: %w", o.Spec.Name, s.Role, w))
					}
				}
			}
		}
	}
	if err != nil {
		return failed(c, err)
	}
	c.OK, c.BWGbps = true, par.SumBWGbps
	return c
}

// clockRetries is how often a pair whose perftest clock sampling failed
// (ErrClockSampling) is measured again.
const clockRetries = 2

// linkNames returns the netdevs of each side ("eth0+eth1") and the sum of
// the slower line rate of each NIC pair (0 when any is unknown).
func linkNames(a, b Host, specs []PairSpec) (string, string, float64) {
	links, _ := Links(a, b)
	var an, bn []string
	rate := 0.0
	for _, l := range links {
		an, bn = append(an, l[0].Netdev), append(bn, l[1].Netdev)
		r := min(l[0].LineRateGbps, l[1].LineRateGbps)
		if r <= 0 {
			rate = math.Inf(-1)
		}
		rate += r
	}
	if rate <= 0 || len(links) != len(specs) {
		rate = 0
	}
	return strings.Join(an, "+"), strings.Join(bn, "+"), rate
}

func failed(c Cell, err error) Cell {
	c.OK, c.Err, c.Error = false, err, err.Error()
	return c
}
