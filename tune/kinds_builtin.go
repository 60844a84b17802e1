package tune

import (
	"context"
	"errors"
	"strconv"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
)

// kinds is the table of kinds of change: the ones below, which keep their
// values in Value's own fields, and those a file of their own registers.
var kinds = map[Kind]*kindDef{
	KindMTU: {
		validTarget: netdevTarget,
		validNew:    func(_ Target, v Value) error { return ValidateMTU(v.MTU) },
		read: withNIC(func(ctx context.Context, h *nic.Handle, netdev string) (Value, error) {
			mtu, err := h.MTU(ctx, netdev)
			return Value{MTU: mtu}, err
		}),
		write: toNIC(func(ctx context.Context, h *nic.Handle, netdev string, v Value) error {
			_, err := h.SetMTU(ctx, netdev, v.MTU)
			return err
		}),
		matches: func(want, got Value) bool { return want.MTU == got.MTU },
	},
	KindLink: {
		validTarget: netdevTarget,
		validNew: func(t Target, v Value) error {
			if v.Up == nil {
				return invalid("link", t.Netdev, "no state given")
			}
			return nil
		},
		validOld: func(_ Target, v Value) error { return need(v.Up != nil) },
		read: withNIC(func(ctx context.Context, h *nic.Handle, netdev string) (Value, error) {
			st, err := h.State(ctx, netdev)
			return Value{Up: &st.AdminUp}, err
		}),
		write: toNIC(func(ctx context.Context, h *nic.Handle, netdev string, v Value) error {
			_, err := h.SetUp(ctx, netdev, *v.Up)
			return err
		}),
		matches: func(want, got Value) bool { return want.Up != nil && got.Up != nil && *want.Up == *got.Up },
	},
	KindRing: {
		validTarget: netdevTarget,
		validNew: func(t Target, v Value) error {
			if v.Ring == nil || (v.Ring.Rx == nil && v.Ring.RxMini == nil && v.Ring.RxJumbo == nil && v.Ring.Tx == nil) {
				return invalid("ring", t.Netdev, "no size given")
			}
			for _, p := range []*uint32{v.Ring.Rx, v.Ring.Tx} {
				if p != nil && *p == 0 {
					return invalid("ring", t.Netdev, "a ring of 0 descriptors")
				}
			}
			return nil
		},
		validOld: func(_ Target, v Value) error { return need(v.Ring != nil) },
		read: withNIC(func(ctx context.Context, h *nic.Handle, netdev string) (Value, error) {
			r, err := h.Ring(ctx, netdev)
			if err != nil {
				return Value{}, err
			}
			u := r.Update()
			return Value{Ring: &u}, nil
		}),
		write: toNIC(func(ctx context.Context, h *nic.Handle, netdev string, v Value) error {
			_, err := h.SetRing(ctx, netdev, *v.Ring)
			return err
		}),
		matches: func(want, got Value) bool {
			return want.Ring != nil && got.Ring != nil && sameCounts(
				[]*uint32{want.Ring.Rx, want.Ring.RxMini, want.Ring.RxJumbo, want.Ring.Tx},
				[]*uint32{got.Ring.Rx, got.Ring.RxMini, got.Ring.RxJumbo, got.Ring.Tx})
		},
	},
	KindChannels: {
		validTarget: netdevTarget,
		validNew: func(t Target, v Value) error {
			u := v.Channels
			if u == nil || (u.Rx == nil && u.Tx == nil && u.Other == nil && u.Combined == nil) {
				return invalid("channels", t.Netdev, "no count given")
			}
			return nil
		},
		validOld: func(_ Target, v Value) error { return need(v.Channels != nil) },
		read: withNIC(func(ctx context.Context, h *nic.Handle, netdev string) (Value, error) {
			c, err := h.Channels(ctx, netdev)
			if err != nil {
				return Value{}, err
			}
			u := c.Update()
			return Value{Channels: &u}, nil
		}),
		write: toNIC(func(ctx context.Context, h *nic.Handle, netdev string, v Value) error {
			_, err := h.SetChannels(ctx, netdev, *v.Channels)
			return err
		}),
		matches: func(want, got Value) bool {
			return want.Channels != nil && got.Channels != nil && sameCounts(
				[]*uint32{want.Channels.Rx, want.Channels.Tx, want.Channels.Other, want.Channels.Combined},
				[]*uint32{got.Channels.Rx, got.Channels.Tx, got.Channels.Other, got.Channels.Combined})
		},
	},
	KindRXE: {
		validTarget: func(t Target) error { return ValidateRXEName(t.Link) },
		validNew:    validateRXEValue,
		validOld:    validateRXEValue,
		check: func(ctx context.Context, sys system, c Change, _ func() (irq.CPUList, error)) error {
			if !c.New.RXE.Present {
				return nil
			}
			_, err := sys.read(ctx, KindMTU, Target{Netns: c.Target.Netns, Netdev: c.New.RXE.Netdev})
			return err
		},
		restorable: func(t Target, cur Value) error {
			if cur.RXE != nil && cur.RXE.Present && cur.RXE.Netdev == "" {
				// rxe names a port's netdev only in the handle's namespace:
				// without it the link could not be re-created.
				return invalid("rxe link", t.Link, "its netdev is not in netns %q, so it could not be restored", t.Netns)
			}
			return nil
		},
		read: func(ctx context.Context, s *liveSystem, t Target) (Value, error) {
			h, err := s.rxe(t.Netns)
			if err != nil {
				return Value{}, err
			}
			l, err := h.LinkByName(ctx, t.Link)
			if errors.Is(err, rxe.ErrDeviceNotFound) {
				return Value{RXE: &RXELink{}}, nil
			}
			if err != nil {
				return Value{}, err
			}
			return Value{RXE: &RXELink{Present: true, Netdev: l.Netdev()}}, nil
		},
		write: func(ctx context.Context, s *liveSystem, t Target, v Value) error { return s.writeRXE(ctx, t, *v.RXE) },
		matches: func(want, got Value) bool {
			return want.RXE != nil && got.RXE != nil && want.RXE.Present == got.RXE.Present &&
				(!want.RXE.Present || want.RXE.Netdev == got.RXE.Netdev)
		},
	},
	KindAffinity: {
		target:      func(t Target) string { return "IRQ " + strconv.Itoa(t.IRQ) },
		validTarget: func(t Target) error { return ValidateIRQ(t.IRQ) },
		validNew: func(t Target, v Value) error {
			if len(v.CPUs) == 0 {
				return invalid("cpus", "", "empty list for IRQ %d", t.IRQ)
			}
			return nil
		},
		validOld: func(_ Target, v Value) error { return need(len(v.CPUs) > 0) },
		check: func(_ context.Context, sys system, c Change, online func() (irq.CPUList, error)) error {
			on, err := online()
			if err != nil {
				return err
			}
			if err := ValidateCPUs(c.New.CPUs, on); err != nil {
				return err
			}
			return sys.irqExists(c.Target.IRQ)
		},
		read: func(_ context.Context, s *liveSystem, t Target) (Value, error) {
			a, err := s.irq.Affinity(t.IRQ)
			if err != nil {
				return Value{}, err
			}
			return Value{CPUs: a.CPUs}, nil
		},
		write: func(_ context.Context, s *liveSystem, t Target, v Value) error {
			_, err := s.irq.SetAffinity(t.IRQ, v.CPUs)
			return err
		},
		matches: func(want, got Value) bool { return want.CPUs.Equal(got.CPUs) },
	},
	KindGovernor: {
		target: func(t Target) string { return "CPU " + strconv.Itoa(t.CPU) },
		validTarget: func(t Target) error {
			if t.CPU < 0 {
				return invalid("cpu", strconv.Itoa(t.CPU), "negative")
			}
			return nil
		},
		validNew: validGovernor,
		validOld: validGovernor,
		read: func(_ context.Context, s *liveSystem, t Target) (Value, error) {
			g, err := s.irq.Governor(t.CPU)
			return Value{Governor: g}, err
		},
		write: func(_ context.Context, s *liveSystem, t Target, v Value) error {
			_, err := s.irq.SetGovernors([]irq.CPUGovernor{{CPU: t.CPU, Governor: v.Governor}})
			return err
		},
		matches: func(want, got Value) bool { return want.Governor == got.Governor },
	},
	KindSysctl: {
		validTarget: func(t Target) error { return validateSysctlTarget(t.Key) },
		validNew:    validSysctl,
		validOld:    validSysctl,
		read: func(_ context.Context, s *liveSystem, t Target) (Value, error) {
			v, err := readSysctl(s.root.ProcDir(), t.Netns, t.Key)
			return Value{Sysctl: &v}, err
		},
		write: func(_ context.Context, s *liveSystem, t Target, v Value) error {
			return writeSysctl(s.root.ProcDir(), t.Netns, t.Key, *v.Sysctl)
		},
		matches: func(want, got Value) bool {
			return want.Sysctl != nil && got.Sysctl != nil && foldBlanks(*want.Sysctl) == *got.Sysctl
		},
	},
	KindFeatures: {
		validTarget: netdevTarget,
		validNew:    validFeatures,
		validOld:    validFeatures,
		read:        func(ctx context.Context, s *liveSystem, t Target) (Value, error) { return s.readFeatures(ctx, t) },
		write: func(ctx context.Context, s *liveSystem, t Target, v Value) error {
			return s.writeFeatures(ctx, t, v.Features)
		},
		matches: func(want, got Value) bool {
			for name, on := range want.Features {
				if g, ok := got.Features[name]; !ok || g != on {
					return false
				}
			}
			return want.Features != nil
		},
		narrow: func(old, new Value) Value {
			if old.Features != nil {
				n := map[string]bool{}
				for name := range new.Features {
					if v, ok := old.Features[name]; ok {
						n[name] = v
					}
				}
				old.Features = n
			}
			return old
		},
	},
	KindCoalesce: {
		validTarget: netdevTarget,
		validNew: func(t Target, v Value) error {
			if v.Coalesce == nil || v.Coalesce.Empty() {
				return invalid("coalesce", t.Netdev, "no parameter given")
			}
			return nil
		},
		validOld: func(_ Target, v Value) error { return need(v.Coalesce != nil && !v.Coalesce.Empty()) },
		read: withNIC(func(ctx context.Context, h *nic.Handle, netdev string) (Value, error) {
			c, err := h.Coalesce(ctx, netdev)
			if err != nil {
				return Value{}, err
			}
			u := c.Update()
			return Value{Coalesce: &u}, nil
		}),
		write: toNIC(func(ctx context.Context, h *nic.Handle, netdev string, v Value) error {
			_, err := h.SetCoalesce(ctx, netdev, *v.Coalesce)
			return err
		}),
		matches: matchesCoalesce,
	},
	KindIRQBalance: {
		target: func(Target) string { return "irqbalance" },
		validNew: func(_ Target, v Value) error {
			if v.IRQBalance == nil {
				return invalid("irqbalance", "", "no state given")
			}
			return nil
		},
		validOld: func(_ Target, v Value) error { return need(v.IRQBalance != nil) },
		read:     func(_ context.Context, s *liveSystem, _ Target) (Value, error) { return readIRQBalance(s.irq) },
		write: func(_ context.Context, s *liveSystem, _ Target, v Value) error {
			return writeIRQBalance(s.irq, *v.IRQBalance)
		},
		// Paused: every daemon stopped. Resumed: none of the journaled
		// ones is (or they are gone).
		matches: func(want, got Value) bool {
			return want.IRQBalance != nil && got.IRQBalance != nil &&
				(want.IRQBalance.Paused == got.IRQBalance.Paused || (!want.IRQBalance.Paused && len(got.IRQBalance.PIDs) == 0))
		},
	},
	KindNetns: topologyKind(KindNetns),
	KindVeth:  topologyKind(KindVeth),
	KindProcess: {
		target:      func(t Target) string { return "process " + strconv.Itoa(t.PID) },
		validTarget: validateProcessTarget,
		validOld:    func(_ Target, v Value) error { return need(v.Process != nil && !v.Process.Running) },
		read:        func(_ context.Context, _ *liveSystem, t Target) (Value, error) { return readProcess(t) },
		write:       func(ctx context.Context, _ *liveSystem, t Target, v Value) error { return writeProcess(ctx, t, v) },
		matches:     matchesProcess,
	},
}

