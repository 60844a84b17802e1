// Command qp-scaling measures how soft-RoCE bandwidth scales with the
// number of queue pairs, and which core the softirq work lands on:
//
//  1. make sure rdma_rxe is usable (load it if needed) on both ends, create
//     an rxe link on the netdev of each end or reuse the one there, set the
//     netdev's MTU when asked (-mtu), wait for the ports to be ACTIVE and
//     pick the RoCE v2 GID on each end,
//  2. for each QP count of -qps: read both ends' counters (CPU load,
//     interrupts, NIC and UDP counters), run ib_send_bw -q N pairs -count
//     times (server on the far end, client here), read the counters again,
//  3. make one round per QP count ("ib_send_bw_q4", parameter qps), with
//     this end's per-CPU load over the step (cpu_soft, cpu_irq,
//     cpu_soft_max), and append it to the store (-store),
//  4. compute the scaling efficiency of each step, bw(N) / (N × bw(1))
//     (against the first QP count of -qps when it is not 1), and the knee:
//     the QP count past which adding QPs gains less than 10 %
//     (report.CheckQPScaling), and name the hot softirq core of each end,
//  5. write to -out: report.md (also printed), report.html (one page, the
//     pictures inline), qps.svg (against the ideal, the knee marked),
//     cpu-ROUND.svg, summary.json and one reproducibility archive per round
//     (ib_send_bw_q4.tar.gz).
//
// The far end is, by the flags:
//
//	(none)                 loopback: server and client on this host's rxe link
//	-peer-netns NS         a network namespace here, on -peer-netdev
//	-peer root@host        another host over SSH, configured by rocekit-peer there
//
// Every change (rxe links, MTUs) is journaled and undone on exit, also on
// Ctrl-C; after a crash, the next run (or tune.Recover on -journal, and
// "rocekit-peer restore" on the peer) undoes what was left.
//
// Flags, besides the shared ones (-netdev, -peer, -peer-netns,
// -peer-netdev, -journal, -timeout, ...):
//
//	-rxe NAME      rxe link to create when the netdev has none (rxe0)
//	-mtu N         netdev MTU on both ends for the run (0: leave it)
//	-qps LIST      QP counts, comma-separated (1,2,4,8)
//	-count N       ib_send_bw runs per QP count, each with a fresh pair (3)
//	-n N           iterations per run (10000)
//	-store FILE    round store, appended (rocekit-rounds.jsonl)
//	-out DIR       folder for the report, plot, summary and archives (qp-scaling-out)
//
// Usage, as root:
//
//	go run ./examples/qp-scaling -netdev eth0 [-qps 1,2,4,8] [-mtu 9000] [-count 3]
//	go run ./examples/qp-scaling -netdev eth0 -peer root@198.18.0.2 -qps 1,2,4,8,16
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
	"github.com/rocekit/rocekit/report/plot"
	"github.com/rocekit/rocekit/runbook"
)

// config is what the flags set.
type config struct {
	cli.Flags
	RXE        string
	MTU        int
	QPs        string
	Count      int
	Iterations int
	QPTimeout  int
	Store      string
	Out        string
}

// metric is the metric the steps compare: ib_send_bw's default size.
const metric = "bw_avg/size=65536"

func main() {
	var c config
	c.Register(flag.CommandLine)
	flag.StringVar(&c.RXE, "rxe", "rxe0", "rxe link name to create when the netdev has none")
	flag.IntVar(&c.MTU, "mtu", 0, "netdev MTU on both ends for the run (0: leave it); restored on exit")
	flag.StringVar(&c.QPs, "qps", "1,2,4,8", "QP counts (ib_send_bw -q), comma-separated; run smallest first")
	flag.IntVar(&c.Count, "count", 3, "ib_send_bw runs per QP count, each with a fresh pair")
	flag.IntVar(&c.Iterations, "n", 10000, "iterations per run (-n)")
	flag.IntVar(&c.QPTimeout, "qp-timeout", 0, "perftest -u: QP timeout exponent, 4.096 us * 2^N (0: perftest's 14, 67 ms); raise it on emulated or loaded hosts (the lab uses 22)")
	flag.StringVar(&c.Store, "store", "rocekit-rounds.jsonl", "round store (appended)")
	flag.StringVar(&c.Out, "out", "qp-scaling-out", "folder for report.md, report.html, qps.svg, summary.json and the round archives")
	cli.Parse("qp-scaling")
	cli.Main("qp-scaling", c.Timeout, func(ctx context.Context) error { return run(ctx, c, os.Stdout, os.Stderr) })
}

