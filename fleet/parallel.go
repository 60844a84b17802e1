package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/perftest"
)

// ErrPairsFailed is wrapped by *PairsError: some pairs of a parallel run
// failed (the others' results are kept).
var ErrPairsFailed = errors.New("fleet: pairs failed")

// ErrZeroBandwidth means a pair ran without error but its client printed
// an average of 0.00: nothing was measured (under emulation perftest -D
// can end its window before the first completion), not a bandwidth.
var ErrZeroBandwidth = errors.New("fleet: the pair measured 0.00 bandwidth")

// ErrClockSampling comes with ErrZeroBandwidth when the client also
// printed perftest's clock warning ("Correlation coefficient r^2: 0.82 <
// 0.9"): its CPU clock sampling failed, get_cpu_mhz gave 0 and every
// number of the row is 0, so the row is void, not a measurement (seen
// under emulation on a loaded host). PerftestMeasurer measures again.
var ErrClockSampling = errors.New("fleet: perftest's CPU clock sampling failed, its 0.00 is not a measurement")

// ErrNoPairs means a parallel run was given no pairs.
var ErrNoPairs = errors.New("fleet: no pairs to run")

// PairSpec is one perftest pair of a parallel run.
type PairSpec struct {
	// Name labels the pair in results ("eth0-eth0", "mlx5_0-mlx5_0").
	Name string
	// Server and Client run the two sides; ServerAddr is what the client
	// connects to.
	Server, Client host.Runner
	ServerAddr     string
	// Options is the pair's perftest run: its own Port and each End's
	// Device, GID index and CPUs (NICPairs fills them).
	Options perftest.Options
}

// PairOutcome is one pair of a parallel run.
type PairOutcome struct {
	Spec PairSpec
	// Result is what perftest.RunPair returned (nil when nothing started);
	// Err its error, or nil.
	Result *perftest.PairResult
	Err    error
	// BWGbps is the client's average bandwidth of the last row, in 10^9
	// bit/s (with -b, both directions together as perftest prints it);
	// NaN when the pair failed or printed no row. A row of 0.00 is
	// ErrZeroBandwidth.
	BWGbps float64
	// ClientStart is when the client was released (zero if it never was).
	ClientStart time.Time
}

// OK reports whether the pair ran without error and gave a bandwidth.
func (o PairOutcome) OK() bool { return o.Err == nil && !math.IsNaN(o.BWGbps) }

// Parallel is the result of RunParallel: every pair, and the aggregate of
// those that succeeded.
type Parallel struct {
	Pairs []PairOutcome
	// SumBWGbps adds the bandwidths of the pairs that succeeded.
	SumBWGbps float64
	// Slowest is the index of the successful pair with the lowest
	// bandwidth, -1 when none succeeded.
	Slowest int
	// Failed counts the pairs that did not succeed.
	Failed int
	// Released is when the clients were let go; ReleaseSpread is the time
	// between the first and the last client start.
	Released      time.Time
	ReleaseSpread time.Duration
	Elapsed       time.Duration
}

// PairsError lists the pairs of a parallel run that failed.
type PairsError struct {
	Names []string
	Errs  []error
}

// Error names each failed pair and its error.
func (e *PairsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %d:", ErrPairsFailed, len(e.Names))
	for i, n := range e.Names {
		fmt.Fprintf(&b, " %s: %v;", n, e.Errs[i])
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Unwrap returns ErrPairsFailed and each pair's error, so errors.As finds
// a *perftest.PairError.
func (e *PairsError) Unwrap() []error { return append([]error{ErrPairsFailed}, e.Errs...) }

// RunParallel runs perftest pairs at the same time: every server is started
// and waited for (its port in LISTEN state), then every client is
// released at once; all run under ctx and each under its own deadline
// (Options.Deadline). A pair whose server fails is left out of the
// release and does not hold the others. It returns every pair's outcome
// and the aggregate, with a *PairsError (ErrPairsFailed) when some
// failed. Each pair needs its own TCP port when servers share a host:
// NICPairs gives them one each.
//
// Similar to: for i in 0 1; do taskset -c $cpus ib_write_bw -d mlx5_$i -p $((18515+i)) & done; sleep 2; for i in 0 1; do ssh b taskset -c ... ib_write_bw -d mlx5_$i -p ... A & done; wait
func RunParallel(ctx context.Context, specs []PairSpec) (*Parallel, error) {
	if len(specs) == 0 {
		return nil, ErrNoPairs
	}
	for i, s := range specs {
		if err := s.Options.Validate(); err != nil {
			return nil, fmt.Errorf("fleet: pair %d (%s): %w", i, s.Name, err)
		}
	}
	start := time.Now()
	gate := newReleaseGate(len(specs))
	out := &Parallel{Pairs: make([]PairOutcome, len(specs)), Slowest: -1}
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cli := &gatedRunner{Runner: s.Client, gate: gate}
			pr, err := perftest.RunPair(ctx, s.Server, cli, s.ServerAddr, s.Options)
			cli.done()
			bw := clientBW(pr)
			if err == nil && bw == 0 {
				err, bw = zeroBandwidth(pr), math.NaN()
			}
			out.Pairs[i] = PairOutcome{Spec: s, Result: pr, Err: err, BWGbps: bw, ClientStart: cli.startTime()}
		}()
	}
	wg.Wait()
	out.Elapsed = time.Since(start)
	out.Released = gate.releasedAt()
	out.aggregate()
	return out, out.err()
}

