package runbook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rxe"
)

// PerftestOptions completes opts for a pair whose server runs on the far
// side and client on the near one: each End's device and the GID index
// PrepareRXE picked on it (the caller's IB port, CPUs and Extra stay). In
// loopback both are the same.
func PerftestOptions(opts perftest.Options, far, near RXE) perftest.Options {
	opts.Server.Device, opts.Server.GIDIndex = far.Device, new(far.GID.Entry.Index)
	opts.Client.Device, opts.Client.GIDIndex = near.Device, new(near.GID.Entry.Index)
	return opts
}

// PerftestOptions is PerftestOptions for the RXE links PrepareRXE kept
// on s: server on the far end, client on the near one.
func (s *Sides) PerftestOptions(opts perftest.Options) perftest.Options {
	if s == nil {
		return PerftestOptions(opts, RXE{}, RXE{})
	}
	return PerftestOptions(opts, s.FarRXE, s.NearRXE)
}

// Pairs are the repeats of one perftest step.
type Pairs struct {
	Pairs   []*perftest.PairResult
	Results []*perftest.Result // the clients' results, in run order
	// Failures name the runs that ended in a completion error: perftest
	// ran, and its output is kept in Pairs (rdma_rxe on Debian trixie's
	// 6.12 kernel sometimes fails a send with several QPs: "Failed status
	// 11" at the client, 2 at the server).
	Failures []string
	// Counters are both ends' RDMA port counter deltas over each run, in
	// run order (rxe: retransmissions, duplicate and out-of-sequence
	// requests, ...): the evidence beside a failed or slow run.
	Counters []PairCounters
	// Voided name the attempts that ran again because perftest's clock
	// sampling failed and voided their numbers (perftest.Result.ClockVoid).
	Voided []string
	// Stopped is the pair whose error stopped the runs (run
	// len(Pairs)+1); nil when none did, or when it never started.
	Stopped *perftest.PairResult
	// NearCPU is this process's own CPU time (SelfCPU) and FarCPU the far
	// agents' (PeerAgentCPU) over the runs, each from the pair's start to
	// its end (the counters read around it are outside): what rocekit cost
	// the two hosts while the tools ran (issue 26). Process-wide: pairs run at
	// once in one process count each other's.
	NearCPU, FarCPU time.Duration
}

// SelfCPUSec is NearCPU and FarCPU by side name, in seconds, for
// report.Round.SelfCPUSec (one entry when both sides are one host).
func (p Pairs) SelfCPUSec(sides *Sides) map[string]float64 {
	near, far, err := sides.ends()
	if err != nil {
		return nil
	}
	m := map[string]float64{near.Name(): p.NearCPU.Seconds()}
	m[far.Name()] += p.FarCPU.Seconds()
	return m
}

// ToolSec is the wall time of every pair that ran (each from the server's
// start to both sides' end), in seconds: report.Round.ToolSec.
func (p Pairs) ToolSec() float64 {
	var d float64
	for _, pr := range p.Pairs {
		if pr != nil {
			d += pr.Elapsed.Seconds()
		}
	}
	return d
}