// topologyKind is the entry of KindNetns or KindVeth (topology.go).
func topologyKind(k Kind) *kindDef {
	d := &kindDef{
		validTarget: func(t Target) error { return validateTopologyTarget(k, t) },
		validNew:    func(t Target, v Value) error { return validateTopology(k, t, v) },
		validOld:    func(t Target, v Value) error { return validateTopology(k, t, v) },
		read:        func(ctx context.Context, _ *liveSystem, t Target) (Value, error) { return readTopology(ctx, k, t) },
		write:       func(ctx context.Context, _ *liveSystem, t Target, v Value) error { return writeTopology(ctx, k, t, v) },
		matches:     func(want, got Value) bool { return matchesTopology(k, want, got) },
	}
	if k == KindNetns {
		d.target = func(t Target) string { return "netns " + t.Netns }
	}
	return d
}

func netdevTarget(t Target) error { return ValidateNetdev(t.Netdev) }

func validGovernor(_ Target, v Value) error { return ValidateGovernor(v.Governor) }

func validSysctl(t Target, v Value) error { return validateSysctlValue(t.Key, v.Sysctl) }

func validFeatures(t Target, v Value) error { return validateFeatures(t.Netdev, v.Features) }

// withNIC and toNIC read and write a netdev through the nic Handle of the
// target's namespace.
func withNIC(f func(context.Context, *nic.Handle, string) (Value, error)) func(context.Context, *liveSystem, Target) (Value, error) {
	return func(ctx context.Context, s *liveSystem, t Target) (Value, error) {
		h, err := s.nic(t.Netns)
		if err != nil {
			return Value{}, err
		}
		return f(ctx, h, t.Netdev)
	}
}

