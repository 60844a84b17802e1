package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// DefaultPrepareLimit is how many hosts Prepare works on at once when no
// limit is given: enough to hide SSH and rocekit-peer round trips, few
// enough for one coordinator's CPU and file descriptors.
const DefaultPrepareLimit = 16

// ErrPrepare is matched by *PrepareError.
var ErrPrepare = errors.New("fleet: hosts not prepared")

// HostFailure is one host Prepare could not prepare.
type HostFailure struct {
	Host string
	Err  error
}

// PrepareError names every host that failed, each with its error.
type PrepareError struct {
	Failures []HostFailure
	Hosts    int // how many were prepared in all
}

// Error lists the hosts and their errors.
func (e *PrepareError) Error() string {
	parts := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		parts[i] = f.Host + ": " + f.Err.Error()
	}
	return fmt.Sprintf("%v: %d of %d: %s", ErrPrepare, len(e.Failures), e.Hosts, strings.Join(parts, "; "))
}

// Unwrap returns ErrPrepare and each host's error, for errors.Is and As.
func (e *PrepareError) Unwrap() []error {
	out := []error{ErrPrepare}
	for _, f := range e.Failures {
		out = append(out, f.Err)
	}
	return out
}

// Prepare runs prepare for every host (its index in names), at most limit
// at once (0: DefaultPrepareLimit; 1: one after the other), and returns
// the results in the order of names. A failure does not stop the others:
// every host is tried, every failure is named in a *PrepareError, and the
// results of the hosts that succeeded are returned beside it, so that the
// caller restores what was changed on all of them. When ctx ends, hosts
// not started yet fail with its cause.
//
// Similar to: pdsh -f 16 -w HOSTS 'modprobe rdma_rxe; rdma link add ...'
func Prepare[T any](ctx context.Context, names []string, limit int, prepare func(ctx context.Context, i int) (T, error)) ([]T, error) {
	if limit <= 0 {
		limit = DefaultPrepareLimit
	}
	out := make([]T, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range names {
		select {
		case sem <- struct{}{}:
			if ctx.Err() != nil { // both were ready: the end wins
				<-sem
				errs[i] = context.Cause(ctx)
				continue
			}
		case <-ctx.Done():
			errs[i] = context.Cause(ctx)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = prepare(ctx, i)
		}()
	}
	wg.Wait()
	e := &PrepareError{Hosts: len(names)}
	for i, err := range errs {
		if err != nil {
			e.Failures = append(e.Failures, HostFailure{Host: names[i], Err: err})
		}
	}
	if len(e.Failures) > 0 {
		return out, e
	}
	return out, nil
}