// PairCounters are the RDMA port counters of one run's two ends.
type PairCounters struct {
	Run    int                   `json:"run"` // 1-based
	Server rxe.PortCountersDelta `json:"server"`
	Client rxe.PortCountersDelta `json:"client"`
	// Failure is the run's completion error, "" when it passed.
	Failure string `json:"failure,omitempty"`
	// Warnings say what could not be read (a counter file, a device).
	// JSON has their messages.
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// Findings judge each run's RDMA port counters with
// report.CheckRetransmissions (the client of ib_send_bw is the
// requester), label naming the step ("8 QPs"); qpTimeout is perftest's -u
// (0: its default).
func (ps Pairs) Findings(label string, qpTimeout int) []report.Finding {
	var runs []report.RDMARun
	for _, c := range ps.Counters {
		if len(c.Warnings) > 0 {
			continue
		}
		runs = append(runs, report.RDMARun{Label: fmt.Sprintf("%s run %d", label, c.Run), Failed: c.Failure != "", Failure: c.Failure,
			QPTimeout: qpTimeout, Requester: c.Client, Responder: c.Server})
	}
	return report.CheckRetransmissions(runs)
}

// CounterFiles are the runs' RDMA counter deltas for a round's archive,
// counters/N.json.
func (ps Pairs) CounterFiles() ([]report.ArchiveFile, error) {
	var files []report.ArchiveFile
	for _, c := range ps.Counters {
		f, err := report.JSONFile(fmt.Sprintf("counters/%d.json", c.Run), c)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// RepeatPair runs count pairs, server on the far end and client on the near
// one, each with a fresh pair, announcing each on prog (nil: silent) as
// "LABEL run N of COUNT". A run that ends in a completion error is kept
// and named in Failures; a run whose numbers perftest voided (a failed
// clock sampling) runs again, up to twice, named in Voided; any other
// error stops, and the pair that failed is in Pairs.Stopped (its outputs
// are what both sides printed).
func RepeatPair(ctx context.Context, sides *Sides, far RXE, opts perftest.Options, count int, prog Progress, label string) (Pairs, error) {
	var ps Pairs
	nearSide, farSide, err := sides.ends()
	if err != nil {
		return ps, err
	}
	farDev, nearDev := opts.Server.Device, opts.Client.Device
	for i := range count {
		step(prog, "%s run %d of %d", label, i+1, count)
		before := readPairCounters(ctx, nearSide, farSide, farDev, nearDev)
		// Own CPU while the pair runs: the counters read around it are
		// not in it (they are not while a tool runs).
		cpu0, agent0 := SelfCPU(), PeerAgentCPU()
		p, err := perftest.RunPair(ctx, farSide.Runner(), nearSide.Runner(), far.Addr, opts)
		for retry := 1; retry <= clockRetries && err == nil && p.Client.Result.ClockVoid(); retry++ {
			ps.Voided = append(ps.Voided, fmt.Sprintf("run %d attempt %d: perftest's clock sampling failed, its numbers are void; ran again", i+1, retry))
			p, err = perftest.RunPair(ctx, farSide.Runner(), nearSide.Runner(), far.Addr, opts)
		}
		ps.NearCPU += SelfCPU() - cpu0
		ps.FarCPU += PeerAgentCPU() - agent0
		ps.Counters = append(ps.Counters, pairCounterDeltas(i+1, before, readPairCounters(ctx, nearSide, farSide, farDev, nearDev)))
		if err != nil && !runFailed(ctx, err) {
			ps.Stopped = p
			return ps, fmt.Errorf("%s run %d: %w", label, i+1, err)
		}
		if err != nil {
			ps.Failures = append(ps.Failures, fmt.Sprintf("run %d: %v", i+1, err))
			ps.Counters[len(ps.Counters)-1].Failure = err.Error()
		}
		ps.Pairs = append(ps.Pairs, p)
		ps.Results = append(ps.Results, p.Client.Result)
	}
	return ps, nil
}

// clockRetries is how often a run whose numbers perftest voided
// (Result.ClockVoid) runs again.
const clockRetries = 2

// runFailed says whether a pair that failed is a run to record rather
// than a reason to stop: perftest ran and reported a completion error. A
// cancelled run, or a pair that could not start, stops.
func runFailed(ctx context.Context, err error) bool {
	var pe *perftest.PairError
	return ctx.Err() == nil && errors.As(err, &pe) && pe.Failure != nil && pe.Failure.Kind == perftest.KindCompletion
}

// pairCounters are both ends' counters at one moment.
type pairCounters struct {
	server, client rxe.PortCounters
	errs           []error
}

func readPairCounters(ctx context.Context, near, far Side, farDev, nearDev string) pairCounters {
	var c pairCounters
	var err error
	if c.server, err = far.PortCounters(ctx, farDev); err != nil {
		c.errs = append(c.errs, fmt.Errorf("%s %s: %w", far.Name(), farDev, err))
	}
	if c.client, err = near.PortCounters(ctx, nearDev); err != nil {
		c.errs = append(c.errs, fmt.Errorf("%s %s: %w", near.Name(), nearDev, err))
	}
	return c
}

func pairCounterDeltas(run int, before, after pairCounters) PairCounters {
	pc := PairCounters{Run: run}
	pc.Warnings = append(pc.Warnings, before.errs...)
	pc.Warnings = append(pc.Warnings, after.errs...)
	if len(pc.Warnings) > 0 {
		return pc
	}
	var err error
	if pc.Server, err = after.server.Sub(before.server); err != nil {
		pc.Warnings = append(pc.Warnings, err)
	}
	if pc.Client, err = after.client.Sub(before.client); err != nil {
		pc.Warnings = append(pc.Warnings, err)
	}
	return pc
}
