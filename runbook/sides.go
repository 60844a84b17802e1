package runbook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rocekit/rocekit/rxe"
)

// Mode says how the two ends of a run are placed.
type Mode string

// The modes of a run.
const (
	Loopback Mode = "loopback" // both ends on this host, same netdev
	TwoNetns Mode = "netns"    // far end in a namespace of this host
	TwoHosts Mode = "two-host" // far end over SSH
)

// Sides are the two ends of a run. In Loopback, Far is Near. A framework
// builds them from a Local and a Local in a namespace or a DialPeer
// result; the examples' flags do the same (examples/internal/cli).
type Sides struct {
	Mode       Mode
	Near, Far  Side
	NearNetdev string
	FarNetdev  string
	// NearRXE and FarRXE are what PrepareRXE made or found on each end:
	// device, address, netdev MTU and the GID picked with its reason. In
	// Loopback they are the same link.
	NearRXE, FarRXE RXE
}

// Progress is told of each step of a long operation before it starts
// (the examples print it with an ETA). A nil Progress is told nothing.
type Progress interface {
	Step(format string, args ...any)
}

// step tells p of a step when there is a p.
func step(p Progress, format string, args ...any) {
	if p != nil {
		p.Step(format, args...)
	}
}

// ends returns the two sides, Far being Near in a Loopback without Far,
// or an error wrapping ErrInvalidSides.
func (s *Sides) ends() (near, far Side, err error) {
	if s == nil || s.Near == nil {
		return nil, nil, fmt.Errorf("%w: no near side", ErrInvalidSides)
	}
	far = s.Far
	if far == nil {
		if s.Mode != Loopback {
			return nil, nil, fmt.Errorf("%w: no far side in mode %q", ErrInvalidSides, s.Mode)
		}
		far = s.Near
	}
	return s.Near, far, nil
}

// Restore undoes both sides' changes with a fresh one-minute context (the
// run's may be cancelled already: Ctrl-C) and closes them, newest first
// across both ends: both may be one kernel (-peer to this very host,
// containers on one node), where the far end's journal holds the value the
// near end had set. When the far end cannot be reached, this host is still
// restored whole. A side that is nil has nothing to undo.
func (s *Sides) Restore() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var errs []error
	switch {
	case s.Near != nil && s.Far != nil && s.Far != s.Near:
		errs = append(restoreOrdered(ctx, s.Near, s.Far), s.Near.Close(), s.Far.Close())
	case s.Near != nil:
		errs = append(errs, s.Near.Restore(ctx), s.Near.Close())
	case s.Far != nil:
		errs = append(errs, s.Far.Restore(ctx), s.Far.Close())
	}
	return errors.Join(errs...)
}

// PrepareRXE prepares rxe on both ends (once in loopback) with the same
// link name and MTU, announcing each on prog (nil: silent), and keeps
// what it made or found on s.NearRXE and s.FarRXE. rdma device names are
// global to a kernel, so a far end in a namespace here gets name+"p". A
// pair that cannot work is refused here, before any test: the two chosen
// GIDs must be of one RoCE version and both IPv4-mapped or both IPv6
// (rxe.CheckCompatible; the error, matching rxe.ErrIncompatibleGIDs,
// names both entries).
func (s *Sides) PrepareRXE(ctx context.Context, name string, mtu int, prog Progress) error {
	nearSide, farSide, err := s.ends()
	if err != nil {
		return err
	}
	farName := name
	if s.Mode == TwoNetns {
		farName = name + "p"
	}
	step(prog, "prepare rxe on %s (%s)", farSide.Name(), s.FarNetdev)
	far, err := farSide.PrepareRXE(ctx, RXEConfig{Netdev: s.FarNetdev, Name: farName, MTU: mtu})
	s.FarRXE = far
	if err != nil {
		return fmt.Errorf("%s: %w", farSide.Name(), err)
	}
	if s.Mode == Loopback {
		s.NearRXE = far
		return nil
	}
	step(prog, "prepare rxe on %s (%s)", nearSide.Name(), s.NearNetdev)
	near, err := nearSide.PrepareRXE(ctx, RXEConfig{Netdev: s.NearNetdev, Name: name, MTU: mtu})
	s.NearRXE = near
	if err != nil {
		return fmt.Errorf("%s: %w", nearSide.Name(), err)
	}
	if err := rxe.CheckCompatible(near.GID.Entry, far.GID.Entry); err != nil {
		return fmt.Errorf("%s against %s: %w", nearSide.Name(), farSide.Name(), err)
	}
	return nil
}

// SetMTU sets the MTU on both ends (once in loopback).
func (s *Sides) SetMTU(ctx context.Context, mtu int) error {
	nearSide, farSide, err := s.ends()
	if err != nil {
		return err
	}
	if err := farSide.SetMTU(ctx, s.FarNetdev, mtu); err != nil {
		return fmt.Errorf("%s: %w", farSide.Name(), err)
	}
	if s.Mode == Loopback {
		return nil
	}
	if err := nearSide.SetMTU(ctx, s.NearNetdev, mtu); err != nil {
		return fmt.Errorf("%s: %w", nearSide.Name(), err)
	}
	return nil
}

// NetdevMTUs reads back the MTU each end's netdev has now (the same in
// loopback) and keeps them on NearRXE and FarRXE, which a perftest step
// records as the round's netdev_mtu.
func (s *Sides) NetdevMTUs(ctx context.Context) (near, far int, err error) {
	nearSide, farSide, err := s.ends()
	if err != nil {
		return 0, 0, err
	}
	fi, err := farSide.Netdev(ctx, s.FarNetdev)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", farSide.Name(), err)
	}
	near, far = fi.Snapshot.MTU, fi.Snapshot.MTU
	if s.Mode != Loopback {
		ni, err := nearSide.Netdev(ctx, s.NearNetdev)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", nearSide.Name(), err)
		}
		near = ni.Snapshot.MTU
	}
	s.NearRXE.NetdevMTU, s.FarRXE.NetdevMTU = near, far
	return near, far, nil
}

// ErrInvalidSides means a Sides cannot be used as given: no Near, or no
// Far outside Loopback.
var ErrInvalidSides = errors.New("runbook: invalid sides")
