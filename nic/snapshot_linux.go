package nic

import "context"

// Snapshot records a netdev: MTU, state, driver, link settings, rings,
// channels, features, counters, placement and the namespace's UDP
// counters. Only a missing netdev or a cancelled context fails it; every
// other part that cannot be read is left empty and named in Warnings
// ("ring: not supported by the driver").
//
// Similar to: ip -d -s link show NAME; ethtool -i/-g/-l/-k/-S NAME; netstat -su
func (h *Handle) Snapshot(ctx context.Context, netdev string) (Snapshot, error) {
	s := Snapshot{Netdev: netdev, Netns: h.opts.Netns}
	var err error
	if s.MTU, err = h.MTU(ctx, netdev); err != nil {
		return s, err
	}
	s.RoCEPathMTU = RoCEPathMTU(s.MTU)
	warn := func(what string, err error) bool {
		if err == nil {
			return false
		}
		s.Warnings = append(s.Warnings, partError{part: what, err: err})
		return true
	}
	if s.State, err = h.State(ctx, netdev); err != nil {
		return s, err
	}
	if s.Driver, err = h.Driver(ctx, netdev); warn("driver", err) {
		s.Driver = Driver{}
	}
	if l, err := h.LinkSettings(ctx, netdev); !warn("link settings", err) {
		s.Link = &l
	}
	if r, err := h.Ring(ctx, netdev); !warn("ring", err) {
		s.Ring = &r
	}
	if c, err := h.Channels(ctx, netdev); !warn("channels", err) {
		s.Channels = &c
	}
	if f, err := h.Features(ctx, netdev); !warn("features", err) {
		s.Features = f
	}
	if s.Stats, err = h.Stats(ctx, netdev); warn("stats", err) {
		s.Stats = Stats{Netdev: netdev}
	}
	if s.Device, err = h.Device(ctx, netdev); warn("device", err) {
		s.Device = Device{Netdev: netdev, NUMANode: -1}
	}
	if u, err := h.UDP(ctx); !warn("udp", err) {
		s.UDP = &u
	}
	s.Time = s.Stats.Time
	return s, ctx.Err()
}
