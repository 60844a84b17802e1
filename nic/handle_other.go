//go:build !linux

package nic

import "context"

// Handle reads and changes netdevs; on this system every method returns
// ErrUnsupported.
type Handle struct{}

// Open returns ErrUnsupported: netdev control needs Linux.
func Open(Options) (*Handle, error) { return nil, ErrUnsupported }

// Close does nothing.
func (h *Handle) Close() error { return nil }

// MTU returns ErrUnsupported.
func (h *Handle) MTU(context.Context, string) (int, error) { return 0, ErrUnsupported }

// SetMTU returns ErrUnsupported.
func (h *Handle) SetMTU(context.Context, string, int) (int, error) { return 0, ErrUnsupported }

// State returns ErrUnsupported.
func (h *Handle) State(context.Context, string) (LinkState, error) {
	return LinkState{}, ErrUnsupported
}

// SetUp returns ErrUnsupported.
func (h *Handle) SetUp(context.Context, string, bool) (bool, error) { return false, ErrUnsupported }

// DriverInfo returns ErrUnsupported.
func (h *Handle) DriverInfo(context.Context, string) (DriverInfo, error) {
	return DriverInfo{}, ErrUnsupported
}

// LinkSettings returns ErrUnsupported.
func (h *Handle) LinkSettings(context.Context, string) (LinkSettings, error) {
	return LinkSettings{}, ErrUnsupported
}

// Ring returns ErrUnsupported.
func (h *Handle) Ring(context.Context, string) (Ring, error) { return Ring{}, ErrUnsupported }

// SetRing returns ErrUnsupported.
func (h *Handle) SetRing(context.Context, string, RingUpdate) (Ring, error) {
	return Ring{}, ErrUnsupported
}

// Channels returns ErrUnsupported.
func (h *Handle) Channels(context.Context, string) (Channels, error) {
	return Channels{}, ErrUnsupported
}

// SetChannels returns ErrUnsupported.
func (h *Handle) SetChannels(context.Context, string, ChannelsUpdate) (Channels, error) {
	return Channels{}, ErrUnsupported
}

// Features returns ErrUnsupported.
func (h *Handle) Features(context.Context, string) (map[string]Feature, error) {
	return nil, ErrUnsupported
}

// SetFeatures returns ErrUnsupported.
func (h *Handle) SetFeatures(context.Context, string, map[string]bool) (map[string]bool, error) {
	return nil, ErrUnsupported
}

// Stats returns ErrUnsupported.
func (h *Handle) Stats(context.Context, string) (Stats, error) { return Stats{}, ErrUnsupported }

// UDP returns ErrUnsupported.
func (h *Handle) UDP(context.Context) (UDPCounters, error) { return UDPCounters{}, ErrUnsupported }

// Device returns ErrUnsupported.
func (h *Handle) Device(context.Context, string) (DeviceInfo, error) {
	return DeviceInfo{}, ErrUnsupported
}

// Snapshot returns ErrUnsupported.
func (h *Handle) Snapshot(context.Context, string) (Snapshot, error) {
	return Snapshot{}, ErrUnsupported
}
