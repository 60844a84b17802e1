package runbook

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/perftest"
)

// PerftestOptions completes opts for a pair whose server runs on the far
// side and client on the near one: each side's device and the GID index
// PrepareRXE picked on it. In loopback both are the same.
func PerftestOptions(opts perftest.Options, sides *Sides, far, near RXEInfo) perftest.Options {
	opts.Device = far.Device
	if near.Device != far.Device {
		opts.ClientDevice = near.Device
	}
	farRunner := sides.Far.Runner().String()
	opts.GID = perftest.GIDChooserFunc(func(_ context.Context, r host.Runner, device string, _ int) (int, error) {
		switch {
		case r.String() == farRunner && device == far.Device:
			return far.GID.Entry.Index, nil
		case device == near.Device:
			return near.GID.Entry.Index, nil
		}
		return 0, fmt.Errorf("runbook: no GID picked for %s on %s", device, r)
	})
	return opts
}

// Pairs are the repeats of one perftest step.
type Pairs struct {
	Pairs   []*perftest.PairResult
	Results []*perftest.Result // the clients' results, in run order
	// Failures name the runs that ended in a completion error: perftest
	// ran, and its output is kept in Pairs (rdma_rxe on Debian trixie's
	// 6.12 kernel sometimes fails a send with several QPs: "Failed status
	// 11" at the client, 2 at the server).
	Failures []string
}

// RunPairs runs count pairs, server on the far end and client on the near
// one, each with a fresh pair, announcing each on prog (nil: silent). A
// run that ends in a completion error is kept and named in Failures; any
// other error stops, with the failed pair's outputs kept in
// out/failed/LABEL-N/ when out is set.
func RunPairs(ctx context.Context, sides *Sides, far RXEInfo, opts perftest.Options, count int, prog *Progress, label, out string) (Pairs, error) {
	var ps Pairs
	for i := range count {
		prog.step("%s run %d of %d", label, i+1, count)
		p, err := perftest.RunPair(ctx, sides.Far.Runner(), sides.Near.Runner(), far.Addr, opts)
		if err != nil && !runFailed(ctx, err) {
			err = fmt.Errorf("%s run %d: %w", label, i+1, err)
			if out != "" {
				err = errors.Join(err, KeepFailedPair(out, fmt.Sprintf("%s-%d", strings.ReplaceAll(label, " ", "-"), i+1), p))
			}
			return ps, err
		}
		if err != nil {
			ps.Failures = append(ps.Failures, fmt.Sprintf("run %d: %v", i+1, err))
		}
		ps.Pairs = append(ps.Pairs, p)
		ps.Results = append(ps.Results, p.Client.Result)
	}
	return ps, nil
}

// runFailed says whether a pair that failed is a run to record rather
// than a reason to stop: perftest ran and reported a completion error. A
// cancelled run, or a pair that could not start, stops.
func runFailed(ctx context.Context, err error) bool {
	var pe *perftest.PairError
	return ctx.Err() == nil && errors.As(err, &pe) && pe.Failure != nil && pe.Failure.Kind == perftest.KindCompletion
}
