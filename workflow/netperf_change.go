package workflow

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/tune"
)

// Verifier is a side that can read back its journaled changes
// (tune.Session.Verify): runbook.Local is one. A side without it is not
// checked, and the round says so.
type Verifier interface {
	Verify(ctx context.Context) ([]tune.Drift, error)
}

// IRQBalancePauser is a side that can pause irqbalance, journaled (its
// Restore resumes it): runbook.Local is one.
type IRQBalancePauser interface {
	// PauseIRQBalance returns the PIDs it paused (none: none ran).
	PauseIRQBalance(ctx context.Context) ([]int, error)
}

// RuleSettingDrifted is the finding of a journaled setting that no longer
// holds at a round's start (irqbalance moved an IRQ back, a driver reset
// the MTU): the round does not run in the state it says.
const RuleSettingDrifted = "setting_drifted"

// udpEnd is one side and its netdev.
type udpEnd struct {
	side   runbook.Side
	netdev string
}

// ends are both sides; once when they share a kernel (a namespace here),
// for host-wide settings: sysctls of net.core, irqbalance.
func (t *udpTuner) ends(hostWide bool) []udpEnd {
	e := []udpEnd{{t.sides.Near, t.sides.NearNetdev}}
	if !hostWide || t.sides.Mode == runbook.TwoHosts {
		e = append(e, udpEnd{t.sides.Far, t.sides.FarNetdev})
	}
	return e
}

// apply makes the round's changes that earlier rounds have not made.
func (t *udpTuner) apply(ctx context.Context, s UDPRound, opts netperf.Options, res *UDPRoundResult) error {
	if s.Limits && max(opts.RemoteSocketBuffer, opts.LocalSocketBuffer) > t.limit {
		if err := t.raiseLimits(ctx, max(opts.RemoteSocketBuffer, opts.LocalSocketBuffer), res); err != nil {
			return err
		}
	}
	if s.MTU > 0 && t.mtu != s.MTU {
		if err := t.sides.SetMTU(ctx, s.MTU); err != nil {
			return fmt.Errorf("MTU %d: %w", s.MTU, err)
		}
		t.mtu = s.MTU
		res.Changes = append(res.Changes, fmt.Sprintf("MTU %d on %s (%s) and %s (%s)", s.MTU,
			t.sides.NearNetdev, t.sides.Near.Name(), t.sides.FarNetdev, t.sides.Far.Name()))
	}
	if !s.Spread || t.spread {
		return nil
	}
	// irqbalance first: it would move the spread IRQs back.
	for _, e := range t.ends(true) {
		p, ok := e.side.(IRQBalancePauser)
		if !ok {
			res.Notes = append(res.Notes, fmt.Sprintf("irqbalance on %s not paused: that side cannot pause it; a running irqbalance may move the spread IRQs back", e.side.Name()))
			continue
		}
		pids, err := p.PauseIRQBalance(ctx)
		if errors.Is(err, runbook.ErrPeerNoOperation) {
			res.Notes = append(res.Notes, fmt.Sprintf("irqbalance on %s not paused: its agent is older than pause-irqbalance; a running irqbalance may move the spread IRQs back", e.side.Name()))
			continue
		}
		if err != nil {
			return fmt.Errorf("pause irqbalance on %s: %w", e.side.Name(), err)
		}
		if len(pids) == 0 {
			res.Notes = append(res.Notes, "irqbalance not running on "+e.side.Name()+": nothing to pause")
			continue
		}
		res.Changes = append(res.Changes, fmt.Sprintf("irqbalance paused on %s (PIDs %v; journaled, resumed when the run ends)", e.side.Name(), pids))
	}
	for _, e := range t.ends(false) {
		sp, err := e.side.SpreadIRQs(ctx, e.netdev)
		if err != nil {
			return fmt.Errorf("spread the IRQs of %s (%s): %w", e.netdev, e.side.Name(), err)
		}
		res.Changes = append(res.Changes, udpSpreadText(e.netdev, e.side.Name(), sp))
		res.Notes = append(res.Notes, warnjson.Strings(sp.Warnings)...)
		file, err := report.JSONFile("changes/spread-"+t.role(e.side)+".json", sp)
		if err != nil {
			return err
		}
		res.Files = append(res.Files, file)
		g, err := e.side.SetGovernor(ctx, t.o.Governor)
		if err != nil {
			return fmt.Errorf("governor %s on %s: %w", t.o.Governor, e.side.Name(), err)
		}
		if g.Set {
			res.Changes = append(res.Changes, fmt.Sprintf("governor %s on %s (was %s)", t.o.Governor, e.side.Name(), udpOrNone(report.GovernorSummary(g.Replaced))))
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("governor %s not set on %s: %s", t.o.Governor, e.side.Name(), g.Reason))
		}
		if e.side == t.sides.Far {
			t.governor = &g
		}
	}
	t.spread = true
	return nil
}

