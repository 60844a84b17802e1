package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPrepareOrderLimitAndFailures(t *testing.T) {
	names := []string{"h0", "h1", "h2", "h3", "h4", "h5"}
	var running, most atomic.Int32
	boom := errors.New("rdma link add: Operation not supported")
	out, err := Prepare(context.Background(), names, 2, func(ctx context.Context, i int) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond) // overlap, so the bound is exercised
		if i == 1 || i == 4 {
			return "half " + names[i], fmt.Errorf("%s: %w", names[i], boom)
		}
		return "ready " + names[i], nil
	})
	var pe *PrepareError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPrepare) || !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if len(pe.Failures) != 2 || pe.Failures[0].Host != "h1" || pe.Failures[1].Host != "h4" || pe.Hosts != 6 {
		t.Errorf("failures %+v", pe.Failures)
	}
	if !strings.Contains(err.Error(), "2 of 6: h1: h1: rdma link add") {
		t.Errorf("message %q", err)
	}
	for i, o := range out {
		if !strings.HasSuffix(o, names[i]) {
			t.Errorf("out[%d] = %q", i, o)
		}
	}
	if most.Load() > 2 {
		t.Errorf("%d at once, limit 2", most.Load())
	}
}

func TestPrepareCancelled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("Ctrl-C")
	started := 0
	_, err := Prepare(ctx, []string{"a", "b", "c"}, 1, func(ctx context.Context, i int) (int, error) {
		started++
		cancel(stop)
		return i, nil
	})
	var pe *PrepareError
	if started != 1 || !errors.As(err, &pe) || len(pe.Failures) != 2 || !errors.Is(err, stop) {
		t.Errorf("started %d, err %v", started, err)
	}
}
