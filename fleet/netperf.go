package fleet

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/netperf"
)

// NetperfSpec is one netperf pair of a parallel run: a netserver on
// Server, netperf on Client against Options.Host.
type NetperfSpec struct {
	Name           string
	Server, Client host.Runner
	// Options is the netperf run; Host must be the server's address, and
	// Port (the netserver's control port) must differ between pairs
	// whose servers share a host. Options.CPU pins both ends (-T).
	Options netperf.Options
}

// NetperfOutcome is one pair of RunNetperfPairs.
type NetperfOutcome struct {
	Spec   NetperfSpec
	Result *netperf.Result
	Err    error
	// Gbps is the throughput in 10^9 bit/s (for UDP_STREAM what the
	// receiver got); NaN when the pair failed or is not a stream test.
	Gbps float64
}

// OK reports whether the pair gave a throughput.
func (o NetperfOutcome) OK() bool { return o.Err == nil && !math.IsNaN(o.Gbps) }

// NetperfParallel is the result of RunNetperfPairs.
type NetperfParallel struct {
	Pairs []NetperfOutcome
	// SumGbps adds the successful pairs; Slowest is the index of the
	// slowest (-1: none); Failed counts the others.
	SumGbps  float64
	Slowest  int
	Failed   int
	Released time.Time
	Elapsed  time.Duration
}

// RunNetperfPairs runs netperf pairs at the same time: every pair's
// netserver is started and waited for (control port in LISTEN state),
// then every netperf is started at once; netservers are stopped (and
// waited for) at the end. A pair whose netserver fails is kept with its
// error and does not hold the others. The error is a *PairsError (ErrPairsFailed) when some
// pairs failed.
//
// Similar to: for p in 12865 12866; do netserver -D -p $p & done; for p in ...; do ssh b netperf -H a -p $p -t TCP_STREAM & done; wait
func RunNetperfPairs(ctx context.Context, specs []NetperfSpec) (*NetperfParallel, error) {
	if len(specs) == 0 {
		return nil, ErrNoPairs
	}
	for i := range specs {
		if err := specs[i].Options.Validate(); err != nil {
			return nil, fmt.Errorf("fleet: pair %d (%s): %w", i, specs[i].Name, err)
		}
	}
	start := time.Now()
	out := &NetperfParallel{Pairs: make([]NetperfOutcome, len(specs)), Slowest: -1}
	servers := make([]*netperf.Netserver, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		out.Pairs[i] = NetperfOutcome{Spec: s, Gbps: math.NaN()}
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv, err := netperf.StartNetserver(ctx, s.Server, netperf.ServerOptions{Port: s.Options.Port, Family: s.Options.Family})
			if err != nil {
				out.Pairs[i].Err = err
				return
			}
			servers[i] = srv
		}()
	}
	wg.Wait()
	// Stopped and waited for, so that the next pairs on these hosts find
	// their ports free.
	defer func() {
		var sw sync.WaitGroup
		for _, srv := range servers {
			if srv != nil {
				sw.Add(1)
				go func() {
					defer sw.Done()
					srv.Stop(context.WithoutCancel(ctx))
				}()
			}
		}
		sw.Wait()
	}()
	out.Released = time.Now()
	for i, s := range specs {
		if servers[i] == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := netperf.Run(ctx, s.Client, s.Options)
			o := &out.Pairs[i]
			o.Result, o.Err = res, err
			if err == nil && res != nil && res.ThroughputMbps != nil {
				o.Gbps = *res.ThroughputMbps / 1000
			}
		}()
	}
	wg.Wait()
	out.Elapsed = time.Since(start)
	return out, out.aggregate()
}

// aggregate fills the sum, the slowest pair and the failures, and returns
// the *PairsError of the failed pairs (nil when none failed).
func (p *NetperfParallel) aggregate() error {
	var pe PairsError
	for i, o := range p.Pairs {
		if !o.OK() {
			p.Failed++
			err := o.Err
			if err == nil {
				err = fmt.Errorf("no throughput in netperf's output")
			}
			pe.Names, pe.Errs = append(pe.Names, o.Spec.Name), append(pe.Errs, err)
			continue
		}
		p.SumGbps += o.Gbps
		if p.Slowest < 0 || o.Gbps < p.Pairs[p.Slowest].Gbps {
			p.Slowest = i
		}
	}
	if len(pe.Names) > 0 {
		return &pe
	}
	return nil
}

// NetperfMeasurer measures a fleet pair with netperf: a netserver on
// host a and netperf on host b per NIC pair the two share (Links), all at
// once, the cell's bandwidth their sum. Ports are Options.Port (or
// netperf.DefaultPort) plus slot × 16 plus the NIC pair's index.
type NetperfMeasurer struct {
	Options netperf.Options
}

// Measure runs the pair; see NetperfMeasurer.
//
// Similar to: netserver -D -p PORT & ; ssh b netperf -H a -p PORT -t TCP_STREAM -l 10
func (nm NetperfMeasurer) Measure(ctx context.Context, a, b Host, slot int) Cell {
	c := Cell{A: a.Name, B: b.Name}
	links, err := Links(a, b)
	if err != nil {
		return failed(c, err)
	}
	base := int(nm.Options.Port)
	if base == 0 {
		base = netperf.DefaultPort
	}
	if base+16*slot+len(links) > 65535 {
		return failed(c, fmt.Errorf("%w: port %d", netperf.ErrInvalidOptions, base+16*slot+len(links)))
	}
	var specs []NetperfSpec
	for i, l := range links {
		if !l[0].Addr.IsValid() {
			return failed(c, fmt.Errorf("%w: %s %s has no address", ErrInvalidHost, a.Name, l[0].Netdev))
		}
		o := nm.Options
		o.Host, o.Port = l[0].Addr.String(), uint16(base+16*slot+i)
		specs = append(specs, NetperfSpec{Name: l[0].Netdev + "-" + l[1].Netdev, Server: a.Runner, Client: b.Runner, Options: o})
	}
	c.ANIC, c.BNIC, c.LineRateGbps = linkNames(a, b, make([]PairSpec, len(specs)))
	par, err := RunNetperfPairs(ctx, specs)
	if err != nil {
		return failed(c, err)
	}
	c.OK, c.BWGbps = true, par.SumGbps
	return c
}