// raiseLimits sets net.core.rmem_max and wmem_max to want where they are
// lower, on both ends (once when both ends share a kernel: the limits are
// the host's, not a namespace's).
func (t *udpTuner) raiseLimits(ctx context.Context, want int, res *UDPRoundResult) error {
	for i, e := range t.ends(true) {
		cur := map[string]string{}
		if i < len(t.o.Preflight) && t.o.Preflight[i].Sysctls != nil {
			cur = t.o.Preflight[i].Sysctls
		}
		for _, key := range []string{"net.core.rmem_max", "net.core.wmem_max"} {
			if v, err := strconv.Atoi(cur[key]); err == nil && v >= want {
				continue
			}
			if err := e.side.SetSysctl(ctx, key, strconv.Itoa(want)); err != nil {
				return fmt.Errorf("%s on %s: %w", key, e.side.Name(), err)
			}
			res.Changes = append(res.Changes, fmt.Sprintf("%s %d on %s (was %s)", key, want, e.side.Name(), udpOrNone(cur[key])))
			if i < len(t.o.Preflight) && t.o.Preflight[i].Sysctls != nil {
				t.o.Preflight[i].Sysctls[key] = strconv.Itoa(want)
			}
		}
	}
	t.limit = want
	return nil
}

// verify reads back both ends' journaled changes before the round: a
// setting that did not hold is a finding, so that nobody reads the round
// as run in a state it was not.
func (t *udpTuner) verify(ctx context.Context, res *UDPRoundResult) {
	for _, e := range t.ends(false) {
		v, ok := e.side.(Verifier)
		if !ok {
			res.Notes = append(res.Notes, fmt.Sprintf("settings of %s not read back (tune Verify): that side cannot", e.side.Name()))
			continue
		}
		drifts, err := v.Verify(ctx)
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("settings of %s not read back: %v", e.side.Name(), err))
			continue
		}
		for _, d := range drifts {
			res.Drifts = append(res.Drifts, e.side.Name()+": "+d.String())
		}
	}
	if len(res.Drifts) > 0 {
		res.Round.Findings = append(res.Round.Findings, report.Finding{Rule: RuleSettingDrifted, Severity: report.SeverityWarning,
			Summary: fmt.Sprintf("%d setting(s) did not hold before round %s: %s", len(res.Drifts), res.Spec.Letter, strings.Join(res.Drifts, "; ")),
			Action:  "find what changed them (irqbalance, NetworkManager, tuned, a driver reset) and stop it; the round ran in another state than it says"})
	}
}

// describe records both netdevs and the far host at the round start.
func (t *udpTuner) describe(ctx context.Context, res *UDPRoundResult) error {
	var err error
	if res.Near, err = t.sides.Near.Netdev(ctx, t.sides.NearNetdev); err != nil {
		return fmt.Errorf("%s (%s): %w", t.sides.NearNetdev, t.sides.Near.Name(), err)
	}
	if res.Far, err = t.sides.Far.Netdev(ctx, t.sides.FarNetdev); err != nil {
		return fmt.Errorf("%s (%s): %w", t.sides.FarNetdev, t.sides.Far.Name(), err)
	}
	if h, err := t.sides.Far.Host(ctx); err == nil {
		res.FarHost = &h
	} else {
		res.Notes = append(res.Notes, fmt.Sprintf("governors and irqbalance of %s not read: %v", t.sides.Far.Name(), err))
	}
	if t.o.Preflight == nil && t.kernels == nil {
		// Both ends' kernels for the record, once; the preflight has them
		// when it ran.
		t.kernels = []report.HostFacts{}
		for _, e := range []struct {
			role string
			side runbook.Side
		}{{"near", t.sides.Near}, {"far", t.sides.Far}} {
			if h, err := e.side.Host(ctx); err == nil {
				t.kernels = append(t.kernels, report.HostFacts{Role: e.role, Kernel: h.Kernel})
			}
		}
	}
	for _, d := range []struct {
		name string
		info runbook.Netdev
	}{{"near", res.Near}, {"far", res.Far}} {
		f, err := report.JSONFile("snapshots/netdev-"+d.name+".json", d.info)
		if err != nil {
			return err
		}
		res.Files = append(res.Files, f)
	}
	return nil
}

// role names a side for file names: "near" (the sender) or "far".
func (t *udpTuner) role(s runbook.Side) string {
	if s == t.sides.Far {
		return "far"
	}
	return "near"
}

// udpSpreadText says what SpreadIRQs did: "IRQs of eth0 (local) spread by
// node: 25→0, 26→1; left alone: 24 (control vector)".
func udpSpreadText(netdev, where string, sp runbook.Spread) string {
	var a []string
	for _, x := range sp.Assign {
		a = append(a, fmt.Sprintf("%d→%s", x.IRQ, x.CPUs))
	}
	t := fmt.Sprintf("IRQs of %s (%s) spread (%s): %s", netdev, where, sp.Policy, udpOrNone(strings.Join(a, ", ")))
	if len(sp.Skipped) > 0 {
		var s []string
		for _, x := range sp.Skipped {
			s = append(s, fmt.Sprintf("%d (%s)", x.IRQ, x.Reason))
		}
		t += "; left alone: " + strings.Join(s, ", ")
	}
	return t
}

// udpOrNone gives "none" for an empty string.
func udpOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
