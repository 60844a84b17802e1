package nic

import (
	"errors"
	"testing"
)

// An MTU netlink cannot carry (1<<32+9000 is 9000 in 32 bits) or the
// kernel would refuse is refused before any netlink call, the MTU left as
// it was.
func TestRootSetMTURange(t *testing.T) {
	a := newNetns(t, "mturange")
	vethPair(t, a, "nrv0", "198.18.25.5/24", a, "nrv1", "198.18.25.6/24")
	ctx := testCtx(t)
	h := openIn(t, a)
	for _, mtu := range []int{1<<32 + 9000, -1, 0, MinMTU - 1, MaxMTU + 1, 1 << 31} {
		old, err := h.SetMTU(ctx, "nrv0", mtu)
		var e *Error
		if !errors.Is(err, ErrInvalidValue) || !errors.As(err, &e) || e.Netdev != "nrv0" {
			t.Errorf("SetMTU(%d) = %d, %v; want an *Error of kind ErrInvalidValue", mtu, old, err)
		}
		if got, _ := h.MTU(ctx, "nrv0"); got != 1500 {
			t.Fatalf("after SetMTU(%d): MTU %d, want 1500 (unchanged)", mtu, got)
		}
	}
}
