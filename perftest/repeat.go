package perftest

import (
	"context"
	"fmt"

	"github.com/rocekit/rocekit/host"
)

// Repeat runs n pairs one after the other, each with a fresh server and
// client, for statistics over runs (perftest's own numbers come from one
// process pair, which repeats its warm-up and connection setup never).
// It stops at the first failure and returns the pairs run so far, the
// failed one last, with its error wrapped with its run number; the options
// are checked once, before anything starts.
//
// Similar to: for i in $(seq N); do ib_send_bw ... & ib_send_bw ... HOST; done
func Repeat(ctx context.Context, n int, serverRunner, clientRunner host.Runner, serverAddr string, opts Options) ([]*PairResult, error) {
	if n < 1 {
		return nil, optionsErr("n", "%d runs", n)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	results := make([]*PairResult, 0, n)
	for i := range n {
		pr, err := RunPair(ctx, serverRunner, clientRunner, serverAddr, opts)
		if pr != nil {
			results = append(results, pr)
		}
		if err != nil {
			return results, fmt.Errorf("perftest: run %d of %d: %w", i+1, n, err)
		}
	}
	return results, nil
}
