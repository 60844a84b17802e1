package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/rocekit/rocekit/internal/ownfile"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// NetperfPolicy says what a failed netperf run does to its round.
type NetperfPolicy int

// The failure policies of netperf rounds.
const (
	// NetperfStop: a failed run ends the round and the rounds after it;
	// RunUDPRounds returns the error with the rounds done so far (each
	// stored). The runbook's default: a run that fails is a setup to fix.
	// Under either policy, a failed round's outputs so far are kept in
	// Out/failed/NAME/ (raw/N/netperf.stderr, ...).
	NetperfStop NetperfPolicy = iota
	// NetperfKeepGoing: a failed run is a note of its round, with its
	// output kept in the archive (raw/N/), and the next run goes on; a
	// round whose every run failed is neither archived nor stored, carries
	// its error in UDPRoundResult.Err and a critical finding, and the next
	// round runs.
	NetperfKeepGoing
)

// UDPOptions are the rounds to run between two Sides and how.
type UDPOptions struct {
	// Rounds in order (ParseUDPRounds).
	Rounds []UDPRound
	// Netperf is every round's UDP_STREAM without the host (the far
	// netdev's address, read each round): length, -m, -s, -S, extras.
	Netperf netperf.Options
	// Count is the runs per round (0: 1).
	Count int
	// Policy is what a failed run does (NetperfStop by default).
	Policy NetperfPolicy
	// Governor is the cpufreq governor of the rounds that spread IRQs
	// ("" is "performance").
	Governor string
	// KeepMessageSize keeps Netperf.MessageSize in the rounds that raise
	// the MTU. By default they send MTU-28 bytes, the largest datagram one
	// frame carries, so that frames above 1500 bytes are sent and the MTU
	// can show a gain; kept, the round says why it cannot.
	KeepMessageSize bool
	// Out is the folder of the rounds' archives (NAME.tar.gz); "" writes
	// none.
	Out string
	// Store receives each round after its archive is written; nil stores
	// nothing (and compares with nothing).
	Store *report.Store
	// Progress is told of each step; nil is silent.
	Progress runbook.Progress
	// FarTarget is how rerun.sh reaches the far end: "user@host[:port]"
	// for a Peer; "" derives it (a Local's namespace, a Peer's SSH
	// address).
	FarTarget string
	// Preflight are the preflight's host facts (RunUDPPreflight), near
	// then far: the socket buffer limits and kernels; nil reads nothing
	// more.
	Preflight []report.HostFacts
	// PreflightFindings join the first round's findings.
	PreflightFindings []report.Finding
}

// UDPRoundResult is one round and everything it was judged on.
type UDPRoundResult struct {
	Spec UDPRound
	// Round is what was stored: metrics, parameters, fingerprint, verdict
	// and findings (Round.Findings).
	Round report.Round
	// Near and Far are both netdevs at the round start, after its change.
	Near, Far runbook.Netdev
	// FarHost is the far end's host facts at the round start (governors,
	// irqbalance); nil when they could not be read.
	FarHost *runbook.Host
	// Changes say what the round changed; Notes what it could not, or
	// did not check.
	Changes, Notes []string
	// Receiver and Sender are the whole round's growth (the first run's
	// counters before to the last run's after).
	Receiver, Sender runbook.Growth
	// Sockets are netserver's own UDP socket per run (UDP rounds on a
	// Local far end; nil elsewhere).
	Sockets []SocketReading
	// Drifts are the journaled settings that did not hold once the
	// round's changes were made, before its runs (tune.Session.Verify on
	// each end).
	Drifts []string
	// GovernorSet is true when the round set the governor.
	GovernorSet bool
	// Previous is the store's latest earlier round of the same name
	// (report.Store.Previous), the baseline it is compared with; nil for
	// the first of its name.
	Previous *report.Round
	// Comparison is Round against Previous; nil without one.
	Comparison *report.Comparison
	// Archive is the archive's path ("" when Out is ""); for a round that
	// failed, the folder its files were kept in (Out/failed/NAME).
	Archive string
	// Files are the archive's files besides the generated ones.
	Files []report.ArchiveFile
	// Err is why the round has no result under NetperfKeepGoing.
	Err error
}

// Findings are the round's findings (Round.Findings).
func (r *UDPRoundResult) Findings() []report.Finding { return r.Round.Findings }