func toNIC(f func(context.Context, *nic.Handle, string, Value) error) func(context.Context, *liveSystem, Target, Value) error {
	return func(ctx context.Context, s *liveSystem, t Target, v Value) error {
		h, err := s.nic(t.Netns)
		if err != nil {
			return err
		}
		return f(ctx, h, t.Netdev, v)
	}
}

// matchesCoalesce: the parameters want sets, read back from got.
func matchesCoalesce(want, got Value) bool {
	if want.Coalesce == nil || got.Coalesce == nil {
		return false
	}
	var cur nic.Coalesce
	g := got.Coalesce
	for _, f := range []struct {
		dst *uint32
		src *uint32
	}{{&cur.RxUsecs, g.RxUsecs}, {&cur.RxFrames, g.RxFrames}, {&cur.TxUsecs, g.TxUsecs}, {&cur.TxFrames, g.TxFrames}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if g.AdaptiveRx != nil {
		cur.AdaptiveRx = *g.AdaptiveRx
	}
	if g.AdaptiveTx != nil {
		cur.AdaptiveTx = *g.AdaptiveTx
	}
	return want.Coalesce.Matches(cur)
}

func sameCounts(want, got []*uint32) bool {
	for i, w := range want {
		if w != nil && (got[i] == nil || *got[i] != *w) {
			return false
		}
	}
	return true
}
