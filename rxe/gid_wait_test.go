package rxe

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWaitGID(t *testing.T) {
	sc := suiteCapture(t, "bookworm")["rxe0-ipv4"]
	isIPv4 := func(e GIDEntry) bool { _, ok := e.IPv4(); return ok && e.Type == GIDTypeRoCEv2 }
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e, err := sc.root().WaitGID(ctx, "rxe0", 1, isIPv4)
	if err != nil || e.Index != 2 {
		t.Errorf("WaitGID = %+v, %v; want index 2", e, err)
	}

	six := suiteCapture(t, "bookworm")["rxe0-ipv6-only"]
	short, cancel2 := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel2()
	start := time.Now()
	_, err = six.root().WaitGID(short, "rxe0", 1, isIPv4)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) < 100*time.Millisecond {
		t.Errorf("no IPv4 GID: err = %v after %v", err, time.Since(start))
	}
	if _, err := six.root().WaitGID(short, "rxe9", 1, isIPv4); !errors.Is(err, ErrDeviceNotFound) {
		t.Errorf("missing device: err = %v", err)
	}
}
