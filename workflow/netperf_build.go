package workflow

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/ownfile"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// build makes the round from the runs: netperf's numbers, the receiver's
// counters (and the sender's drop counters) per run, the parameters, the
// fingerprint, the verdict, the findings and the archive files.
func (t *udpTuner) build(ctx context.Context, s UDPRound, opts netperf.Options, srv netserverArgv, runs []netperfRun, res *UDPRoundResult) error {
	var ok []netperfRun
	results := make([]*netperf.Result, len(runs))
	for i, r := range runs {
		results[i] = r.Result
		files, err := udpRunFiles(i, r)
		if err != nil {
			return err
		}
		res.Files = append(res.Files, files...)
		if r.Err == nil {
			ok = append(ok, r)
		}
	}
	if len(ok) == 0 {
		return fmt.Errorf("%w: %d of %d (%v)", errUDPAllFailed, len(runs), len(runs), runs[0].Err)
	}
	start := runs[0].NearBefore.Time
	round, err := report.FromNetperf(s.Name(), start, results...)
	if err != nil {
		return err
	}
	round.DurationSec = runs[len(runs)-1].NearAfter.Time.Sub(start).Seconds()
	var self runbook.Pairs // rocekit's own CPU over the runs, per host
	for _, r := range runs {
		round.ToolSec += r.Took.Seconds()
		self.NearCPU += r.NearCPU
		self.FarCPU += r.FarCPU
	}
	round.SelfCPUSec = self.SelfCPUSec(t.sides)
	t.setParams(&round, s, opts, res.Far.Snapshot.MTU, len(runs))
	for i, r := range runs {
		if r.Err != nil {
			continue
		}
		if err := udpAddCounters(&round, r); err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		if err := udpAddSocket(&round, r.Socket); err != nil {
			return err
		}
		round.Outputs = append(round.Outputs, report.Output{Repeat: i, Role: "client", Stream: "stdout", Path: fmt.Sprintf("raw/%d/netperf.stdout", i)})
		if err := round.AddNetperfInterims(i, r.Result); err != nil {
			return fmt.Errorf("run %d interims: %w", i+1, err)
		}
		if r.Socket != nil {
			res.Sockets = append(res.Sockets, *r.Socket)
		}
	}
	first, last := ok[0], ok[len(ok)-1]
	if res.Receiver, err = last.FarAfter.Sub(first.FarBefore, res.Far); err != nil {
		return fmt.Errorf("receiver counters: %w", err)
	}
	if res.Sender, err = last.NearAfter.Sub(first.NearBefore, res.Near); err != nil {
		return fmt.Errorf("sender counters: %w", err)
	}
	udpAddFrameSize(&round, res.Receiver)
	round.Fingerprint = t.fingerprint(ctx, res, opts, srv)
	round.Bottleneck = report.Bottleneck(report.BottleneckInput{Round: &round,
		Ends: []report.End{{Host: t.sides.Near.Name(), Snapshot: res.Near.Snapshot}, {Host: t.sides.Far.Name(), Snapshot: res.Far.Snapshot}},
		Loads: []report.HostLoad{res.Receiver.HostLoad(t.sides.Far.Name()+" (receiver)", res.Far),
			res.Sender.HostLoad(t.sides.Near.Name()+" (sender)", res.Near)},
		NICDelta: &res.Receiver.Stats, UDP: &res.Receiver.UDP})
	res.GovernorSet = s.Spread && t.governor != nil && t.governor.Set
	// The drift check's and the kernel log's findings, then the round's.
	round.Findings = append(slices.Clone(res.Round.Findings), t.diagnose(&round, res)...)
	for _, e := range []struct {
		where string
		g     runbook.Growth
	}{{t.sides.Far.Name() + " " + res.Far.Snapshot.Netdev, res.Receiver}, {t.sides.Near.Name() + " " + res.Near.Snapshot.Netdev, res.Sender}} {
		if e.g.AER != nil {
			round.Findings = append(round.Findings, report.CheckAER(e.where, *e.g.AER)...)
		}
	}
	if s.Letter == t.o.Rounds[0].Letter {
		round.Findings = append(round.Findings, t.preflightFindings()...)
	}
	res.Round = round
	growth, err := report.JSONFile("snapshots/growth.json", map[string]runbook.Growth{"receiver": res.Receiver, "sender": res.Sender})
	if err != nil {
		return err
	}
	res.Files = append(res.Files, growth)
	return nil
}