// validate checks every flag, touching nothing: run calls it before
// anything is read, loaded or changed.
func (c config) validate() error {
	_, qpsErr := parseQPs(c.QPs)
	return errors.Join(c.Flags.Validate(), cli.RDMADevice("-rxe", c.RXE), cli.MTU("-mtu", c.MTU), qpsErr,
		cli.AtLeast("-count", c.Count, 1), cli.Iterations("-n", c.Iterations), cli.QPTimeout("-qp-timeout", c.QPTimeout))
}

// run does the QP steps and restores every change it made before it
// returns, whatever happened.
func run(ctx context.Context, c config, out, progress io.Writer) (err error) {
	if err := c.validate(); err != nil {
		return err
	}
	qps, _ := parseQPs(c.QPs) // validated
	sides, err := c.OpenChecked(ctx, c.Out, c.Store, progress)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, sides.Restore()) }()

	prog := cli.NewProgress(progress, 1+len(qps)*c.Count)
	prog.Step("prepare rxe")
	if err := sides.PrepareRXE(ctx, c.RXE, c.MTU, nil); err != nil {
		return err
	}
	far, near := sides.FarRXE, sides.NearRXE
	ends, err := newEnds(ctx, sides)
	if err != nil {
		return err
	}
	var md strings.Builder
	w := io.MultiWriter(out, &md)
	writeHeader(w, c, sides, far, near)
	sc := &scaler{c: c, sides: sides, far: far, near: near, ends: ends, prog: prog, store: report.OpenStore(c.Store)}
	var rounds []report.Round
	var steps []step
	for _, q := range qps {
		s, round, err := sc.measure(ctx, q)
		if err != nil {
			return err
		}
		if round != nil {
			rounds = append(rounds, *round)
		}
		steps = append(steps, s)
	}
	prog.Done()
	return writeOutputs(w, &md, c, sides.Mode, rounds, steps)
}

// writeHeader says where the steps run and what they measure.
func writeHeader(w io.Writer, c config, sides *runbook.Sides, far, near runbook.RXEInfo) {
	fmt.Fprintf(w, "# soft-RoCE QP scaling (%s)\n\n", sides.Mode)
	fmt.Fprintf(w, "- server %s: %s on %s (%s, MTU %d), GID index %d: %s\n", sides.Far.Name(), far.Device, far.Netdev, far.Addr, far.NetdevMTU, far.GID.Entry.Index, far.GID.Reason)
	fmt.Fprintf(w, "- client %s: %s on %s (%s, MTU %d), GID index %d: %s\n", sides.Near.Name(), near.Device, near.Netdev, near.Addr, near.NetdevMTU, near.GID.Entry.Index, near.GID.Reason)
	fmt.Fprintf(w, "- ib_send_bw, 65536 B messages, %d runs of %d iterations per QP count\n\n", c.Count, c.Iterations)
}

// scaler measures one QP count after the other on prepared sides.
type scaler struct {
	c         config
	sides     *runbook.Sides
	far, near runbook.RXEInfo
	ends      *ends
	prog      *cli.Progress
	store     *report.Store
}

