// Command netperf-udp-tuning runs the NIC UDP tuning runbook: netperf
// UDP_STREAM from this host (the sender) to netserver on the far end (the
// receiver), in cumulative rounds that change one thing each and are
// compared side by side:
//
//	A  default: nothing changed
//	S  net.core.rmem_max and wmem_max raised to the -sockbuf asked, on both
//	   ends (Linux caps SO_RCVBUF at rmem_max, 212992 by default, so
//	   "-S 2M" is clamped until they are)
//	B  S + MTU -mtu on both ends
//	C  B + the queue IRQs of each NIC spread round-robin over its
//	   NUMA-local CPUs + cpufreq governor -governor, on both ends
//	V  C + the runbook's verification run: -m 8000 -s 4M -S 4M
//
// Before the rounds, a preflight reads both ends and prints its findings:
// NIC model, driver and firmware, link speed against the NIC's fastest
// mode, NUMA node, a firewall rule in the way (quoted), socket buffer
// limits under -sockbuf, irqbalance, governor, and the two hosts side by
// side (preflight.md, preflight.json).
//
// Each round:
//
//  1. makes its change on both ends (journaled; it stays for the later
//     rounds and is undone when the run ends, also on Ctrl-C),
//  2. records both netdevs: driver, version, firmware, link, NUMA node and
//     CPUs, MTU, queue IRQs and their affinity,
//  3. starts netserver on the far end and runs
//     netperf -t UDP_STREAM -l L -- -m M -s B -S B against the far netdev's
//     IPv4 address -count times, reading both ends' counters (ethtool -S,
//     /proc/net/snmp, /proc/interrupts, /proc/stat) before and after each run,
//  4. turns the runs into a round (send and receive throughput, loss, the
//     receiver's NIC drop-counter deltas, UDP errors, per-CPU load and queue
//     interrupts per CPU; the sender's drop counters) with findings (loss and
//     its cause, concentrated or off-node IRQs, a hot softirq core, the
//     governor), appends it to -store and writes its archive to -out.
//
// In -out: report.md (the environment of both ends, the rounds side by side,
// throughput, loss, drop counters, IRQ distribution and findings per round),
// report.html (one page: findings first, the pictures inline),
// throughput.svg (send vs receive, loss and the drop counters that grew,
// per round), interims-throughput.svg (netperf's interim results over
// each run, where a stall shows), cpu-LETTER.svg (the receiver's per-CPU load and queue
// interrupts, its NUMA node's CPUs marked), summary.json, and one
// NAME.tar.gz per round with netperf's raw output (raw/N/netperf.stdout
// and .stderr), netserver's output, and JSON snapshots of
// both ends before and after each run.
//
// The far end is, by the flags (loopback is refused: it would measure lo,
// not a NIC):
//
//	-peer-netns NS -peer-netdev DEV   a network namespace here, on its own NIC
//	-peer root@host [-peer-netdev D]  another host over SSH, with rocekit-peer there
//
// Usage, as root:
//
//	go run ./examples/netperf-udp-tuning -netdev eth0 -peer root@198.18.0.2 -peer-netdev ens1f0
//	go run ./examples/netperf-udp-tuning -netdev eth0 -peer-netns udppeer -peer-netdev eth1 -l 10 -count 2
//
// Flags besides the shared ones (-netdev, -peer, -peer-netns, -peer-netdev,
// -journal, -timeout, ...):
//
//	-rounds A,B,C       the rounds to run, in order
//	-mtu 9000           MTU of rounds B and C
//	-l 30               seconds per netperf run
//	-m 1400             UDP message size (stay below MTU-28 of round A)
//	-sockbuf 2M         -s and -S socket buffers (K, M, G: binary; k, m, g: decimal)
//	-count 3            runs per round
//	-governor performance
//	-interval 1         seconds between netperf's interim results (-D); 0 off
//	-store rocekit-rounds.jsonl
//	-out netperf-udp-tuning-out
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// config is what the flags set.
type config struct {
	cli.Flags
	Rounds   string
	MTU      int
	Length   int
	MsgSize  int
	SockBuf  string
	Count    int
	Store    string
	Out      string
	Governor string
	Interval int // netperf -D: seconds between interim results, 0 off
}

