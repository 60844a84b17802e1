package nic

import (
	"context"
	"fmt"
	"net"
)

// MTU returns a netdev's MTU.
//
// Similar to: ip link show NAME
func (h *Handle) MTU(ctx context.Context, netdev string) (int, error) {
	if err := h.ready(ctx); err != nil {
		return 0, err
	}
	l, err := h.link("get mtu", netdev)
	if err != nil {
		return 0, err
	}
	return l.Attrs().MTU, nil
}

// SetMTU sets a netdev's MTU, reads it back, and returns the MTU it
// replaced (restore it with another SetMTU). An MTU outside
// MinMTU..MaxMTU, refused before netlink, or a value the device refuses is
// an *Error of kind ErrInvalidValue; one that reads back differently of
// kind ErrVerify. An rxe device on the netdev follows the new MTU (see
// RXEPathMTU).
//
// Similar to: ip link set NAME mtu MTU
func (h *Handle) SetMTU(ctx context.Context, netdev string, mtu int) (old int, err error) {
	const op = "set mtu"
	if err := checkMTU(op, netdev, mtu); err != nil {
		return 0, err
	}
	if err := h.ready(ctx); err != nil {
		return 0, err
	}
	l, err := h.link(op, netdev)
	if err != nil {
		return 0, err
	}
	old = l.Attrs().MTU
	if old == mtu {
		return old, nil
	}
	if err := h.nlh.LinkSetMTU(l, mtu); err != nil {
		return old, classify(op, netdev, fmt.Errorf("mtu %d: %w", mtu, err))
	}
	got, err := h.MTU(ctx, netdev)
	if err != nil {
		return old, err
	}
	if got != mtu {
		return old, &Error{Op: op, Netdev: netdev, Kind: ErrVerify, Err: fmt.Errorf("set %d, read back %d", mtu, got)}
	}
	return old, nil
}

// State returns a netdev's state.
//
// Similar to: ip -br link show NAME
func (h *Handle) State(ctx context.Context, netdev string) (LinkState, error) {
	if err := h.ready(ctx); err != nil {
		return LinkState{}, err
	}
	l, err := h.link("get state", netdev)
	if err != nil {
		return LinkState{}, err
	}
	return LinkState{AdminUp: l.Attrs().Flags&net.FlagUp != 0, OperState: l.Attrs().OperState.String()}, nil
}

// SetUp brings a netdev up (up) or down, and returns whether it was up.
//
// Similar to: ip link set NAME up|down
func (h *Handle) SetUp(ctx context.Context, netdev string, up bool) (wasUp bool, err error) {
	const op = "set link"
	st, err := h.State(ctx, netdev)
	if err != nil {
		return false, err
	}
	if st.AdminUp == up {
		return up, nil
	}
	l, err := h.link(op, netdev)
	if err != nil {
		return st.AdminUp, err
	}
	if up {
		err = h.nlh.LinkSetUp(l)
	} else {
		err = h.nlh.LinkSetDown(l)
	}
	if err != nil {
		return st.AdminUp, classify(op, netdev, err)
	}
	after, err := h.State(ctx, netdev)
	if err != nil {
		return st.AdminUp, err
	}
	if after.AdminUp != up {
		return st.AdminUp, &Error{Op: op, Netdev: netdev, Kind: ErrVerify, Err: fmt.Errorf("still admin up=%v", after.AdminUp)}
	}
	return st.AdminUp, nil
}