// measure runs -count pairs with q QPs and saves the round and its
// archive. A step whose every run failed in perftest has no round (nil),
// but stays in the report, with both sides' outputs kept.
func (sc *scaler) measure(ctx context.Context, q int) (step, *report.Round, error) {
	opts := runbook.PerftestOptions(perftest.Options{Test: perftest.SendBW, Iterations: sc.c.Iterations, QPTimeout: sc.c.QPTimeout, QPs: q,
		ReportGbits: true, NoFreqCheck: true}, sc.sides, sc.far, sc.near)
	start := time.Now()
	before := sc.ends.read(ctx)
	s := step{QPs: q, Runs: sc.c.Count}
	ps, err := cli.RunPairs(ctx, sc.sides, sc.far, opts, sc.c.Count, sc.prog, fmt.Sprintf("%d QPs", q)+": ib_send_bw", sc.c.Out)
	s.Failures = ps.Failures
	if err != nil {
		return s, nil, err
	}
	s.Retransmit = ps.Findings(fmt.Sprintf("%d QPs", q), opts.QPTimeout)
	after := sc.ends.read(ctx)
	if len(s.Failures) == sc.c.Count {
		return s, nil, cli.KeepFailedPairs(sc.c.Out, fmt.Sprintf("q%d", q), ps.Pairs)
	}
	round, err := report.FromPerftest(fmt.Sprintf("%s_q%d", perftest.SendBW.Program(), q), start, ps.Results...)
	if err != nil {
		return s, nil, fmt.Errorf("%d QPs: %w (%s)", q, err, strings.Join(s.Failures, "; "))
	}
	round.DurationSec = time.Since(start).Seconds()
	round.ToolSec = ps.ToolSec()
	if _, ok := round.Param("qps"); !ok {
		round.SetParam("qps", fmt.Sprint(q))
	}
	round.SetParam("mode", string(sc.sides.Mode))
	round.SetParam("netdev_mtu", fmt.Sprint(sc.near.NetdevMTU))
	var loads []report.HostLoad
	s.NearHot, s.FarHot, loads = sc.ends.hot(&round, before, after)
	round.Bottleneck = report.Bottleneck(report.BottleneckInput{Round: &round, Ends: sc.ends.reportEnds(), Loads: loads})
	s.observe(round)
	files, err := cli.PairsFiles(&round, ps)
	if err != nil {
		return s, nil, err
	}
	return s, &round, cli.SaveRound(sc.store, sc.c.Out, round, files)
}

// ends are the two ends' netdevs, whose counters each step compares. In
// loopback there is one end, read once.
type ends struct {
	sides     *runbook.Sides
	near, far runbook.NetdevInfo
}

// endCounters are the counters of both ends at one moment, with the error
// of each read (a step goes on without them).
type endCounters struct {
	near, far       runbook.Counters
	nearErr, farErr error
}