func main() {
	var c config
	c.Register(flag.CommandLine)
	flag.StringVar(&c.Rounds, "rounds", "A,S,B,C,V", "rounds to run, in order: A default, S socket buffer limits, B S + MTU -mtu, C B + IRQs spread + -governor, V C + -m 8000 -s 4M -S 4M")
	flag.IntVar(&c.MTU, "mtu", 9000, "netdev MTU on both ends in rounds B and C; restored on exit")
	flag.IntVar(&c.Length, "l", 30, "seconds per netperf run (-l)")
	flag.IntVar(&c.MsgSize, "m", 1400, "UDP message size in bytes (test-specific -m)")
	flag.StringVar(&c.SockBuf, "sockbuf", "2M", "socket buffer of both ends (test-specific -s and -S)")
	flag.IntVar(&c.Count, "count", 3, "netperf runs per round")
	flag.StringVar(&c.Store, "store", "rocekit-rounds.jsonl", "round store (appended)")
	flag.StringVar(&c.Out, "out", "netperf-udp-tuning-out", "folder for report.md, the plots, summary.json and the round archives")
	flag.StringVar(&c.Governor, "governor", "performance", "cpufreq governor of round C on both ends; restored on exit")
	flag.IntVar(&c.Interval, "interval", 1, "seconds between netperf's interim results (-D), drawn over time in interims-throughput.svg; 0 off")
	cli.Parse("netperf-udp-tuning")
	cli.Main("netperf-udp-tuning", c.Timeout, func(ctx context.Context) error { return run(ctx, c, os.Stdout, os.Stderr) })
}

// errLoopback refuses a run without a far end.
var errLoopback = errors.New("NIC UDP tuning needs two ends: give -peer-netns NS -peer-netdev DEV or -peer user@host (loopback would measure lo, not the NIC)")

// run does the rounds and restores every change it made before it
// returns, whatever happened.
func run(ctx context.Context, c config, out, progress io.Writer) (err error) {
	if err := c.validate(); err != nil {
		return err
	}
	specs, _ := parseRounds(c.Rounds, c.MTU) // validated
	opts, _ := c.netperfOptions()
	if err := c.CheckPaths(c.Out, c.Store, progress); err != nil {
		return err
	}
	c.Log = progress
	sides, err := c.Open(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, sides.Restore()) }()
	if spreads(specs) {
		// Before round A changes anything: a governor a host's driver
		// does not offer would fail round C only.
		hosts := map[string]host.Runner{sides.Near.Name(): sides.Near.Runner(), sides.Far.Name(): sides.Far.Runner()}
		if err := cli.CheckGovernorOffered(ctx, "-governor", c.Governor, hosts); err != nil {
			return err
		}
	}

	prog := cli.NewProgress(progress, 1+len(specs)*(2+c.Count))
	store := report.OpenStore(c.Store)
	t := &tuner{c: c, sides: sides, opts: opts, prog: prog}
	prog.Step("preflight: both ends' NIC, link, firewall, limits")
	if err := t.preflight(ctx, out); err != nil {
		return err
	}
	var results []roundResult
	for _, s := range specs {
		res, err := t.round(ctx, s)
		if err != nil {
			return fmt.Errorf("round %s: %w", s.Letter, err)
		}
		if err := cli.SaveRound(store, c.Out, res.Round, res.Files); err != nil {
			return err
		}
		results = append(results, res)
	}
	prog.Done()
	return writeOutputs(c.Out, out, sides, store, results)
}

// validate checks every flag, touching nothing: run calls it before
// anything is read or changed. The governor is checked by name here, and
// against what both hosts offer once they are open, before round A.
func (c config) validate() error {
	specs, roundsErr := parseRounds(c.Rounds, c.MTU)
	_, optsErr := c.netperfOptions()
	var govErr error
	if spreads(specs) {
		govErr = cli.Governor("-governor", c.Governor)
	}
	if err := errors.Join(c.Flags.Validate(), cli.BadFlag(roundsErr), cli.BadFlag(optsErr), govErr); err != nil {
		return err
	}
	if c.Peer == "" && c.PeerNetns == "" {
		return errLoopback
	}
	return nil
}

