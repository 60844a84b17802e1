package workflow

import (
	"context"
	"errors"
	"fmt"
	"github.com/rocekit/rocekit/bottleneck"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// FailurePolicy is what a step does when every one of its runs failed
// (completion errors: perftest ran, no repeat gave numbers). A run that
// cannot start, or a cancelled one, always stops the step with its error.
type FailurePolicy int

// The policies. The zero value is Continue.
const (
	// Continue makes no round; the result carries the critical finding
	// (report.RuleRunFailed) and the runs' counter findings, both sides'
	// outputs are kept under Out/failed/, and RunPerftest returns nil so
	// the caller goes on with its next step (softroce-baseline,
	// qp-scaling).
	Continue FailurePolicy = iota
	// Stop is Continue that also returns an error wrapping
	// ErrAllRunsFailed, for a sequence whose later steps compare with
	// this one (mtu-sweep: every MTU against the lowest).
	Stop
	// Skip makes no round and no finding: the step is left out silently,
	// its outputs still kept under Out/failed/.
	Skip
)

// ErrAllRunsFailed means every run of a step ended in a completion error
// (Stop).
var ErrAllRunsFailed = errors.New("workflow: every run failed")

// PerftestStep is one perftest step of a runbook: Count repeats of one
// test between the far end (server) and the near one (client) of Sides
// that PrepareRXE prepared.
type PerftestStep struct {
	// Name is the round's name ("ib_send_bw_mtu9000"); "" is the
	// program's.
	Name string
	// Label names the step in progress lines, findings and failed/
	// folders ("MTU 9000"); "" is Name.
	Label string
	// Options are perftest's. Each End's Device and GIDIndex are filled
	// from the Sides' RXE links; each End's CPUs pin it (taskset);
	// NoFreqCheck (-F) silences perftest's CPU-frequency warning, so
	// leave it false unless the hosts cannot help it.
	Options perftest.Options
	// Count is how many runs, each with a fresh pair (0: 1).
	Count int
	// Params are the caller's parameters of the round, as data
	// ("qps"="8"), set after the step's own (mode, netdev_mtu, governor,
	// server_cpus, client_cpus).
	Params []report.Param
	// Governor, when set, is the cpufreq governor set on both ends
	// before the runs (journaled by each Side, undone by Restore).
	Governor string
	// OnFailure is what happens when every run failed.
	OnFailure FailurePolicy
	// Out is the folder of the round's archive (NAME.tar.gz) and of the
	// failed runs' outputs (failed/LABEL-N/); "" writes nothing.
	Out string
	// Store, when set, is compared with (Previous: the latest earlier
	// round of the same name, whatever changed) and appended to, after
	// the archive is written.
	Store *report.Store
	// Progress is told of each run; nil is silent.
	Progress runbook.Progress
	// Check adds the caller's own rules' findings to the round's (it may
	// read the round's metrics and parameters); nil adds none.
	Check func(*report.Round) []report.Finding
	// CPULoad reads both ends' counters (CPU load, interrupts, softirqs)
	// before and after the runs: the near end's per-CPU load goes into
	// the round, each end's hot core into the result, and both into the
	// bottleneck verdict.
	CPULoad bool
	// Remedies are added to the action of the findings of a rule ("run
	// again with -governor performance -server-cpus 2 -client-cpus 2"
	// for report.RuleJitter): a program names its own flags.
	Remedies map[string]string
	// Preflight, when set, runs before the governor and the runs; its
	// findings open the round's and an error stops the step. It is the
	// place for a soft-RoCE preflight of both ends.
	Preflight func(context.Context, *runbook.Sides) ([]report.Finding, error)
}

// PerftestResult is everything a step made.
type PerftestResult struct {
	// Round is the measured round with its fingerprint, bottleneck
	// verdict and findings; Measured is false when there is none (every
	// run failed).
	Round    report.Round
	Measured bool
	// Pairs are the runs as they ran: outputs, counters, failures.
	Pairs runbook.Pairs
	// Findings are the round's (Round.Findings) or, with no round, the
	// failure's.
	Findings []report.Finding
	// Previous is the store's latest earlier round of the same name and
	// Comparison the round against it; nil when there is none.
	Previous   *report.Round
	Comparison *report.Comparison
	// Archive is the archive's path ("" when Out is "").
	Archive string
	// Governors are what setting Governor did on each end (far first).
	Governors []runbook.GovernorResult
	// NearHot and FarHot are each end's busiest softirq core over the
	// runs (CPULoad); nil when not measured. In loopback they are one.
	NearHot, FarHot *irq.HotCore
}

// RunPerftest runs one perftest step on sides and returns all of it:
// the governor set on both ends when asked, Count runs, the round with its
// parameters, both ends' fingerprint (kernel, rdma-core and perftest
// versions, driver and firmware, the command lines as run), counters,
// bottleneck verdict and findings (report.Diagnose, the counters, the ends'
// versions compared, Check), the archive written, then the store compared
// with and appended to. The result is returned with the error, as far as
// it got.
//
// Similar to: ib_send_bw -d rxe0 -x 1 -n 10000 & ib_send_bw -d rxe0 -x 1 -n 10000 HOST (× Count), recorded.
func RunPerftest(ctx context.Context, sides *runbook.Sides, st PerftestStep) (*PerftestResult, error) {
	res := &PerftestResult{}
	if sides == nil || sides.Near == nil {
		return res, fmt.Errorf("%w: no near side", runbook.ErrInvalidSides)
	}
	if err := st.Options.Validate(); err != nil {
		return res, err
	}
	name, label, count := st.names()
	var pre []report.Finding
	var err error
	if st.Preflight != nil {
		fs, err := st.Preflight(ctx, sides)
		if err != nil {
			return res, fmt.Errorf("%s: preflight: %w", label, err)
		}
		pre = fs
	}
	if st.Governor != "" {
		gs, err := setGovernor(ctx, sides, st.Governor)
		res.Governors = gs
		if err != nil {
			return res, fmt.Errorf("%s: %w", label, err)
		}
	}
	opts := sides.PerftestOptions(st.Options)
	var freqNote string
	if !opts.NoFreqCheck {
		if freqNote = NoCPUFreq(ctx, sides); freqNote != "" {
			opts.NoFreqCheck = true
		}
	}
	var le *loadEnds
	var before endCounters
	if st.CPULoad {
		if le, err = newLoadEnds(ctx, sides); err != nil {
			return res, fmt.Errorf("%s: %w", label, err)
		}
		before = le.read(ctx)
	}
	start := time.Now()
	ps, err := runbook.RepeatPair(ctx, sides, sides.FarRXE, opts, count, st.Progress, label)
	res.Pairs = ps
	var after endCounters
	if le != nil {
		after = le.read(ctx)
	}
	if err != nil {
		if st.Out != "" {
			err = errors.Join(err, KeepFailedPair(st.Out, fmt.Sprintf("%s-%d", slug(label), len(ps.Pairs)+1), ps.Stopped))
		}
		return res, err
	}
	counters := ps.Findings(label, opts.QPTimeout)
	failed, someFailed := report.RunsFailed(label, count, ps.Failures)
	if someFailed && failed.Severity == report.SeverityCritical {
		res.Round.Name = name
		return res, st.allFailed(res, append(append(pre, failed), counters...), label)
	}
	round, err := report.FromPerftest(name, start, ps.Results...)
	if err != nil {
		return res, errors.Join(fmt.Errorf("%s: %w", label, err), st.keepFailed(label, ps))
	}
	round.DurationSec = time.Since(start).Seconds()
	round.ToolSec = ps.ToolSec()
	round.SelfCPUSec = ps.SelfCPUSec(sides)
	if freqNote != "" {
		round.Warnings = append(round.Warnings, freqNote)
	}
	st.setParams(&round, sides, opts)
	round.Warnings = append(append(round.Warnings, ps.Failures...), ps.Voided...)
	fp, ends := Fingerprint(ctx, sides, ps, opts)
	round.Fingerprint = fp
	es, err := sides.Ends(ctx)
	if err != nil {
		round.Warnings = append(round.Warnings, "ends: "+err.Error())
	}
	var loads []report.HostLoad
	if le != nil {
		res.NearHot, res.FarHot, loads = le.hot(&round, before, after)
	}
	round.Bottleneck = report.Bottleneck(report.BottleneckInput{Round: &round, Ends: es, Loads: loads})
	gid := sides.NearRXE.GID.Entry
	findings := append(pre, report.Diagnose(report.DiagnosisInput{Round: &round, GID: &gid})...)
	findings = append(findings, counters...)
	if someFailed {
		findings = append(findings, failed)
	}
	if len(ends) == 2 {
		findings = append(findings, report.CompareEnds(ends[0], ends[1])...)
	}
	findings = append(findings, busyCoreFindings(label, loads)...)
	if le != nil {
		findings = append(findings, le.aer...)
	}
	if st.Check != nil {
		findings = append(findings, st.Check(&round)...)
	}
	st.remedy(findings)
	report.SortFindings(findings)
	round.Findings, res.Findings = findings, findings
	res.Round, res.Measured = round, true
	return res, st.save(res)
}

// remedy adds the step's Remedies to its findings' actions.
func (st PerftestStep) remedy(fs []report.Finding) {
	for i := range fs {
		if r := st.Remedies[fs[i].Rule]; r != "" {
			if fs[i].Action == "" {
				fs[i].Action = r
			} else {
				fs[i].Action += "; " + r
			}
		}
	}
}

// busyCoreFindings judge both ends' busiest core on softirq, irq and
// system time with the threads that ran there (report.CheckBusyCore),
// naming the step.
func busyCoreFindings(label string, loads []report.HostLoad) []report.Finding {
	fs := report.CheckBusyCore(loads, bottleneck.Thresholds{})
	for i := range fs {
		fs[i].Summary = label + ": " + fs[i].Summary
	}
	return fs
}

// names are the step's round name, label and run count with defaults.
func (st PerftestStep) names() (name, label string, count int) {
	name, label, count = st.Name, st.Label, st.Count
	if name == "" {
		name = st.Options.Test.Program()
	}
	if label == "" {
		label = name
	}
	return name, label, max(count, 1)
}

// allFailed applies the failure policy to a step whose every run failed.
func (st PerftestStep) allFailed(res *PerftestResult, fs []report.Finding, label string) error {
	err := st.keepFailed(label, res.Pairs)
	switch st.OnFailure {
	case Skip:
		return err
	case Stop:
		err = errors.Join(fmt.Errorf("%s: %w (%s)", label, ErrAllRunsFailed, strings.Join(res.Pairs.Failures, "; ")), err)
	}
	res.Findings = fs
	return err
}

// keepFailed keeps every run's outputs under Out/failed/LABEL-N/.
func (st PerftestStep) keepFailed(label string, ps runbook.Pairs) error {
	if st.Out == "" {
		return nil
	}
	return KeepFailedPairs(st.Out, slug(label), ps.Pairs)
}

// setParams records the step's parameters as data: where it ran, both
// netdev MTUs, the governor and pinning asked, then the caller's.
func (st PerftestStep) setParams(r *report.Round, sides *runbook.Sides, opts perftest.Options) {
	r.SetParam(report.ParamMode, string(sides.Mode))
	r.SetParam(report.ParamNetdevMTU, strconv.Itoa(sides.NearRXE.NetdevMTU))
	if sides.Mode != runbook.Loopback && sides.FarRXE.NetdevMTU != sides.NearRXE.NetdevMTU {
		r.SetParam(report.ParamPeerNetdevMTU, strconv.Itoa(sides.FarRXE.NetdevMTU))
	}
	if st.Governor != "" {
		r.SetParam(report.ParamGovernor, st.Governor)
	}
	if len(opts.Server.CPUs) > 0 {
		r.SetParam(report.ParamServerCPUs, cpuList(opts.Server.CPUs))
	}
	if len(opts.Client.CPUs) > 0 {
		r.SetParam(report.ParamClientCPUs, cpuList(opts.Client.CPUs))
	}
	for _, p := range st.Params {
		r.SetParam(p.Key, p.Value)
	}
}

// save writes the archive, then compares with the store's previous round
// and appends the round: a store never names a round whose archive is
// missing.
func (st PerftestStep) save(res *PerftestResult) error {
	files, err := PairsFiles(&res.Round, res.Pairs)
	if err != nil {
		return err
	}
	if st.Out != "" {
		if res.Archive, err = SaveArchive(st.Out, res.Round, files); err != nil {
			return err
		}
	}
	if st.Store == nil {
		return nil
	}
	prev, ok, err := st.Store.Previous(res.Round)
	if err != nil {
		return err
	}
	if ok {
		c := report.Compare(prev, res.Round, report.CompareOptions{})
		res.Previous, res.Comparison = &prev, &c
	}
	return st.Store.Append(res.Round)
}

// setGovernor sets the governor on both ends (once when they are one
// side), far first.
func setGovernor(ctx context.Context, sides *runbook.Sides, governor string) ([]runbook.GovernorResult, error) {
	var gs []runbook.GovernorResult
	for _, s := range endSides(sides) {
		g, err := s.SetGovernor(ctx, governor)
		if err != nil {
			return gs, fmt.Errorf("%s: governor %s: %w", s.Name(), governor, err)
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// endSides are the distinct sides, far (the server) first.
func endSides(sides *runbook.Sides) []runbook.Side {
	if sides.Far == nil || sides.Far == sides.Near || sides.Mode == runbook.Loopback {
		return []runbook.Side{sides.Near}
	}
	return []runbook.Side{sides.Far, sides.Near}
}

// cpuList is "0,2,3": taskset -c's form.
func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// slug makes a label a folder name: "MTU 9000: ib_send_bw" is
// "MTU-9000-ib_send_bw".
func slug(label string) string {
	return strings.NewReplacer(": ", "-", " ", "-", "/", "-").Replace(label)
}

// NoCPUFreq says why perftest runs with -F although the step asked for
// its CPU-frequency check: an end without cpufreq (a VM) has no frequency
// to check, and there perftest's check makes runs fail ("Can't produce a
// report", seen in the lab's QEMU guests) instead of warning. "" when
// both ends have cpufreq, or a host could not be read (the check stays).
func NoCPUFreq(ctx context.Context, sides *runbook.Sides) string {
	ends := []runbook.Side{sides.Near}
	if sides.Mode != runbook.Loopback && sides.Far != nil {
		ends = append(ends, sides.Far)
	}
	for _, e := range ends {
		if h, err := e.Host(ctx); err == nil && len(h.Governors) == 0 {
			return fmt.Sprintf("perftest ran with -F: %s has no cpufreq (a VM), so perftest's CPU-frequency check cannot work there and fails the run instead of warning", e.Name())
		}
	}
	return ""
}
