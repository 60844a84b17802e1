package nic

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/safchain/ethtool"
)

// Driver returns the driver, its version, the firmware and the bus
// address of a netdev.
//
// Similar to: ethtool -i NAME
func (h *Handle) Driver(ctx context.Context, netdev string) (Driver, error) {
	const op = "get driver info"
	if err := h.pre(ctx, op, netdev); err != nil {
		return Driver{}, err
	}
	d, err := h.eth.DriverInfo(netdev)
	if err != nil {
		return Driver{}, classify(op, netdev, err)
	}
	return Driver{Driver: d.Driver, Version: d.Version, FirmwareVersion: d.FwVersion,
		ExpansionROMVersion: d.EromVersion, BusInfo: d.BusInfo, NStats: d.NStats, NPrivFlags: d.NPrivFlags}, nil
}

// pre checks the context and the name before an ethtool call.
func (h *Handle) pre(ctx context.Context, op, netdev string) error {
	if err := h.ready(ctx); err != nil {
		return err
	}
	return checkName(op, netdev)
}

// LinkSettings returns speed, duplex, autonegotiation, port and whether a
// link is detected. It uses ETHTOOL_GSET (safchain's GetLinkSettings
// prints to stdout on kernels 6.x).
//
// Similar to: ethtool NAME
func (h *Handle) LinkSettings(ctx context.Context, netdev string) (LinkSettings, error) {
	const op = "get link settings"
	if err := h.pre(ctx, op, netdev); err != nil {
		return LinkSettings{}, err
	}
	var cmd ethtool.EthtoolCmd
	speed, err := h.eth.CmdGet(&cmd, netdev)
	if err != nil {
		return LinkSettings{}, classify(op, netdev, err)
	}
	link, err := h.eth.LinkState(netdev)
	if err != nil {
		return LinkSettings{}, classify(op, netdev, err)
	}
	ls := LinkSettings{SpeedMbps: speedMbps(speed), Duplex: duplexOf(cmd.Duplex), Autoneg: cmd.Autoneg == 1,
		Port: portName(cmd.Port), LinkDetected: link == 1}
	// ETHTOOL_GLINKSETTINGS carries the modes above bit 31 (25G KR/SR,
	// 50G, 100G, ...) that the legacy command cuts off.
	_ = h.inNetns(func() error {
		var err error
		ls.Supported, ls.Advertised, ls.PartnerAdvertised, err = linkModes(netdev)
		return err
	})
	return ls, nil
}

// Ring returns the ring sizes. Drivers without them (veth) give an *Error
// of kind ErrNotSupported.
//
// Similar to: ethtool -g NAME
func (h *Handle) Ring(ctx context.Context, netdev string) (Ring, error) {
	const op = "get ring"
	if err := h.pre(ctx, op, netdev); err != nil {
		return Ring{}, err
	}
	r, err := h.eth.GetRing(netdev)
	if err != nil {
		return Ring{}, classify(op, netdev, err)
	}
	return Ring{RxPending: r.RxPending, RxMiniPending: r.RxMiniPending, RxJumboPending: r.RxJumboPending, TxPending: r.TxPending,
		RxMax: r.RxMaxPending, RxMiniMax: r.RxMiniMaxPending, RxJumboMax: r.RxJumboMaxPending, TxMax: r.TxMaxPending}, nil
}

// SetRing changes the ring sizes set in u, reads them back and returns the
// Ring it replaced (restore with SetRing(ctx, netdev, old.Update())).
//
// Similar to: ethtool -G NAME rx N tx N
func (h *Handle) SetRing(ctx context.Context, netdev string, u RingUpdate) (old Ring, err error) {
	return setVerified(ctx, "set ring", netdev, h.Ring, u.apply, func(want Ring) error {
		_, err := h.eth.SetRing(netdev, ethtool.Ring{RxPending: want.RxPending, RxMiniPending: want.RxMiniPending,
			RxJumboPending: want.RxJumboPending, TxPending: want.TxPending})
		return err
	})
}

// setVerified reads a netdev's values with get, and unless apply leaves
// them as they are, writes apply's result with set and reads it back
// (ErrVerify when it differs). It returns the values it replaced.
func setVerified[T comparable](ctx context.Context, op, netdev string,
	get func(context.Context, string) (T, error), apply func(T) T, set func(T) error) (old T, err error) {
	if old, err = get(ctx, netdev); err != nil {
		return old, err
	}
	want := apply(old)
	if want == old {
		return old, nil
	}
	if err := set(want); err != nil {
		return old, classify(op, netdev, err)
	}
	got, err := get(ctx, netdev)
	if err != nil {
		return old, err
	}
	if got != want {
		return old, &Error{Op: op, Netdev: netdev, Kind: ErrVerify, Err: fmt.Errorf("set %+v, read back %+v", want, got)}
	}
	return old, nil
}

// Channels returns the queue counts.
//
// Similar to: ethtool -l NAME
func (h *Handle) Channels(ctx context.Context, netdev string) (Channels, error) {
	const op = "get channels"
	if err := h.pre(ctx, op, netdev); err != nil {
		return Channels{}, err
	}
	c, err := h.eth.GetChannels(netdev)
	if err != nil {
		return Channels{}, classify(op, netdev, err)
	}
	return Channels{Rx: c.RxCount, Tx: c.TxCount, Other: c.OtherCount, Combined: c.CombinedCount,
		MaxRx: c.MaxRx, MaxTx: c.MaxTx, MaxOther: c.MaxOther, MaxCombined: c.MaxCombined}, nil
}