// RunUDPRounds runs the rounds between two Sides, the sender near and
// netserver far. Each round: makes its change on both ends (journaled,
// kept for the later rounds; Sides.Restore undoes them), checks that the
// changes made so far still hold (a drifted one is a finding), records
// both netdevs, starts netserver, runs netperf Count times with both ends'
// counters, kernel logs and netserver's socket around each run, builds
// the round (parameters, fingerprint of both ends, verdict, findings),
// writes its archive, then appends it to the store, and compares it with
// the store's previous round of its name. It returns the rounds done,
// also with an error (see NetperfPolicy).
//
// Similar to: for each runbook group: sysctl -w / ip link set mtu /
// set_irq_affinity.sh; netserver; netperf -t UDP_STREAM -H FAR -l 30 -- -m 1400 -s 2M -S 2M
func RunUDPRounds(ctx context.Context, sides *runbook.Sides, o UDPOptions) ([]UDPRoundResult, error) {
	if sides == nil || sides.Near == nil || sides.Far == nil || sides.Far == sides.Near {
		return nil, fmt.Errorf("%w: a UDP round needs two ends (loopback would measure lo, not the NIC)", runbook.ErrInvalidSides)
	}
	if len(o.Rounds) == 0 {
		return nil, fmt.Errorf("%w: no rounds", ErrRounds)
	}
	if o.Count <= 0 {
		o.Count = 1
	}
	// The limits raised are noted in the facts: the caller's stay as read.
	o.Preflight = slices.Clone(o.Preflight)
	for i := range o.Preflight {
		o.Preflight[i].Sysctls = maps.Clone(o.Preflight[i].Sysctls)
	}
	if o.Governor == "" {
		o.Governor = "performance"
	}
	base := o.Netperf
	base.Test = netperf.TestUDPStream
	if err := base.Validate(); err != nil {
		return nil, err
	}
	t := &udpTuner{o: o, sides: sides}
	var results []UDPRoundResult
	for _, s := range o.Rounds {
		res, err := t.round(ctx, s)
		if err == nil {
			err = t.save(&res)
		}
		if err != nil {
			err = fmt.Errorf("round %s: %w", s.Letter, err)
			if kerr := t.keepFailed(&res); kerr != nil {
				err = errors.Join(err, kerr)
			}
			if o.Policy != NetperfKeepGoing || ctx.Err() != nil {
				return results, err
			}
			res.Err = err
			res.Round.Findings = append(res.Round.Findings, report.Finding{Rule: RuleRoundFailed, Severity: report.SeverityCritical,
				Summary: err.Error(), Action: "see the round's notes and the kept outputs; the next rounds ran without it"})
		}
		if res.Err == nil {
			t.done = append(t.done, res.Round)
		}
		results = append(results, res)
	}
	return results, nil
}

// keepFailed writes the files of a round that failed (netperf's and
// netserver's output, the snapshots so far) into Out/failed/NAME/, so that
// what both ends printed is kept beside the report; it sets res.Archive
// to that folder.
func (t *udpTuner) keepFailed(res *UDPRoundResult) error {
	if t.o.Out == "" || len(res.Files) == 0 {
		return nil
	}
	dir := filepath.Join(t.o.Out, "failed", res.Spec.Name())
	for _, f := range res.Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := ownfile.MkdirAll(filepath.Dir(path)); err != nil {
			return err
		}
		if err := ownfile.WriteFile(path, f.Data, 0o644); err != nil {
			return err
		}
	}
	res.Archive = dir
	return nil
}

// RuleRoundFailed is the finding of a round whose every run failed
// (NetperfKeepGoing).
const RuleRoundFailed = "round_failed"

// udpTuner runs the rounds on two sides and remembers what is already
// changed (rounds are cumulative).
type udpTuner struct {
	o     UDPOptions
	sides *runbook.Sides

	mtu      int                     // MTU set on both ends, 0 if none
	limit    int                     // socket buffer limits raised to, 0 if not
	spread   bool                    // IRQs spread, irqbalance paused, governor set
	governor *runbook.GovernorResult // the far end's SetGovernor, once done

	done      []report.Round     // the rounds built so far
	kernels   []report.HostFacts // both ends' kernels, read once without a preflight
	tools     []report.Param     // netperf's and netserver's versions, once read
	toolNotes []string           // why a version was not read
}

// preflightFindings are the preflight's findings, which join the first
// round's.
func (t *udpTuner) preflightFindings() []report.Finding { return t.o.PreflightFindings }