// setParams records how the round ran: its letter, the mode, the far
// netdev's MTU, the socket buffer and message size asked, the run length
// and count.
func (t *udpTuner) setParams(round *report.Round, s UDPRound, opts netperf.Options, mtu, count int) {
	round.SetParam(report.ParamRound, s.Letter)
	round.SetParam(report.ParamMode, string(t.sides.Mode))
	round.SetParam(report.ParamNetdevMTU, strconv.Itoa(mtu))
	round.SetParam(report.ParamSockbuf, strconv.Itoa(opts.RemoteSocketBuffer))
	msg := "default" // netperf's own: the socket buffer
	if opts.MessageSize > 0 {
		msg = strconv.Itoa(opts.MessageSize)
	}
	round.SetParam(report.ParamMsgSize, msg)
	round.SetParam(report.ParamLengthSec, strconv.Itoa(int(opts.Length.Seconds())))
	round.SetParam(report.ParamCount, strconv.Itoa(count))
}

// udpAddCounters adds one run's counters to the round: the receiver's NIC
// losses, UDP errors, CPU load and queue interrupts per CPU, and the
// sender's NIC losses and UDP send-buffer errors (near_*).
func udpAddCounters(round *report.Round, r netperfRun) error {
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

// udpAddFrameSize records the receiver's mean frame size over the round
// (rx_bytes / rx_packets of its link counters), the evidence that an MTU
// round sent frames above 1500 bytes.
func udpAddFrameSize(round *report.Round, g runbook.Growth) {
	var bytes, packets uint64
	for _, c := range g.Stats.Counters {
		if c.Source != nic.SourceLink {
			continue
		}
		switch c.Name {
		case "rx_bytes":
			bytes = c.Delta
		case "rx_packets":
			packets = c.Delta
		}
	}
	if packets > 0 {
		round.AddValue(report.MetricRecvFrameMean, nil, report.UnitBytes, report.BetterUnknown, float64(bytes)/float64(packets))
	}
}

// udpRunFiles are one run's archive files: netperf's output and both ends'
// counters before and after.
func udpRunFiles(i int, r netperfRun) ([]report.ArchiveFile, error) {
	var files []report.ArchiveFile
	if r.Result != nil {
		files = append(files, report.ArchiveFile{Name: fmt.Sprintf("raw/%d/netperf.stdout", i), Data: r.Result.Stdout},
			report.ArchiveFile{Name: fmt.Sprintf("raw/%d/netperf.stderr", i), Data: r.Result.Stderr})
	}
	snaps := []struct {
		name string
		v    any
	}{{"near-before", r.NearBefore}, {"near-after", r.NearAfter}, {"far-before", r.FarBefore}, {"far-after", r.FarAfter}}
	if r.Socket != nil {
		snaps = append(snaps, struct {
			name string
			v    any
		}{"netserver-socket", r.Socket})
	}
	for _, s := range snaps {
		f, err := report.JSONFile(fmt.Sprintf("snapshots/%d/%s.json", i, s.name), s.v)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// save writes the round's archive (Out), then appends the round to the
// store, so that every stored round has its archive, and compares it
// with the store's previous round of its name.
func (t *udpTuner) save(res *UDPRoundResult) error {
	if t.o.Store != nil {
		prev, ok, err := t.o.Store.Previous(res.Round)
		if err != nil {
			return err
		}
		if ok {
			c := report.Compare(prev, res.Round, report.CompareOptions{})
			res.Previous, res.Comparison = &prev, &c
		}
	}
	if t.o.Out != "" {
		var b bytes.Buffer
		if err := report.WriteArchive(&b, res.Round, res.Files); err != nil {
			return err
		}
		if err := ownfile.MkdirAll(t.o.Out); err != nil {
			return err
		}
		res.Archive = filepath.Join(t.o.Out, res.Round.Name+".tar.gz")
		if err := ownfile.WriteFile(res.Archive, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if t.o.Store != nil {
		return t.o.Store.Append(res.Round)
	}
	return nil
}

// fingerprint records the round's environment: both netdevs (driver,
// firmware), the receiver's IRQ placement, governors, irqbalance, both
// kernels, netperf's and netserver's versions, and the exact command
// lines, as rerun.sh runs them again.
func (t *udpTuner) fingerprint(ctx context.Context, res *UDPRoundResult, opts netperf.Options, srv netserverArgv) *report.Fingerprint {
	gs, pids, known := t.hostState(res)
	fp := &report.Fingerprint{
		NICs: []report.NICFingerprint{report.NICFromSnapshot(t.sides.Near.Name(), res.Near.Snapshot),
			report.NICFromSnapshot(t.sides.Far.Name(), res.Far.Snapshot)},
		Governor:     report.GovernorSummary(gs),
		IRQPlacement: report.IRQPlacementSummary(res.Receiver.Distribution),
		// The server's own command line, not the runner's: a peer runs it
		// through its agent (rocekit-peer exec), which rerun.sh does not.
		Argv:   []report.SideArgv{t.argv("server", t.sides.Far, srv.Argv(), res), t.argv("client", t.sides.Near, opts.Argv(), res)},
		Kernel: udpHostsKernel(t.o.Preflight),
	}
	if fp.Kernel == "" {
		fp.Kernel = udpHostsKernel(t.kernels)
	}
	if known {
		fp.IRQBalance = report.IRQBalanceState(pids)
	}
	fp.Tools = t.versions(ctx, res)
	return fp
}

// netserverArgv is how netserver was started.
type netserverArgv netperf.ServerOptions

// Argv is netserver's command line as StartNetserver ran it.
func (n netserverArgv) Argv() []string { o := netperf.ServerOptions(n); return o.Argv() }

// versions are netperf's on the near end and netserver's on the far one
// (netperf -V, netserver -V), read once per run; one that cannot be read
// is a note.
func (t *udpTuner) versions(ctx context.Context, res *UDPRoundResult) []report.Param {
	if t.tools == nil {
		for _, v := range []struct {
			key  string
			side runbook.Side
			argv []string
		}{{"netperf", t.sides.Near, []string{"netperf", "-V"}}, {"netserver", t.sides.Far, []string{"netserver", "-V"}}} {
			ver, err := toolVersion(ctx, v.side, v.argv)
			if err != nil {
				t.toolNotes = append(t.toolNotes, fmt.Sprintf("%s version on %s not read: %v", v.key, v.side.Name(), err))
				continue
			}
			t.tools = append(t.tools, report.Param{Key: v.key + "[" + v.side.Name() + "]", Value: ver})
		}
		if t.tools == nil {
			t.tools = []report.Param{}
		}
		if len(t.tools) == 2 && t.tools[0].Value != t.tools[1].Value {
			res.Round.Findings = append(res.Round.Findings, report.Finding{Rule: RuleNetperfVersions, Severity: report.SeverityWarning,
				Summary:  fmt.Sprintf("netperf %s on %s against netserver %s on %s", t.tools[0].Value, t.sides.Near.Name(), t.tools[1].Value, t.sides.Far.Name()),
				Evidence: []report.Evidence{}, Action: "install one netperf release on both ends: netperf's control messages differ between releases, and a mismatch fails or misreports tests"})
		}
	}
	res.Notes = append(res.Notes, t.toolNotes...)
	return t.tools
}

// RuleNetperfVersions is the finding of netperf and netserver of two
// releases, given with the first round.
const RuleNetperfVersions = "netperf_versions_differ"

// toolVersion runs a -V and returns the version it prints, read by
// netperf.Parse ("2.7.0" of "Netperf version 2.7.0"; netserver -V prints
// the same line).
func toolVersion(ctx context.Context, side runbook.Side, argv []string) (string, error) {
	// Bounded: a build whose -V does not exit must not hold the round.
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := udpRunOutput(ctx, side, argv)
	if err != nil {
		return "", err
	}
	res, err := netperf.Parse(strings.NewReader(out))
	if err != nil || res.Version == "" {
		return "", fmt.Errorf("no version in %q", strings.TrimSpace(out))
	}
	return res.Version, nil
}

// argv is a side's command line as it can be run again: in the far
// namespace through ip netns exec, on a peer over SSH; with the netdev
// MTU and the socket buffer limits the round ran with, which the
// archive's rerun.sh sets first.
func (t *udpTuner) argv(role string, s runbook.Side, argv []string, res *UDPRoundResult) report.SideArgv {
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
			if end < len(t.o.Preflight) && t.o.Preflight[end].Sysctls[key] != "" {
				v = t.o.Preflight[end].Sysctls[key]
			}
			a.Sysctls = append(a.Sysctls, report.Param{Key: key, Value: v})
		}
	}
	if end == 0 {
		return a
	}
	switch t.sides.Mode {
	case runbook.TwoNetns:
		if l, ok := s.(*runbook.Local); ok && l.Netns != "" {
			a.Netns = l.Netns
			a.Argv = append([]string{"ip", "netns", "exec", l.Netns}, argv...)
		}
	case runbook.TwoHosts:
		a.Host = t.o.FarTarget
		if a.Host == "" {
			a.Host = strings.TrimPrefix(s.Name(), "ssh ")
		}
		if p, ok := s.(*runbook.Peer); ok && p.Netns != "" {
			a.Netns = p.Netns
			a.Argv = append([]string{"ip", "netns", "exec", p.Netns}, argv...)
		}
	}
	return a
}

// udpHostsKernel is the kernel of both ends, once when they agree.
func udpHostsKernel(hosts []report.HostFacts) string {
	var ks []string
	for _, h := range hosts {
		if h.Kernel != "" && (len(ks) == 0 || !strings.HasSuffix(ks[0], " "+h.Kernel)) {
			ks = append(ks, h.Role+" "+h.Kernel)
		}
	}
	if len(ks) == 1 {
		return hosts[0].Kernel
	}
	return strings.Join(ks, ", ")
}