// spreads reports whether a round spreads the IRQs and sets the governor.
func spreads(specs []roundSpec) bool {
	return slices.ContainsFunc(specs, func(s roundSpec) bool { return s.Spread })
}

// netperfOptions are the UDP_STREAM runs of every round, without the host
// (the far netdev's address, read once the far end is open).
func (c config) netperfOptions() (netperf.Options, error) {
	buf, err := parseSize(c.SockBuf)
	if err != nil {
		return netperf.Options{}, fmt.Errorf("-sockbuf: %w", err)
	}
	if err := errors.Join(cli.AtLeast("-count", c.Count, 1), cli.AtLeast("-l", c.Length, 1)); err != nil {
		return netperf.Options{}, err
	}
	o := netperf.Options{Test: netperf.TestUDPStream, Family: netperf.IPv4, Length: time.Duration(c.Length) * time.Second,
		MessageSize: c.MsgSize, LocalSocketBuffer: buf, RemoteSocketBuffer: buf}
	if o, err = withInterims(o, c.Interval); err != nil {
		return o, err
	}
	return o, o.Validate()
}

// tuner runs the rounds on two sides and remembers what is already changed
// (rounds are cumulative).
type tuner struct {
	c     config
	sides *runbook.Sides
	opts  netperf.Options
	prog  *cli.Progress

	mtu      int                     // MTU set on both ends, 0 if none
	limit    int                     // socket buffer limits raised to, 0 if not
	spread   bool                    // IRQs spread and governor set
	hosts    []report.HostFacts      // the preflight's facts, near then far
	pre      []report.Finding        // the preflight's findings
	governor *runbook.GovernorResult // the far end's SetGovernor, once done
}

// roundResult is one round and what the report says about it.
type roundResult struct {
	Spec  roundSpec
	Round report.Round
	// Near and Far are both netdevs at the round start (after its change);
	// NearAffinity and FarAffinity their queue IRQs' affinity, where it
	// can be read from here.
	Near, Far                 runbook.NetdevInfo
	NearAffinity, FarAffinity []irq.Affinity
	// FarHost is the far end's host facts at the round start (its
	// governors and irqbalance); nil when they could not be read.
	FarHost *runbook.HostInfo
	// Changes say what the round changed; Notes what it could not.
	Changes, Notes []string
	// Receiver and Sender are the whole round's growth (first run's
	// counters before to the last run's after).
	Receiver, Sender runbook.Growth
	// GovernorSet is true when round C set the governor.
	GovernorSet bool
	Findings    []report.Finding
	// Files are the round's archive files besides the generated ones.
	Files []report.ArchiveFile
}

// round applies the round's change, runs netperf -count times and builds
// the round.
func (t *tuner) round(ctx context.Context, s roundSpec) (roundResult, error) {
	res := roundResult{Spec: s}
	t.prog.Step("round %s: apply changes and record both ends", s.Letter)
	if err := t.apply(ctx, s, &res); err != nil {
		return res, err
	}
	if err := t.describe(ctx, &res); err != nil {
		return res, err
	}
	if res.Far.Addr == "" {
		return res, fmt.Errorf("%w: %s on %s (netperf needs it to reach netserver)", runbook.ErrNoIPv4, t.sides.FarNetdev, t.sides.Far.Name())
	}
	opts := s.options(t.opts)
	opts.Host = res.Far.Addr

	t.prog.Step("round %s: start netserver on %s", s.Letter, t.sides.Far.Name())
	srv, err := netperf.StartNetserver(ctx, t.sides.Far.Runner(), netperf.ServerOptions{})
	if err != nil {
		return res, fmt.Errorf("netserver on %s: %w", t.sides.Far.Name(), err)
	}
	logs := t.readKernelLogs(ctx, &res)
	runs, err := t.runs(ctx, s, opts, &res)
	if s.Letter == "A" {
		res.Findings = append(res.Findings, t.pre...)
	}
	t.kernelLogFindings(ctx, logs, &res)
	stopErr := srv.Stop(ctx)
	res.Files = append(res.Files,
		report.ArchiveFile{Name: "raw/netserver.stdout", Data: srv.Process().Stdout().Bytes()},
		report.ArchiveFile{Name: "raw/netserver.stderr", Data: srv.Process().Stderr().Bytes()})
	if err != nil {
		return res, err
	}
	if stopErr != nil {
		res.Notes = append(res.Notes, "netserver did not stop cleanly: "+stopErr.Error())
	}
	return res, t.build(s, opts, srv, runs, &res)
}

