package cli

import (
	"errors"
	"flag"
)

// StepFlags are the flags of the soft-RoCE examples that run ib_send_bw
// steps (mtu-sweep, qp-scaling, softroce-baseline), beside the shared
// ones: the rxe link, the runs of each step, and where the rounds go.
type StepFlags struct {
	Flags
	// RXE is the rxe link to create when the netdev has none.
	RXE string
	// Count is the runs of each step, each with a fresh pair.
	Count int
	// Iterations is perftest's -n of each run.
	Iterations int
	// QPTimeout is perftest's -u (0: its default).
	QPTimeout int
	// Store is the round store, appended; Out the folder of the outputs.
	Store, Out string
}

// RegisterSteps adds the shared flags and these to fs: count is -count's
// usage (what one run is of), out -out's default and outUsage its usage.
func (f *StepFlags) RegisterSteps(fs *flag.FlagSet, count, out, outUsage string) {
	f.Register(fs)
	fs.StringVar(&f.RXE, "rxe", "rxe0", "rxe link name to create when the netdev has none")
	fs.IntVar(&f.Count, "count", 3, count)
	fs.IntVar(&f.Iterations, "n", 10000, "iterations per run (-n)")
	fs.IntVar(&f.QPTimeout, "qp-timeout", 0, "perftest -u: QP timeout exponent, 4.096 us * 2^N (0: perftest's 14, 67 ms); raise it on emulated or loaded hosts (the lab uses 22)")
	fs.StringVar(&f.Store, "store", "rocekit-rounds.jsonl", "round store (appended)")
	fs.StringVar(&f.Out, "out", out, outUsage)
}

// Validate checks the shared flags and these without touching the
// system, each refusal naming its flag; an example joins its own after.
func (f *StepFlags) Validate() error {
	return errors.Join(f.Flags.Validate(), RDMADevice("-rxe", f.RXE), AtLeast("-count", f.Count, 1),
		Iterations("-n", f.Iterations), QPTimeout("-qp-timeout", f.QPTimeout))
}
