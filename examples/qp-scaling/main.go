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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/progress"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
	"github.com/rocekit/rocekit/report/plot"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// config is what the flags set.
type config struct {
	cli.StepFlags
	MTU int
	QPs string
}

// metric is the metric the steps compare: ib_send_bw's default size.
const metric = "bw_avg/size=65536"

func main() {
	var c config
	c.RegisterSteps(flag.CommandLine, "ib_send_bw runs per QP count, each with a fresh pair",
		"qp-scaling-out", "folder for report.md, report.html, qps.svg, summary.json and the round archives")
	flag.IntVar(&c.MTU, "mtu", 0, "netdev MTU on both ends for the run (0: leave it); restored on exit")
	flag.StringVar(&c.QPs, "qps", "1,2,4,8", "QP counts (ib_send_bw -q), comma-separated; run smallest first")
	cli.Parse("qp-scaling")
	cli.Main("qp-scaling", c.Timeout, func(ctx context.Context) error { return run(ctx, c, os.Stdout, os.Stderr) })
}

// validate checks every flag, touching nothing: run calls it before
// anything is read, loaded or changed.
func (c config) validate() error {
	_, qpsErr := parseQPs(c.QPs)
	return errors.Join(c.StepFlags.Validate(), cli.MTU("-mtu", c.MTU), qpsErr)
}

// run does the QP steps and restores every change it made before it
// returns, whatever happened.
func run(ctx context.Context, c config, out, status io.Writer) error {
	return c.OpenRun(ctx, c.validate, status, func(sides *runbook.Sides) error { return scale(ctx, c, sides, out, status) })
}

// scale measures every QP count on the opened sides and writes the
// outputs.
func scale(ctx context.Context, c config, sides *runbook.Sides, out, status io.Writer) error {
	qps, _ := parseQPs(c.QPs) // validated
	prog := progress.New(status, 1+len(qps)*c.Count)
	prog.Step("prepare rxe")
	if err := sides.PrepareRXE(ctx, c.RXE, c.MTU, nil); err != nil {
		return err
	}
	var md strings.Builder
	w := io.MultiWriter(out, &md)
	writeHeader(w, c, sides)
	sc := &scaler{c: c, sides: sides, prog: prog, store: report.OpenStore(c.Store), last: qps[len(qps)-1]}
	for _, q := range qps {
		if err := sc.measure(ctx, q); err != nil {
			return err
		}
	}
	prog.Done()
	return writeOutputs(w, &md, c, sides.Mode, sc.rounds, sc.steps)
}

// writeHeader says where the steps run and what they measure.
func writeHeader(w io.Writer, c config, sides *runbook.Sides) {
	far, near := sides.FarRXE, sides.NearRXE
	fmt.Fprintf(w, "# soft-RoCE QP scaling (%s)\n\n", sides.Mode)
	fmt.Fprintf(w, "- server %s: %s on %s (%s, MTU %d), GID index %d: %s\n", sides.Far.Name(), far.Device, far.Netdev, far.Addr, far.NetdevMTU, far.GID.Entry.Index, far.GID.Reason)
	fmt.Fprintf(w, "- client %s: %s on %s (%s, MTU %d), GID index %d: %s\n", sides.Near.Name(), near.Device, near.Netdev, near.Addr, near.NetdevMTU, near.GID.Entry.Index, near.GID.Reason)
	fmt.Fprintf(w, "- ib_send_bw, 65536 B messages, %d runs of %d iterations per QP count\n\n", c.Count, c.Iterations)
}

// scaler measures one QP count after the other on prepared sides.
type scaler struct {
	c      config
	sides  *runbook.Sides
	prog   *progress.Printer
	store  *report.Store
	last   int // the largest QP count: its round stores the rules over all
	rounds []report.Round
	steps  []step
}

// measure runs the workflow step of q QPs: -count pairs with both ends'
// CPU load, the round with its findings, archived, stored. A step whose
// every run failed has no round, but stays in the report with its
// critical finding, both sides' outputs kept.
func (sc *scaler) measure(ctx context.Context, q int) error {
	s := step{QPs: q, Runs: sc.c.Count}
	res, err := workflow.RunPerftest(ctx, sc.sides, workflow.PerftestStep{Name: fmt.Sprintf("%s_q%d", perftest.SendBW.Program(), q),
		Preflight: workflow.RDMAPreflightWhen(len(sc.steps) == 0, 0, perftest.SendBW.Program()), // both ends' troubleshooting, before the first pair
		Label:     fmt.Sprintf("%d QPs", q), Count: sc.c.Count, Out: sc.c.Out, Store: sc.store, Progress: sc.prog, CPULoad: true,
		Options: perftest.Options{Test: perftest.SendBW, Iterations: sc.c.Iterations, QPTimeout: sc.c.QPTimeout, QPs: q, ReportGbits: true},
		Params:  []report.Param{{Key: report.ParamQPs, Value: fmt.Sprint(q)}},
		Check: func(r *report.Round) []report.Finding {
			if s.observe(*r); q != sc.last {
				return nil
			}
			return crossFindings(append(sc.rounds, *r), append(sc.steps, s))
		}})
	s.Failures, s.NearHot, s.FarHot, s.Findings = res.Pairs.Failures, res.NearHot, res.FarHot, res.Findings
	if err != nil {
		return err
	}
	if res.Measured {
		sc.rounds = append(sc.rounds, res.Round)
	}
	sc.steps = append(sc.steps, s)
	return nil
}

// writeOutputs prints the table and the findings, then writes report.md,
// qps.svg and summary.json to -out.
func writeOutputs(w io.Writer, md *strings.Builder, c config, mode runbook.Mode, rounds []report.Round, steps []step) error {
	sc := analyse(steps, report.DefaultThresholds.MinQPGain)
	findings := qpFindings(rounds, steps)
	writeTable(w, steps, sc, mode)
	fmt.Fprintf(w, "%s\n\n", kneeText(steps, sc))
	if err := cli.WriteRoundsMarkdown(w, c.Store, rounds, findings); err != nil {
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
		return report.WriteJSON(f, buildSummary(mode, steps, sc, findings))
	}); err != nil {
		return err
	}
	// report.md, report.html, qps.svg and cpu-ROUND.svg: the pictures inline, findings first.
	return workflow.WriteReport(c.Out, fmt.Sprintf("soft-RoCE QP scaling (%s)", mode), md.String(),
		page.Section{Title: "qp-scaling", Findings: findings, Rounds: rounds, Figures: figs})
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

func hotText(h *irq.HotCore) string {
	if h == nil {
		return "not measured"
	}
	return h.String()
}