// apply makes the round's changes that earlier rounds have not made.
func (t *tuner) apply(ctx context.Context, s roundSpec, res *roundResult) error {
	sides := t.sides
	both := []struct {
		side   runbook.Side
		netdev string
	}{{sides.Near, sides.NearNetdev}, {sides.Far, sides.FarNetdev}}
	if err := t.raiseLimits(ctx, s, res); err != nil {
		return err
	}
	if s.MTU > 0 && t.mtu != s.MTU {
		for _, b := range both {
			if err := b.side.SetMTU(ctx, b.netdev, s.MTU); err != nil {
				return fmt.Errorf("MTU %d on %s (%s): %w", s.MTU, b.netdev, b.side.Name(), err)
			}
		}
		t.mtu = s.MTU
		res.Changes = append(res.Changes, fmt.Sprintf("MTU %d on %s (%s) and %s (%s)", s.MTU,
			sides.NearNetdev, sides.Near.Name(), sides.FarNetdev, sides.Far.Name()))
	}
	if !s.Spread || t.spread {
		return nil
	}
	for _, b := range both {
		sp, err := b.side.SpreadIRQs(ctx, b.netdev)
		if err != nil {
			return fmt.Errorf("spread the IRQs of %s (%s): %w", b.netdev, b.side.Name(), err)
		}
		res.Changes = append(res.Changes, spreadText(b.netdev, b.side.Name(), sp))
		res.Notes = append(res.Notes, warnjson.Strings(sp.Warnings)...)
		file, err := report.JSONFile("changes/spread-"+role(sides, b.side)+".json", sp)
		if err != nil {
			return err
		}
		res.Files = append(res.Files, file)
		g, err := b.side.SetGovernor(ctx, t.c.Governor)
		if err != nil {
			return fmt.Errorf("governor %s on %s: %w", t.c.Governor, b.side.Name(), err)
		}
		if g.Set {
			res.Changes = append(res.Changes, fmt.Sprintf("governor %s on %s (was %s)", t.c.Governor, b.side.Name(), orNone(report.GovernorSummary(g.Replaced))))
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("governor %s not set on %s: %s", t.c.Governor, b.side.Name(), g.Reason))
		}
		if b.side == sides.Far {
			t.governor = &g
		}
	}
	t.spread = true
	return nil
}

// describe records both netdevs at the round start.
func (t *tuner) describe(ctx context.Context, res *roundResult) error {
	var err error
	if res.Near, err = t.sides.Near.Netdev(ctx, t.sides.NearNetdev); err != nil {
		return fmt.Errorf("%s (%s): %w", t.sides.NearNetdev, t.sides.Near.Name(), err)
	}
	if res.Far, err = t.sides.Far.Netdev(ctx, t.sides.FarNetdev); err != nil {
		return fmt.Errorf("%s (%s): %w", t.sides.FarNetdev, t.sides.Far.Name(), err)
	}
	res.NearAffinity, res.FarAffinity = res.Near.Affinity, res.Far.Affinity
	if h, err := t.sides.Far.Host(ctx); err == nil {
		res.FarHost = &h
	} else {
		res.Notes = append(res.Notes, fmt.Sprintf("governors and irqbalance of %s not read: %v", t.sides.Far.Name(), err))
	}
	for _, d := range []struct {
		name string
		info runbook.NetdevInfo
	}{{"near", res.Near}, {"far", res.Far}} {
		f, err := report.JSONFile("snapshots/netdev-"+d.name+".json", d.info)
		if err != nil {
			return err
		}
		res.Files = append(res.Files, f)
	}
	return nil
}