func (t *udpTuner) step(format string, args ...any) {
	if t.o.Progress != nil {
		t.o.Progress.Step(format, args...)
	}
}

// options are netperf's options for the round: the verification round's
// sizes, the MTU's message size, TCP_STREAM for a T round.
func (t *udpTuner) options(s UDPRound) (netperf.Options, []string) {
	o := t.o.Netperf
	o.Test = netperf.TestUDPStream
	var notes []string
	switch {
	case s.Verify:
		o.MessageSize, o.LocalSocketBuffer, o.RemoteSocketBuffer = VerifyMessageSize, VerifySocketBuffer, VerifySocketBuffer
	case s.MTU > 1500 && !s.TCP && t.o.KeepMessageSize:
		if o.MessageSize > 0 && o.MessageSize <= 1500-udpHeaders {
			notes = append(notes, fmt.Sprintf("message size kept at %d bytes (KeepMessageSize): each datagram fits a 1500-byte frame, so this round sends no frame above 1500 bytes and MTU %d cannot show a gain",
				o.MessageSize, s.MTU))
		}
	case s.MTU > 0 && s.MTU <= 1500 && !s.TCP:
		notes = append(notes, fmt.Sprintf("MTU %d is not above 1500: this round sends no frame larger than a default one, so it cannot show an MTU gain", s.MTU))
	case s.MTU > 1500 && !s.TCP:
		o.MessageSize = min(s.MTU-udpHeaders, 65507)
		notes = append(notes, fmt.Sprintf("message size %d bytes: MTU %d less 28 (IPv4 20, UDP 8), the largest datagram one frame carries, so frames above 1500 bytes are sent",
			o.MessageSize, s.MTU))
	}
	if s.TCP {
		// netperf's own send size (the socket buffer): -m 1400 would hold
		// TCP back by its sends, not by the path UDP is held against.
		o.Test, o.MessageSize = netperf.TestTCPStream, 0
		notes = append(notes, "TCP_STREAM with netperf's default send size (no -m): the reference is the path's, not a small send's")
	}
	return o, notes
}

// round applies the round's change, runs netperf Count times and builds
// the round.
func (t *udpTuner) round(ctx context.Context, s UDPRound) (UDPRoundResult, error) {
	res := UDPRoundResult{Spec: s}
	t.step("round %s: apply changes and record both ends", s.Letter)
	opts, notes := t.options(s)
	res.Notes = append(res.Notes, notes...)
	if err := t.apply(ctx, s, opts, &res); err != nil {
		return res, err
	}
	t.verify(ctx, &res)
	if err := t.describe(ctx, &res); err != nil {
		return res, err
	}
	if res.Far.Addr == "" {
		return res, fmt.Errorf("%w: %s on %s (netperf needs it to reach netserver)", runbook.ErrNoIPv4, t.sides.FarNetdev, t.sides.Far.Name())
	}
	opts.Host = res.Far.Addr
	t.step("round %s: start netserver on %s", s.Letter, t.sides.Far.Name())
	var srvOpts netperf.ServerOptions
	srv, err := netperf.StartNetserver(ctx, t.sides.Far.Runner(), srvOpts)
	if err != nil {
		return res, fmt.Errorf("netserver on %s: %w", t.sides.Far.Name(), err)
	}
	logs := t.readKernelLogs(ctx, &res)
	runs, err := t.runs(ctx, s, opts, srv, &res)
	t.kernelLogFindings(ctx, logs, &res)
	stopErr := srv.Stop(ctx)
	res.Files = append(res.Files,
		report.ArchiveFile{Name: "raw/netserver.stdout", Data: srv.Process().Stdout().Bytes()},
		report.ArchiveFile{Name: "raw/netserver.stderr", Data: srv.Process().Stderr().Bytes()})
	if err != nil {
		// What the runs printed, kept beside the report (keepFailed).
		for i, r := range runs {
			if files, ferr := udpRunFiles(i, r); ferr == nil {
				res.Files = append(res.Files, files...)
			}
		}
		return res, err
	}
	if stopErr != nil {
		res.Notes = append(res.Notes, "netserver did not stop cleanly: "+stopErr.Error())
	}
	return res, t.build(ctx, s, opts, netserverArgv(srvOpts), runs, &res)
}