// newEnds describes both ends' netdevs once, for runbook.Between.
func newEnds(ctx context.Context, sides *runbook.Sides) (*ends, error) {
	e := &ends{sides: sides}
	var err error
	if e.far, err = sides.Far.Netdev(ctx, sides.FarNetdev); err != nil {
		return nil, fmt.Errorf("%s: %w", sides.Far.Name(), err)
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
func (e *ends) read(ctx context.Context) endCounters {
	var c endCounters
	c.far, c.farErr = e.sides.Far.Counters(ctx, e.sides.FarNetdev)
	if e.sides.Mode == runbook.Loopback {
		c.near, c.nearErr = c.far, c.farErr
		return c
	}
	c.near, c.nearErr = e.sides.Near.Counters(ctx, e.sides.NearNetdev)
	return c
}

// hot finds each end's hot softirq core between two reads and adds this
// end's per-CPU load to the round. What could not be read becomes a round
// warning and a nil core.
func (e *ends) hot(r *report.Round, before, after endCounters) (near, far *irq.HotCore, loads []report.HostLoad) {
	load := func(end string, dev runbook.NetdevInfo, b, a runbook.Counters, errs ...error) (*irq.Load, bool) {
		if err := errors.Join(errs...); err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s counters: %v", end, err))
		}
		if b.Load.Time.IsZero() || a.Load.Time.IsZero() {
			return nil, false
		}
		g, err := runbook.Between(dev, b, a)
		if err != nil {
			// The NIC counters did not compare; the CPU load still does.
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s counters: %v", end, err))
			l := irq.LoadBetween(b.Load, a.Load)
			return &l, true
		}
		return &g.Load, true
	}
	nl, ok := load("near", e.near, before.near, after.near, before.nearErr, after.nearErr)
	if ok {
		h := nl.Hot()
		near = &h
		if err := r.AddCPULoad(*nl); err != nil {
			r.Warnings = append(r.Warnings, "cpu load: "+err.Error())
		}
		loads = append(loads, report.HostLoad{Host: e.sides.Near.Name(), Load: *nl, LocalCPUs: e.near.LocalCPUs})
	}
	if e.sides.Mode == runbook.Loopback {
		return near, near, loads
	}
	if fl, ok := load("far", e.far, before.far, after.far, before.farErr, after.farErr); ok {
		h := fl.Hot()
		far = &h
		loads = append(loads, report.HostLoad{Host: e.sides.Far.Name(), Load: *fl, LocalCPUs: e.far.LocalCPUs})
	}
	return near, far, loads
}

// reportEnds are both netdevs as report.Bottleneck takes them.
func (e *ends) reportEnds() []report.End {
	out := []report.End{{Host: e.sides.Near.Name(), Snapshot: e.near.Snapshot}}
	if e.sides.Mode != runbook.Loopback {
		out = append(out, report.End{Host: e.sides.Far.Name(), Snapshot: e.far.Snapshot})
	}
	return out
}

// writeOutputs prints the table and the findings, then writes report.md,
// qps.svg and summary.json to -out.
func writeOutputs(w io.Writer, md *strings.Builder, c config, mode runbook.Mode, rounds []report.Round, steps []step) error {
	sc := analyse(steps, report.DefaultThresholds.MinQPGain)
	findings := qpFindings(rounds, steps, sc, mode)
	writeTable(w, steps, sc, mode)
	fmt.Fprintf(w, "%s\n\n", kneeText(steps, sc))
	fmt.Fprintf(w, "## Rounds side by side\n\n")
	if err := report.WriteSideBySideMarkdown(w, rounds); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n## Findings\n\n")
	report.WriteFindingsMarkdown(w, findings)
	fmt.Fprintln(w)
	// The store holds this run's rounds too; Previous takes earlier ones.
	if err := report.WriteAgainstPrevious(w, report.OpenStore(c.Store), rounds); err != nil {
		return err
	}
	var figs []plot.Figure
	if fig, err := plot.QPScaling(rounds, metric, report.DefaultThresholds.MinQPGain); err != nil {
		// Emulated clocks can leave a metric without any finite value;
		// the report says so instead of failing the whole run.
		fmt.Fprintf(w, "No plot: %v\n\n", err)
	} else {
		figs = append(figs, fig)
	}
	for _, r := range rounds {
		if fig, err := plot.CPULoad(r, plot.CPULoadOptions{Name: "cpu-" + r.Name}); err == nil {
			figs = append(figs, fig)
		}
	}
	if _, err := cli.WriteFile(c.Out, "summary.json", func(f io.Writer) error {
		e := json.NewEncoder(f)
		e.SetIndent("", "  ")
		return e.Encode(buildSummary(mode, steps, sc, findings))
	}); err != nil {
		return err
	}
	var answers strings.Builder
	if err := report.WriteAnswersMarkdown(&answers, rounds); err != nil {
		return err
	}
	text := answers.String() + md.String() // the runbook's questions first
	if _, err := cli.WriteFile(c.Out, "report.md", func(f io.Writer) error {
		_, err := io.WriteString(f, text)
		return err
	}); err != nil {
		return err
	}
	// report.html, qps.svg and cpu-ROUND.svg: the pictures inline, findings first.
	return page.WriteFiles(c.Out, page.Page{Title: fmt.Sprintf("soft-RoCE QP scaling (%s)", mode),
		Sections: []page.Section{{Title: "qp-scaling", Findings: findings, Rounds: rounds, Figures: figs, Markdown: text}}})
}

// writeTable prints one line per QP count.
func writeTable(w io.Writer, steps []step, sc scaling, mode runbook.Mode) {
	fmt.Fprintf(w, "## Bandwidth by QP count (%s)\n\n", metric)
	fmt.Fprintf(w, "| QPs | failed runs | median | efficiency | gain over previous | hot softirq core (client) | hot softirq core (server) |\n")
	fmt.Fprintf(w, "|--:|--:|--:|--:|--:|---|---|\n")
	for i, s := range steps {
		med := "—"
		if s.Median != nil {
			med = fmt.Sprintf("%.4g %s", *s.Median, s.Unit)
		}
		far := hotText(s.FarHot)
		if mode == runbook.Loopback {
			far = "(same host)"
		}
		fmt.Fprintf(w, "| %d | %d of %d | %s | %s | %s | %s | %s |\n", s.QPs, len(s.Failures), s.Runs, med, ratioText(sc.Efficiency[i], "%.0f%%", 100),
			ratioText(sc.Gain[i], "×%.2f", 1), hotText(s.NearHot), far)
	}
	fmt.Fprintln(w)
}

func ratioText(v *float64, format string, scale float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf(format, *v*scale)
}

func hotText(h *irq.HotCore) string {
	if h == nil {
		return "not measured"
	}
	return h.String()
}