// netperfRun is one netperf run with both ends' counters around it.
type netperfRun struct {
	Result                 *netperf.Result
	Took                   time.Duration // netperf's own run
	NearBefore, NearAfter  runbook.Counters
	FarBefore, FarAfter    runbook.Counters
	Receiver, Sender       runbook.Growth
	ReceiverErr, SenderErr error
}

// runs runs netperf -count times, reading both ends' counters around each.
func (t *tuner) runs(ctx context.Context, s roundSpec, opts netperf.Options, res *roundResult) ([]netperfRun, error) {
	sides := t.sides
	var runs []netperfRun
	for i := range t.c.Count {
		t.prog.Step("round %s: netperf UDP_STREAM run %d of %d (%ds)", s.Letter, i+1, t.c.Count, t.c.Length)
		var r netperfRun
		var err error
		if r.NearBefore, err = sides.Near.Counters(ctx, sides.NearNetdev); err != nil {
			return nil, fmt.Errorf("counters of %s: %w", sides.Near.Name(), err)
		}
		if r.FarBefore, err = sides.Far.Counters(ctx, sides.FarNetdev); err != nil {
			return nil, fmt.Errorf("counters of %s: %w", sides.Far.Name(), err)
		}
		began := time.Now()
		if r.Result, err = netperf.Run(ctx, sides.Near.Runner(), opts); err != nil {
			return nil, fmt.Errorf("netperf run %d: %w", i+1, err)
		}
		r.Took = time.Since(began)
		if r.NearAfter, err = sides.Near.Counters(ctx, sides.NearNetdev); err != nil {
			return nil, fmt.Errorf("counters of %s: %w", sides.Near.Name(), err)
		}
		if r.FarAfter, err = sides.Far.Counters(ctx, sides.FarNetdev); err != nil {
			return nil, fmt.Errorf("counters of %s: %w", sides.Far.Name(), err)
		}
		r.Receiver, r.ReceiverErr = runbook.Between(res.Far, r.FarBefore, r.FarAfter)
		r.Sender, r.SenderErr = runbook.Between(res.Near, r.NearBefore, r.NearAfter)
		runs = append(runs, r)
	}
	return runs, nil
}

// build makes the round from the runs: netperf's numbers, the receiver's
// counters (and the sender's drop counters) per run, the parameters, the
// fingerprint, the findings and the archive files.
func (t *tuner) build(s roundSpec, opts netperf.Options, srv *netperf.Netserver, runs []netperfRun, res *roundResult) error {
	results := make([]*netperf.Result, len(runs))
	for i, r := range runs {
		results[i] = r.Result
	}
	start := runs[0].NearBefore.Time
	round, err := report.FromNetperf(s.name(), start, results...)
	if err != nil {
		return err
	}
	round.DurationSec = runs[len(runs)-1].NearAfter.Time.Sub(start).Seconds()
	for _, r := range runs {
		round.ToolSec += r.Took.Seconds()
	}
	round.SetParam("round", s.Letter)
	round.SetParam("mode", string(t.sides.Mode))
	round.SetParam("netdev_mtu", fmt.Sprint(res.Far.Snapshot.MTU))
	round.SetParam("sockbuf", fmt.Sprint(opts.RemoteSocketBuffer))
	round.SetParam("msg_size", fmt.Sprint(opts.MessageSize))
	round.SetParam("length_sec", fmt.Sprint(t.c.Length))
	for i, r := range runs {
		if err := addCounters(&round, r); err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		files, err := runFiles(i, r)
		if err != nil {
			return err
		}
		res.Files = append(res.Files, files...)
		round.Outputs = append(round.Outputs, report.Output{Repeat: i, Role: "client", Stream: "stdout", Path: files[0].Name})
	}
	if err := addInterims(&round, runs); err != nil {
		return err
	}
	last := runs[len(runs)-1]
	if res.Receiver, err = runbook.Between(res.Far, runs[0].FarBefore, last.FarAfter); err != nil {
		return fmt.Errorf("receiver counters: %w", err)
	}
	if res.Sender, err = runbook.Between(res.Near, runs[0].NearBefore, last.NearAfter); err != nil {
		return fmt.Errorf("sender counters: %w", err)
	}
	round.Fingerprint = t.fingerprint(res, opts, srv)
	round.Bottleneck = report.Bottleneck(report.BottleneckInput{Round: &round,
		Ends: []report.End{{Host: t.sides.Near.Name(), Snapshot: res.Near.Snapshot}, {Host: t.sides.Far.Name(), Snapshot: res.Far.Snapshot}},
		Loads: []report.HostLoad{{Host: t.sides.Far.Name() + " (receiver)", Load: res.Receiver.Load, LocalCPUs: res.Far.LocalCPUs},
			{Host: t.sides.Near.Name() + " (sender)", Load: res.Sender.Load, LocalCPUs: res.Near.LocalCPUs}},
		NICDelta: &res.Receiver.Stats, UDP: &res.Receiver.UDP})
	res.Round = round
	res.GovernorSet = s.Spread && t.governor != nil && t.governor.Set
	res.Findings = append(res.Findings, t.diagnose(res)...)
	growth, err := report.JSONFile("snapshots/growth.json", map[string]runbook.Growth{"receiver": res.Receiver, "sender": res.Sender})
	if err != nil {
		return err
	}
	res.Files = append(res.Files, growth)
	return nil
}