// SetChannels changes the queue counts set in u, reads them back and
// returns the Channels it replaced (restore with
// SetChannels(ctx, netdev, old.Update())). More queues than the maximum is
// an *Error of kind ErrInvalidValue.
//
// Similar to: ethtool -L NAME combined N
func (h *Handle) SetChannels(ctx context.Context, netdev string, u ChannelsUpdate) (old Channels, err error) {
	return setVerified(ctx, "set channels", netdev, h.Channels, u.apply, func(want Channels) error {
		_, err := h.eth.SetChannels(netdev, ethtool.Channels{RxCount: want.Rx, TxCount: want.Tx,
			OtherCount: want.Other, CombinedCount: want.Combined})
		return err
	})
}

// Features returns the offload features by their ethtool names
// ("rx-gro-hw", "tx-checksum-ipv4", ...).
//
// Similar to: ethtool -k NAME
func (h *Handle) Features(ctx context.Context, netdev string) (map[string]Feature, error) {
	const op = "get features"
	if err := h.pre(ctx, op, netdev); err != nil {
		return nil, err
	}
	fs, err := h.eth.FeaturesWithState(netdev)
	if err != nil {
		return nil, classify(op, netdev, err)
	}
	out := make(map[string]Feature, len(fs))
	for name, s := range fs {
		out[name] = Feature{Active: s.Active, Requested: s.Requested, Fixed: !s.Available}
	}
	return out, nil
}

// SetFeatures turns features on or off, reads them back and returns the
// states it replaced (restore with another SetFeatures). An unknown or
// fixed feature is an *Error of kind ErrNotSupported and changes nothing;
// one that did not take effect (the kernel accepts fixed features
// silently, and some depend on others) one of kind ErrVerify.
//
// Similar to: ethtool -K NAME gro off
func (h *Handle) SetFeatures(ctx context.Context, netdev string, want map[string]bool) (old map[string]bool, err error) {
	const op = "set features"
	cur, err := h.Features(ctx, netdev)
	if err != nil {
		return nil, err
	}
	old = make(map[string]bool, len(want))
	change := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		f, ok := cur[name]
		switch {
		case !ok:
			return nil, &Error{Op: op, Netdev: netdev, Kind: ErrNotSupported, Err: fmt.Errorf("no feature %q", name)}
		case f.Active == want[name]:
		case f.Fixed:
			return nil, &Error{Op: op, Netdev: netdev, Kind: ErrNotSupported, Err: fmt.Errorf("feature %q is fixed %v", name, onOff(f.Active))}
		default:
			change[name] = want[name]
		}
		old[name] = f.Active
	}
	if len(change) == 0 {
		return old, nil
	}
	if err := h.eth.Change(netdev, change); err != nil {
		return old, classify(op, netdev, err)
	}
	after, err := h.Features(ctx, netdev)
	if err != nil {
		return old, err
	}
	var bad []error
	for name, v := range change {
		if after[name].Active != v {
			bad = append(bad, fmt.Errorf("%s is still %s", name, onOff(after[name].Active)))
		}
	}
	if len(bad) > 0 {
		return old, &Error{Op: op, Netdev: netdev, Kind: ErrVerify, Err: errors.Join(bad...)}
	}
	return old, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Coalesce returns the interrupt coalescing. Drivers without it (veth)
// give an *Error of kind ErrNotSupported.
//
// Similar to: ethtool -c NAME
func (h *Handle) Coalesce(ctx context.Context, netdev string) (Coalesce, error) {
	const op = "get coalesce"
	if err := h.pre(ctx, op, netdev); err != nil {
		return Coalesce{}, err
	}
	c, err := h.eth.GetCoalesce(netdev)
	if err != nil {
		return Coalesce{}, classify(op, netdev, err)
	}
	return coalesceOf(c), nil
}

func coalesceOf(c ethtool.Coalesce) Coalesce {
	return Coalesce{AdaptiveRx: c.UseAdaptiveRxCoalesce != 0, AdaptiveTx: c.UseAdaptiveTxCoalesce != 0,
		RxUsecs: c.RxCoalesceUsecs, RxFrames: c.RxMaxCoalescedFrames, TxUsecs: c.TxCoalesceUsecs, TxFrames: c.TxMaxCoalescedFrames}
}

// SetCoalesce changes the fields set in u (the driver's other coalescing
// parameters are kept), reads them back and returns the Coalesce it
// replaced (restore with SetCoalesce(ctx, netdev, old.Update())).
//
// Similar to: ethtool -C NAME adaptive-rx off rx-usecs 8 rx-frames 32
func (h *Handle) SetCoalesce(ctx context.Context, netdev string, u CoalesceUpdate) (old Coalesce, err error) {
	const op = "set coalesce"
	if err := h.pre(ctx, op, netdev); err != nil {
		return Coalesce{}, err
	}
	full, err := h.eth.GetCoalesce(netdev)
	if err != nil {
		return Coalesce{}, classify(op, netdev, err)
	}
	old = coalesceOf(full)
	want := u.apply(old)
	if want == old {
		return old, nil
	}
	b := func(v bool) uint32 {
		if v {
			return 1
		}
		return 0
	}
	full.UseAdaptiveRxCoalesce, full.UseAdaptiveTxCoalesce = b(want.AdaptiveRx), b(want.AdaptiveTx)
	full.RxCoalesceUsecs, full.RxMaxCoalescedFrames = want.RxUsecs, want.RxFrames
	full.TxCoalesceUsecs, full.TxMaxCoalescedFrames = want.TxUsecs, want.TxFrames
	if _, err := h.eth.SetCoalesce(netdev, full); err != nil {
		return old, classify(op, netdev, err)
	}
	got, err := h.Coalesce(ctx, netdev)
	if err != nil {
		return old, err
	}
	if !u.Matches(got) {
		return old, &Error{Op: op, Netdev: netdev, Kind: ErrVerify, Err: fmt.Errorf("set %+v, read back %+v", want, got)}
	}
	return old, nil
}