// aggregate fills the sum, the slowest pair, the failures and the spread
// of the client starts.
func (p *Parallel) aggregate() {
	var first, last time.Time
	for i, o := range p.Pairs {
		if !o.ClientStart.IsZero() {
			if first.IsZero() || o.ClientStart.Before(first) {
				first = o.ClientStart
			}
			if o.ClientStart.After(last) {
				last = o.ClientStart
			}
		}
		if !o.OK() {
			p.Failed++
			continue
		}
		p.SumBWGbps += o.BWGbps
		if p.Slowest < 0 || o.BWGbps < p.Pairs[p.Slowest].BWGbps {
			p.Slowest = i
		}
	}
	p.ReleaseSpread = last.Sub(first)
}

func (p *Parallel) err() error {
	var pe PairsError
	for _, o := range p.Pairs {
		if o.OK() {
			continue
		}
		err := o.Err
		if err == nil {
			err = errors.New("no bandwidth row in the client's output")
		}
		pe.Names = append(pe.Names, o.Spec.Name)
		pe.Errs = append(pe.Errs, err)
	}
	if len(pe.Names) == 0 {
		return nil
	}
	return &pe
}

// zeroBandwidth is ErrZeroBandwidth with what the client printed: its
// row and its clock warnings (perftest prints 0.00 when its CPU clock
// sampling failed), so the cause is in the error, not in a lost output.
func zeroBandwidth(pr *perftest.PairResult) error {
	res := pr.Client.Result
	row := ""
	if n := res.BW[len(res.BW)-1].Line; n > 0 {
		if lines := strings.Split(string(pr.Client.Stdout), "\n"); n <= len(lines) {
			row = strings.Join(strings.Fields(lines[n-1]), " ")
		}
	}
	if clock := res.ClockWarnings(); len(clock) > 0 {
		return fmt.Errorf("%w (client row %q, clock warnings %q): %w", ErrZeroBandwidth, row, clock, ErrClockSampling)
	}
	return fmt.Errorf("%w (client row %q)", ErrZeroBandwidth, row)
}

// clientBW is the client's last BW row's average, in Gbit/s; NaN when
// there is none.
func clientBW(pr *perftest.PairResult) float64 {
	if pr == nil || pr.Client.Result == nil || len(pr.Client.Result.BW) == 0 {
		return math.NaN()
	}
	return pr.Client.Result.BW[len(pr.Client.Result.BW)-1].BWAvgGbps
}

// NICPairs makes the parallel pairs between two hosts, one per NIC pair
// that Links finds: each End's Device is its NIC's RDMA device, its GID
// index the NIC's own (opts' when the NIC has none), Port is basePort plus the pair's index
// (perftest.DefaultPort when basePort is 0), and when pin is set each side
// is pinned to its NIC's share of its NUMA-local CPUs (SplitCPUs over the
// NICs each host uses). opts gives everything else (test, -b, -D, ...).
//
// Similar to: ngc_multinode_perf's ib_write_bw per NIC pair with NUMA-local taskset and ports 18515+i
func NICPairs(server, client Host, opts perftest.Options, basePort int, pin bool) ([]PairSpec, error) {
	links, err := Links(server, client)
	if err != nil {
		return nil, err
	}
	if basePort == 0 {
		basePort = perftest.DefaultPort
	}
	if basePort+len(links)-1 > 65535 || basePort < 0 {
		return nil, fmt.Errorf("%w: ports %d-%d", perftest.ErrInvalidOptions, basePort, basePort+len(links)-1)
	}
	var sNICs, cNICs []NIC
	for _, l := range links {
		sNICs, cNICs = append(sNICs, l[0]), append(cNICs, l[1])
	}
	sCPUs, cCPUs := SplitCPUs(sNICs), SplitCPUs(cNICs)
	specs := make([]PairSpec, len(links))
	for i, l := range links {
		s, c := l[0], l[1]
		if !s.Addr.IsValid() {
			return nil, fmt.Errorf("%w: %s %s has no address for the client to connect to", ErrInvalidHost, server.Name, s.Netdev)
		}
		o := opts
		o.Server.Device, o.Client.Device = s.Device, c.Device
		o.Port = basePort + i
		if s.GIDIndex != nil {
			o.Server.GIDIndex = new(*s.GIDIndex)
		}
		if c.GIDIndex != nil {
			o.Client.GIDIndex = new(*c.GIDIndex)
		}
		if pin {
			o.Server.CPUs, o.Client.CPUs = sCPUs[i], cCPUs[i]
		}
		specs[i] = PairSpec{Name: s.Netdev + "-" + c.Netdev, Server: server.Runner, Client: client.Runner,
			ServerAddr: s.Addr.String(), Options: o}
	}
	return specs, nil
}
