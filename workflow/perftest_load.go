package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// loadEnds are the two ends' netdevs, whose counters a step with CPULoad
// compares before and after its runs. In loopback there is one end, read
// once.
type loadEnds struct {
	sides     *runbook.Sides
	near, far runbook.Netdev
	aer       []report.Finding // the NICs' PCIe AER growth, from hot
}

// endCounters are the counters of both ends at one moment, with the error
// of each read (a step goes on without them).
type endCounters struct {
	near, far       runbook.Counters
	nearErr, farErr error
}

// newLoadEnds describes both ends' netdevs, for runbook.Counters.Sub.
func newLoadEnds(ctx context.Context, sides *runbook.Sides) (*loadEnds, error) {
	e := &loadEnds{sides: sides}
	far := sides.Far
	if far == nil {
		far = sides.Near
	}
	var err error
	if e.far, err = far.Netdev(ctx, sides.FarNetdev); err != nil {
		return nil, fmt.Errorf("%s: %w", far.Name(), err)
	}
	e.near = e.far
	if sides.Mode != runbook.Loopback {
		if e.near, err = sides.Near.Netdev(ctx, sides.NearNetdev); err != nil {
			return nil, fmt.Errorf("%s: %w", sides.Near.Name(), err)
		}
	}
	return e, nil
}

// read takes both ends' counters.
func (e *loadEnds) read(ctx context.Context) endCounters {
	var c endCounters
	if e.sides.Mode == runbook.Loopback {
		c.far, c.farErr = e.sides.Near.Counters(ctx, e.sides.FarNetdev)
		c.near, c.nearErr = c.far, c.farErr
		return c
	}
	c.far, c.farErr = e.sides.Far.Counters(ctx, e.sides.FarNetdev)
	c.near, c.nearErr = e.sides.Near.Counters(ctx, e.sides.NearNetdev)
	return c
}

// hot finds each end's hot softirq core between two reads and adds the
// near end's per-CPU load to the round. What could not be read becomes a
// round warning and a nil core.
func (e *loadEnds) hot(r *report.Round, before, after endCounters) (near, far *irq.HotCore, loads []report.HostLoad) {
	load := func(end, host string, dev runbook.Netdev, b, a runbook.Counters, errs ...error) (*report.HostLoad, bool) {
		if err := errors.Join(errs...); err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s counters: %v", end, err))
		}
		if b.Load.Time.IsZero() || a.Load.Time.IsZero() {
			return nil, false
		}
		g, err := a.Sub(b, dev)
		if err != nil {
			// The NIC counters did not compare; the CPU load still does.
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s counters: %v", end, err))
			return &report.HostLoad{Host: host, Load: a.Load.Sub(b.Load), LocalCPUs: dev.LocalCPUs}, true
		}
		hl := g.HostLoad(host, dev) // with the threads that ran on each core
		if g.AER != nil {
			e.aer = append(e.aer, report.CheckAER(host+" "+dev.Snapshot.Netdev, *g.AER)...)
		}
		return &hl, true
	}
	nl, ok := load("near", e.sides.Near.Name(), e.near, before.near, after.near, before.nearErr, after.nearErr)
	if ok {
		h := nl.Load.Hot()
		near = &h
		if err := r.AddCPULoad(nl.Load); err != nil {
			r.Warnings = append(r.Warnings, "cpu load: "+err.Error())
		}
		loads = append(loads, *nl)
	}
	if e.sides.Mode == runbook.Loopback {
		return near, near, loads
	}
	if fl, ok := load("far", e.sides.Far.Name(), e.far, before.far, after.far, before.farErr, after.farErr); ok {
		h := fl.Load.Hot()
		far = &h
		loads = append(loads, *fl)
	}
	return near, far, loads
}