// netperfRun is one netperf run with both ends' counters around it.
type netperfRun struct {
	Result                 *netperf.Result
	Err                    error // the run's failure (NetperfKeepGoing)
	Took                   time.Duration
	NearCPU, FarCPU        time.Duration // rocekit's own CPU while netperf ran: this process, the far agents
	NearBefore, NearAfter  runbook.Counters
	FarBefore, FarAfter    runbook.Counters
	Receiver, Sender       runbook.Growth
	ReceiverErr, SenderErr error
	Socket                 *SocketReading
}

// runs runs netperf Count times, reading both ends' counters around each
// and netserver's socket during each.
func (t *udpTuner) runs(ctx context.Context, s UDPRound, opts netperf.Options, srv *netperf.Netserver, res *UDPRoundResult) ([]netperfRun, error) {
	sides := t.sides
	sockets := canWatch(sides.Far)
	_, farReader := sides.Far.(UDPSocketReader)
	if !sockets && !s.TCP {
		res.Notes = append(res.Notes, fmt.Sprintf("netserver's own socket not read: %s can neither be read from here nor watch its sockets", sides.Far.Name()))
	}
	var runs []netperfRun
	for i := range t.o.Count {
		t.step("round %s: netperf %s run %d of %d (%s)", s.Letter, opts.Test, i+1, t.o.Count, opts.Length)
		var r netperfRun
		var err error
		// The watch starts first, so that a far agent's start-up overlaps
		// the counter snapshots instead of the run.
		var watch *socketWatch
		if sockets && !s.TCP {
			watch = watchSockets(ctx, sides.Far, srv.PID())
		}
		if r.NearBefore, err = sides.Near.Counters(ctx, sides.NearNetdev); err != nil {
			watch.end()
			return nil, fmt.Errorf("counters of %s: %w", sides.Near.Name(), err)
		}
		if r.FarBefore, err = sides.Far.Counters(ctx, sides.FarNetdev); err != nil {
			watch.end()
			return nil, fmt.Errorf("counters of %s: %w", sides.Far.Name(), err)
		}
		if watch != nil {
			watch.waitReady(ctx)
		}
		began := time.Now()
		cpu0, agents0 := runbook.SelfCPU(), runbook.PeerAgentCPU()
		r.Result, r.Err = netperf.Run(ctx, sides.Near.Runner(), opts)
		r.Took = time.Since(began)
		if watch != nil {
			r.Socket = watch.stop(r.FarBefore.UDP, farReader)
		}
		r.NearCPU, r.FarCPU = runbook.SelfCPU()-cpu0, runbook.PeerAgentCPU()-agents0
		if watch != nil && !farReader {
			// The agent's reply counts its whole life, start-up included;
			// its CPU over the watch is what the run cost the far host.
			r.FarCPU = watch.result.CPU
		}
		if r.Err != nil {
			if t.o.Policy != NetperfKeepGoing || ctx.Err() != nil {
				return append(runs, r), fmt.Errorf("netperf run %d: %w", i+1, r.Err)
			}
			res.Notes = append(res.Notes, fmt.Sprintf("netperf run %d failed: %v", i+1, r.Err))
		}
		if r.NearAfter, err = sides.Near.Counters(ctx, sides.NearNetdev); err != nil {
			return nil, fmt.Errorf("counters of %s: %w", sides.Near.Name(), err)
		}
		if r.FarAfter, err = sides.Far.Counters(ctx, sides.FarNetdev); err != nil {
			return nil, fmt.Errorf("counters of %s: %w", sides.Far.Name(), err)
		}
		r.Receiver, r.ReceiverErr = r.FarAfter.Sub(r.FarBefore, res.Far)
		r.Sender, r.SenderErr = r.NearAfter.Sub(r.NearBefore, res.Near)
		runs = append(runs, r)
	}
	return runs, nil
}

// hostState is the governors and irqbalance of the far end at the round
// start; when they could not be read, only what SetGovernor reported is
// known.
func (t *udpTuner) hostState(res *UDPRoundResult) (governors []irq.CPUGovernor, irqbalance []int, known bool) {
	if h := res.FarHost; h != nil {
		return h.Governors, h.IRQBalance, true
	}
	if g := t.governor; g != nil && g.Set {
		for _, r := range g.Replaced {
			governors = append(governors, irq.CPUGovernor{CPU: r.CPU, Governor: t.o.Governor})
		}
	}
	return governors, nil, false
}

// errUDPAllFailed means every run of a round failed.
var errUDPAllFailed = errors.New("workflow: every netperf run of the round failed")
