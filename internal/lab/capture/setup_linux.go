package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"time"
)

// Poll intervals of the setup waits.
const (
	pollCommandEvery = 50 * time.Millisecond
	pollGIDEvery     = 10 * time.Millisecond
)

// ensure performs the phases (and what they require) that have not run yet. It returns the
// error of the first phase that failed, now or earlier.
func (r *runner) ensure(ctx context.Context, needs []Phase) error {
	for _, need := range needs {
		for _, p := range phaseOrder(need, r.opts.nicKind()) {
			if err := r.runPhase(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// runPhase performs phase p once and records it as the case "setup/<p>".
func (r *runner) runPhase(ctx context.Context, p Phase) error {
	if err, done := r.phases[p]; done {
		return err
	}
	sp, ok := setupPhase(p, r.opts.nicKind())
	if !ok {
		return fmt.Errorf("capture: unknown phase %q", p)
	}
	spec := Spec{Group: GroupSetup, Name: string(p), Tool: "ip", Note: sp.Note, Expect: ExpectOK}
	c, err := r.begin(ctx, spec)
	if err != nil {
		r.phases[p] = err
		return err
	}
	err = r.runSetupSteps(ctx, c, sp)
	if err == nil && p == PhaseRXE {
		err = r.findGID(ctx, c)
	}
	if err != nil {
		c.logf("phase failed: %v", err)
		err = fmt.Errorf("setup/%s failed: %w", p, err)
	}
	row := r.finish(c)
	if err != nil && row.Problem == "" {
		row.Outcome, row.Problem = OutcomeFailed, err.Error()
	}
	if row.Problem != "" && err == nil {
		err = errors.New(row.Problem)
	}
	r.summary.Rows = append(r.summary.Rows, row)
	fmt.Fprintf(r.opts.Progress, "setup/%s: %s (%.2fs) %s\n", p, row.Outcome, row.Seconds, row.Problem)
	r.phases[p] = err
	return err
}

// runSetupSteps runs the steps in order and stops at the first required one that fails.
// Every step that succeeded and has an Undo is queued for teardown.
func (r *runner) runSetupSteps(ctx context.Context, c *caseRun, sp SetupPhase) error {
	if sp.Phase == PhaseNetns && r.opts.nicKind() == NICVirtio && os.Getenv("ROCEKIT_LAB") != "1" {
		return fmt.Errorf("refusing to move %s and %s into namespaces outside the lab (ROCEKIT_LAB is not 1); use -veth-for-netperf", r.opts.NICA, r.opts.NICB)
	}
	for _, st := range sp.Steps {
		side := r.runSetupStep(ctx, c, st)
		c.add(side, !st.Optional)
		if side.OK() && st.Undo != nil {
			r.undo = append(r.undo, undoCommand(sp.Phase, st))
		}
		if !side.OK() && !st.Optional {
			return fmt.Errorf("step %s (%s) failed", st.Role, side.Command)
		}
	}
	return nil
}

// runSetupStep runs a step once, or, with Until, polls it until its stdout contains Until.
func (r *runner) runSetupStep(ctx context.Context, c *caseRun, st SetupStep) Side {
	if st.Until == "" {
		return r.runCommand(ctx, c.dir, st.Command)
	}
	deadline := time.Now().Add(r.scale(st.Timeout))
	ticker := time.NewTicker(pollCommandEvery)
	defer ticker.Stop()
	for polls := 1; ; polls++ {
		side := r.runCommand(ctx, c.dir, st.Command)
		out, _ := os.ReadFile(filepath.Join(c.dir, side.Stdout))
		if side.OK() && bytes.Contains(out, []byte(st.Until)) {
			c.logf("%s: stdout contains %q after %d polls", st.Role, st.Until, polls)
			return side
		}
		select {
		case <-ctx.Done():
			side.Error = "cancelled: " + context.Cause(ctx).Error()
			return side
		case <-ticker.C:
		}
		if time.Now().After(deadline) {
			side.Error = fmt.Sprintf("stdout did not contain %q within %s (%d polls)", st.Until, r.scale(st.Timeout), polls)
			return side
		}
	}
}

// findGID polls sysfs until rxe0 port 1 has a RoCE v2 GID for RXEAddr and keeps its index
// for the {gid} placeholder.
func (r *runner) findGID(ctx context.Context, c *caseRun) error {
	addr := netip.MustParseAddr(RXEAddr)
	sysfs := os.DirFS("/sys")
	start := time.Now()
	deadline := start.Add(r.scale(pollTimeout))
	ticker := time.NewTicker(pollGIDEvery)
	defer ticker.Stop()
	for {
		idx, err := RoCEv2GIDIndex(sysfs, RXEDevice, RXEPort, addr)
		if err == nil {
			r.values.GIDIndex = idx
			c.logf("RoCE v2 GID index of %s on %s port %d: %d (after %.3fs)", addr, RXEDevice, RXEPort, idx, time.Since(start).Seconds())
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-ticker.C:
		}
		if time.Now().After(deadline) {
			return err
		}
	}
}

// teardown runs the queued undo commands in reverse order and records them as the case
// "setup/teardown".
func (r *runner) teardown(ctx context.Context) {
	if len(r.undo) == 0 {
		return
	}
	spec := Spec{Group: GroupSetup, Name: "teardown", Tool: "ip", Expect: ExpectOK,
		Note: "undo of the setup phases in reverse order: links moved back, namespaces, rxe0 and veth pairs deleted"}
	c, err := r.begin(ctx, spec)
	if err != nil {
		r.summary.Rows = append(r.summary.Rows, Row{ID: spec.ID(), Expect: ExpectOK, Outcome: OutcomeFailed, Problem: err.Error()})
		return
	}
	for i := len(r.undo) - 1; i >= 0; i-- {
		c.add(r.runCommand(ctx, c.dir, r.undo[i]), true)
	}
	r.undo = nil
	row := r.finish(c)
	fmt.Fprintf(r.opts.Progress, "setup/teardown: %s (%.2fs) %s\n", row.Outcome, row.Seconds, row.Problem)
	r.summary.Rows = append(r.summary.Rows, row)
}