// addCounters adds one run's counters to the round: the receiver's NIC
// losses, UDP errors, CPU load and queue interrupts per CPU, and the
// sender's NIC losses and UDP send-buffer errors (near_*).
func addCounters(round *report.Round, r netperfRun) error {
	if r.ReceiverErr != nil {
		return fmt.Errorf("receiver counters: %w", r.ReceiverErr)
	}
	g := r.Receiver
	for _, err := range []error{round.AddNICLosses(g.Stats), round.AddUDPErrors(g.UDP), round.AddCPULoad(g.Load),
		round.AddIRQDistribution(g.Distribution)} {
		if err != nil {
			return err
		}
	}
	if r.SenderErr != nil {
		round.Warnings = append(round.Warnings, "sender counters: "+r.SenderErr.Error())
		return nil
	}
	for _, c := range r.Sender.Stats.Losses() {
		labels := []report.Param{{Key: "netdev", Value: r.Sender.Stats.Netdev}, {Key: "counter", Value: c.Source + "." + c.Name}}
		if err := round.AddValue("near_nic_loss", labels, "count", report.LowerIsBetter, float64(c.Delta)); err != nil {
			return err
		}
	}
	return round.AddValue("near_udp_sndbuf_errors", nil, "count", report.LowerIsBetter, float64(r.Sender.UDP.SndbufErrors))
}

