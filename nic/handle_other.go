//go:build !linux

package nic

import (
	"context"
	"net/netip"
)

// Handle reads and changes netdevs; on this system every method returns
// ErrUnsupportedOS.
type Handle struct{}

// Open returns ErrUnsupportedOS: netdev control needs Linux.
func Open(Options) (*Handle, error) { return nil, ErrUnsupportedOS }

// Close does nothing.
func (h *Handle) Close() error { return nil }

// MTU returns ErrUnsupportedOS.
func (h *Handle) MTU(context.Context, string) (int, error) { return 0, ErrUnsupportedOS }

// SetMTU returns ErrUnsupportedOS.
func (h *Handle) SetMTU(context.Context, string, int) (int, error) { return 0, ErrUnsupportedOS }

// State returns ErrUnsupportedOS.
func (h *Handle) State(context.Context, string) (LinkState, error) {
	return LinkState{}, ErrUnsupportedOS
}

// SetUp returns ErrUnsupportedOS.
func (h *Handle) SetUp(context.Context, string, bool) (bool, error) { return false, ErrUnsupportedOS }

// Driver returns ErrUnsupportedOS.
func (h *Handle) Driver(context.Context, string) (Driver, error) {
	return Driver{}, ErrUnsupportedOS
}

// LinkSettings returns ErrUnsupportedOS.
func (h *Handle) LinkSettings(context.Context, string) (LinkSettings, error) {
	return LinkSettings{}, ErrUnsupportedOS
}

// Ring returns ErrUnsupportedOS.
func (h *Handle) Ring(context.Context, string) (Ring, error) { return Ring{}, ErrUnsupportedOS }

// SetRing returns ErrUnsupportedOS.
func (h *Handle) SetRing(context.Context, string, RingUpdate) (Ring, error) {
	return Ring{}, ErrUnsupportedOS
}

// Channels returns ErrUnsupportedOS.
func (h *Handle) Channels(context.Context, string) (Channels, error) {
	return Channels{}, ErrUnsupportedOS
}

// SetChannels returns ErrUnsupportedOS.
func (h *Handle) SetChannels(context.Context, string, ChannelsUpdate) (Channels, error) {
	return Channels{}, ErrUnsupportedOS
}

// Features returns ErrUnsupportedOS.
func (h *Handle) Features(context.Context, string) (map[string]Feature, error) {
	return nil, ErrUnsupportedOS
}

// SetFeatures returns ErrUnsupportedOS.
func (h *Handle) SetFeatures(context.Context, string, map[string]bool) (map[string]bool, error) {
	return nil, ErrUnsupportedOS
}

// Stats returns ErrUnsupportedOS.
func (h *Handle) Stats(context.Context, string) (Stats, error) { return Stats{}, ErrUnsupportedOS }

// UDP returns ErrUnsupportedOS.
func (h *Handle) UDP(context.Context) (UDPCounters, error) { return UDPCounters{}, ErrUnsupportedOS }

// Device returns ErrUnsupportedOS.
func (h *Handle) Device(context.Context, string) (Device, error) {
	return Device{}, ErrUnsupportedOS
}

// Snapshot returns ErrUnsupportedOS.
func (h *Handle) Snapshot(context.Context, string) (Snapshot, error) {
	return Snapshot{}, ErrUnsupportedOS
}

// Coalesce returns ErrUnsupportedOS.
func (h *Handle) Coalesce(context.Context, string) (Coalesce, error) {
	return Coalesce{}, ErrUnsupportedOS
}

// SetCoalesce returns ErrUnsupportedOS.
func (h *Handle) SetCoalesce(context.Context, string, CoalesceUpdate) (Coalesce, error) {
	return Coalesce{}, ErrUnsupportedOS
}

// ProbeMTU returns ErrUnsupportedOS.
func (h *Handle) ProbeMTU(_ context.Context, dst netip.Addr, mtu int, _ MTUProbeOptions) (MTUProbe, error) {
	return MTUProbe{Dst: dst, MTU: mtu}, ErrUnsupportedOS
}

// UDPBound returns ErrUnsupportedOS.
func (h *Handle) UDPBound(context.Context) ([]UDPSocket, error) { return nil, ErrUnsupportedOS }
