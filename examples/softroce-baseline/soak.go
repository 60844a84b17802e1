package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// soakInterval is the -D of the soak: one row a second.
const soakInterval = time.Second

// soak runs ib_send_bw --run_infinitely -D 1 for c.Soak and makes the round
// "ib_send_bw_soak" of its interim rows (interim_bw_avg over time, drawn on
// report.html), with both ends' fingerprint, its archive files and a line
// in the report. A stall in the middle of a long run, which the
// baseline's averages hide, shows as rows of 0.00.
//
// Similar to: ib_send_bw --run_infinitely -D 1 ... & sleep 600; kill -INT %1
func soak(ctx context.Context, c config, sides *runbook.Sides, w io.Writer) (report.Round, []report.ArchiveFile, error) {
	step := c.step(perftest.SendBW, nil, nil)
	step.Options.Iterations, step.Options.Duration = 0, soakInterval
	opts := sides.PerftestOptions(step.Options)
	note := ""
	if !opts.NoFreqCheck {
		if note = workflow.NoCPUFreq(ctx, sides); note != "" {
			opts.NoFreqCheck = true
		}
	}
	start := time.Now()
	sr, err := perftest.RunSoak(ctx, sides.Far.Runner(), sides.Near.Runner(), sides.FarRXE.Addr, opts, c.Soak, nil)
	round := report.Round{Name: "ib_send_bw_soak", Start: start, DurationSec: time.Since(start).Seconds()}
	round.SetParam(report.ParamMode, string(sides.Mode))
	round.SetParam(report.ParamNetdevMTU, fmt.Sprint(sides.NearRXE.NetdevMTU))
	round.SetParam(report.ParamSoakSec, fmt.Sprint(c.Soak.Seconds()))
	if note != "" {
		round.Warnings = append(round.Warnings, note)
	}
	var files []report.ArchiveFile
	if sr != nil && sr.PairResult != nil {
		pairs := []*perftest.PairResult{sr.PairResult}
		files = workflow.PairFiles(&round, pairs)
		round.Fingerprint, _ = workflow.Fingerprint(ctx, sides, runbook.Pairs{Pairs: pairs}, opts)
	}
	if err != nil {
		return round, files, fmt.Errorf("soak: %w", err)
	}
	if err := round.AddPerftestInterims(0, sr.ClientInterims); err != nil {
		return round, files, err
	}
	if sr.AfterStop != nil {
		round.Warnings = append(round.Warnings, "after the stop: "+sr.AfterStop.Error())
	}
	stalls := 0
	for _, in := range sr.ClientInterims {
		if in.Row.BWAvgGbps == 0 {
			stalls++
		}
	}
	fmt.Fprintf(w, "## ib_send_bw --run_infinitely for %v\n\n%d intervals of %v, %d of them at 0.00 (a stall).\n\n",
		c.Soak, len(sr.ClientInterims), soakInterval, stalls)
	return round, files, nil
}

// soakSteps is the soak's share of the progress steps.
func soakSteps(c config) int {
	if c.Soak > 0 {
		return 1
	}
	return 0
}