// runFiles are one run's archive files: netperf's output and both ends'
// counters before and after. The first is netperf's output.
func runFiles(i int, r netperfRun) ([]report.ArchiveFile, error) {
	files := []report.ArchiveFile{
		{Name: fmt.Sprintf("raw/%d/netperf.stdout", i), Data: r.Result.Stdout},
		{Name: fmt.Sprintf("raw/%d/netperf.stderr", i), Data: r.Result.Stderr},
	}
	for _, s := range []struct {
		name string
		v    runbook.Counters
	}{{"near-before", r.NearBefore}, {"near-after", r.NearAfter}, {"far-before", r.FarBefore}, {"far-after", r.FarAfter}} {
		f, err := report.JSONFile(fmt.Sprintf("snapshots/%d/%s.json", i, s.name), s.v)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// hostState is the governors and irqbalance of the far end at the round
// start; when they could not be read, only what SetGovernor reported is
// known.
func (t *tuner) hostState(res *roundResult) (governors []irq.CPUGovernor, irqbalance []int, known bool) {
	if h := res.FarHost; h != nil {
		return h.Governors, h.IRQBalance, true
	}
	if g := t.governor; g != nil && g.Set {
		for _, r := range g.Replaced {
			governors = append(governors, irq.CPUGovernor{CPU: r.CPU, Governor: t.c.Governor})
		}
	}
	return governors, nil, false
}

// fingerprint records the round's environment: both netdevs, the
// receiver's IRQ placement, governors, irqbalance, and the exact netserver
// and netperf command lines.
func (t *tuner) fingerprint(res *roundResult, opts netperf.Options, srv *netperf.Netserver) *report.Fingerprint {
	gs, pids, known := t.hostState(res)
	fp := &report.Fingerprint{
		NICs: []report.NICFingerprint{report.NICFromSnapshot(t.sides.Near.Name(), res.Near.Snapshot),
			report.NICFromSnapshot(t.sides.Far.Name(), res.Far.Snapshot)},
		Governor:     report.GovernorSummary(gs),
		IRQPlacement: report.IRQPlacementSummary(res.Receiver.Distribution),
		Argv:         []report.SideArgv{t.argv("server", t.sides.Far, srv.Process().Argv(), res), t.argv("client", t.sides.Near, opts.Argv(), res)},
	}
	if known {
		fp.IRQBalance = report.IRQBalanceState(pids)
	}
	fp.Kernel = hostsKernel(t.hosts)
	return fp
}

// argv is a side's command line as it can be run again: in the far
// namespace through ip netns exec, on a peer over SSH; with the netdev
// MTU and the socket buffer limits the round ran with, which the
// archive's rerun.sh sets first.
func (t *tuner) argv(role string, s runbook.Side, argv []string, res *roundResult) report.SideArgv {
	a := report.SideArgv{Role: role, Argv: argv}
	end, netdev, mtu := 0, t.sides.NearNetdev, res.Near.Snapshot.MTU
	if s == t.sides.Far {
		end, netdev, mtu = 1, t.sides.FarNetdev, res.Far.Snapshot.MTU
	}
	if mtu > 0 {
		a.MTUs = []report.NetdevMTU{{Netdev: netdev, MTU: mtu}}
	}
	// raiseLimits sets them here, and on the far end only when it is
	// another host (a namespace shares them).
	if t.limit > 0 && (end == 0 || t.sides.Mode == runbook.TwoHosts) {
		for _, key := range []string{"net.core.rmem_max", "net.core.wmem_max"} {
			v := strconv.Itoa(t.limit)
			if end < len(t.hosts) && t.hosts[end].Sysctls[key] != "" {
				v = t.hosts[end].Sysctls[key]
			}
			a.Sysctls = append(a.Sysctls, report.Param{Key: key, Value: v})
		}
	}
	if end == 0 {
		return a
	}
	switch t.sides.Mode {
	case runbook.TwoNetns:
		a.Netns = t.c.PeerNetns
		a.Argv = append([]string{"ip", "netns", "exec", t.c.PeerNetns}, argv...)
	case runbook.TwoHosts:
		a.Host = t.c.Peer
	}
	return a
}

// ruleGovernorNotSet is this example's finding for a round C whose
// governor could not be set (no cpufreq): the round differs from B only
// by the IRQ spread.
const ruleGovernorNotSet = "governor_not_set"

// diagnose runs the rules on the round and the receiver's counters.
func (t *tuner) diagnose(res *roundResult) []report.Finding {
	gs, pids, _ := t.hostState(res)
	hot := res.Receiver.Load.Hot()
	in := report.DiagnosisInput{Round: &res.Round, NICDelta: &res.Receiver.Stats, UDP: &res.Receiver.UDP,
		Distribution: &res.Receiver.Distribution, Hot: &hot, Governors: gs,
		IRQBalancePIDs: pids, AffinitySet: t.spread, ThroughputMetric: "recv_throughput",
		Link: res.Far.Snapshot.Link}
	fs := report.Diagnose(in)
	if res.Spec.Spread && !res.GovernorSet {
		reason := "not reported"
		if t.governor != nil {
			reason = t.governor.Reason
		}
		fs = append(fs, report.Finding{Rule: ruleGovernorNotSet, Severity: report.SeverityInfo,
			Summary: fmt.Sprintf("governor %s not set on the receiver: %s", t.c.Governor, reason),
			Action:  "nothing to do in a VM; on hardware, load the cpufreq driver (intel_pstate, acpi-cpufreq)"})
	}
	return fs
}
