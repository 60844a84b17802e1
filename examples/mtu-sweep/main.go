// Command mtu-sweep measures soft-RoCE bandwidth at several netdev MTUs and
// checks that each MTU reached the RDMA path:
//
//  1. make sure rdma_rxe is usable (load it if needed) on both ends, create
//     an rxe link on the netdev of each end or reuse the one there, wait for
//     the ports to be ACTIVE and pick the RoCE v2 GID on each end,
//  2. for each MTU of -mtus, lowest first: set it on the netdev of both ends
//     (once in loopback), then run ib_send_bw pairs -count times (server on
//     the far end, client here) at one message size (-s) or at every size
//     (-a),
//  3. make one round per MTU ("ib_send_bw_mtu9000": parameter netdev_mtu is
//     the netdev's MTU, mtu the RoCE path MTU perftest printed in its
//     header), one workflow.RunPerftest step each: both ends' fingerprint
//     and findings stored with it, its archive written, then appended to
//     the store (-store) and compared with the store's previous round,
//  4. say for each MTU whether it took effect (the path MTU perftest ran at
//     is the one rdma_rxe derives from the netdev MTUs, nic.RXEPathMTU) and
//     whether bandwidth followed it from the lowest MTU (report.CheckMTU),
//  5. write to -out: report.md (also printed), report.html (one page, the
//     picture inline), bandwidth.svg, summary.json
//     and one reproducibility archive per round (ib_send_bw_mtu9000.tar.gz).
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
// The flags (-mtus, -count, -n, -s, -a, -store, -out, and the shared ones)
// are listed by -h.
//
// Usage, as root:
//
//	go run ./examples/mtu-sweep -netdev eth0 [-mtus 1500,4200,9000] [-count 3] [-n 10000]
//	go run ./examples/mtu-sweep -netdev eth0 -peer root@198.18.0.2 -a
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
	MTUs     string
	Size     int
	AllSizes bool
}

func main() {
	var c config
	c.RegisterSteps(flag.CommandLine, "ib_send_bw runs per MTU, each with a fresh pair",
		"mtu-sweep-out", "folder for report.md, bandwidth.svg, summary.json and the round archives")
	flag.StringVar(&c.MTUs, "mtus", "1500,4200,9000", "netdev MTUs to sweep, comma-separated; run lowest first, restored on exit")
	flag.IntVar(&c.Size, "s", 65536, "message size in bytes (-s); ignored with -a")
	flag.BoolVar(&c.AllSizes, "a", false, "every message size from 2 B to 8 MiB (ib_send_bw -a) instead of -s")
	cli.Parse("mtu-sweep")
	cli.Main("mtu-sweep", c.Timeout, func(ctx context.Context) error { return run(ctx, c, os.Stdout, os.Stderr) })
}

// validate checks every flag, touching nothing: run calls it before
// anything is read, loaded or changed.
func (c config) validate() error {
	_, mtusErr := parseMTUs(c.MTUs)
	var sizeErr error
	if !c.AllSizes {
		sizeErr = cli.IntRange("-s", c.Size, 1, 1<<30)
	}
	return errors.Join(c.StepFlags.Validate(), mtusErr, sizeErr)
}

// run does the sweep and restores every change it made before it returns,
// whatever happened.
func run(ctx context.Context, c config, out, status io.Writer) error {
	return c.OpenRun(ctx, c.validate, status, func(sides *runbook.Sides) error { return sweep(ctx, c, sides, out, status) })
}

// sweep measures every MTU on the opened sides and writes the outputs.
func sweep(ctx context.Context, c config, sides *runbook.Sides, out, status io.Writer) error {
	mtus, _ := parseMTUs(c.MTUs) // validated
	prog := progress.New(status, 1+len(mtus)*(1+c.Count))
	prog.Step("prepare rxe at MTU %d", mtus[0])
	if err := sides.PrepareRXE(ctx, c.RXE, mtus[0], nil); err != nil {
		return err
	}
	var md strings.Builder
	w := io.MultiWriter(out, &md)
	writeHeader(w, c, sides)
	sw := &sweeper{c: c, sides: sides, opts: sendBWOptions(c), prog: prog, store: report.OpenStore(c.Store)}
	var rounds []report.Round
	var points []point
	var findings []report.Finding
	for i, mtu := range mtus {
		res, p, err := sw.measure(ctx, i, mtu)
		if err != nil {
			return err
		}
		rounds = append(rounds, res.Round)
		points = append(points, p)
		findings = append(findings, res.Findings...)
	}
	prog.Done()
	report.SortFindings(findings)
	return writeOutputs(w, &md, c, sides.Mode, rounds, points, findings)
}

// writeHeader says where the sweep runs and what it measures.
func writeHeader(w io.Writer, c config, sides *runbook.Sides) {
	far, near := sides.FarRXE, sides.NearRXE
	fmt.Fprintf(w, "# soft-RoCE MTU sweep (%s)\n\n", sides.Mode)
	fmt.Fprintf(w, "- server %s: %s on %s (%s), GID index %d: %s\n", sides.Far.Name(), far.Device, far.Netdev, far.Addr, far.GID.Entry.Index, far.GID.Reason)
	fmt.Fprintf(w, "- client %s: %s on %s (%s), GID index %d: %s\n", sides.Near.Name(), near.Device, near.Netdev, near.Addr, near.GID.Entry.Index, near.GID.Reason)
	fmt.Fprintf(w, "- ib_send_bw, %s, %d runs of %d iterations per MTU\n\n", sizeText(c), c.Count, c.Iterations)
}

// sendBWOptions are the ib_send_bw options of every step (device and
// GIDs come from the Sides).
func sendBWOptions(c config) perftest.Options {
	opts := perftest.Options{Test: perftest.SendBW, Iterations: c.Iterations, QPTimeout: c.QPTimeout, ReportGbits: true}
	if c.AllSizes {
		opts.AllSizes = true
	} else {
		opts.Size = c.Size
	}
	return opts
}

// sweeper measures one MTU after the other on prepared sides.
type sweeper struct {
	c     config
	sides *runbook.Sides
	opts  perftest.Options
	prog  *progress.Printer
	store *report.Store
	low   *report.Round // the lowest MTU's, once measured
}

// measure sets the MTU (the i-th of the sweep; the first was set by the
// preparation) and runs its workflow step: -count pairs, the round with
// its findings (took effect, against the lowest MTU), archived, stored.
// An MTU whose every run failed stops the sweep (every later MTU
// compares against the lowest).
func (sw *sweeper) measure(ctx context.Context, i, mtu int) (*workflow.PerftestResult, point, error) {
	p := point{MTU: mtu, Runs: sw.c.Count}
	if i > 0 {
		sw.prog.Step("set MTU %d", mtu)
		if err := sw.sides.SetMTU(ctx, mtu); err != nil {
			return nil, p, err
		}
	} else {
		sw.prog.Step("MTU %d was set by the preparation", mtu)
	}
	var err error
	if p.NearMTU, p.FarMTU, err = sw.sides.NetdevMTUs(ctx); err != nil {
		return nil, p, err
	}
	res, err := workflow.RunPerftest(ctx, sw.sides, workflow.PerftestStep{Name: fmt.Sprintf("%s_mtu%d", perftest.SendBW.Program(), mtu),
		Label: fmt.Sprintf("MTU %d", mtu), Options: sw.opts, Count: sw.c.Count, OnFailure: workflow.Stop,
		Out: sw.c.Out, Store: sw.store, Progress: sw.prog, CPULoad: true, Check: check(&p, sw.low, metricKey(sw.c)),
		Preflight: workflow.RDMAPreflight(0, sw.opts.Test.Program())}) // after each MTU change: the path carries it both ways
	p.Failures = res.Pairs.Failures
	if err == nil && i == 0 {
		low := res.Round
		sw.low = &low
	}
	return res, p, err
}

// sizeText says which message sizes ran.
func sizeText(c config) string {
	if c.AllSizes {
		return "every size (-a)"
	}
	return fmt.Sprintf("%d B messages", c.Size)
}

// metricKey is the metric the sweep compares: bw_avg at -s, or at 64 KiB
// (one of -a's sizes) with -a.
func metricKey(c config) string {
	size := c.Size
	if c.AllSizes {
		size = 65536
	}
	return fmt.Sprintf("bw_avg/size=%d", size)
}

// writeOutputs prints the table and the findings, then writes report.md,
// bandwidth.svg and summary.json to -out.
func writeOutputs(w io.Writer, md *strings.Builder, c config, mode runbook.Mode, rounds []report.Round, points []point, findings []report.Finding) error {
	metric := metricKey(c)
	writeTable(w, points, metric)
	if err := cli.WriteRoundsMarkdown(w, c.Store, rounds, findings); err != nil {
		return err
	}
	var fig plot.Figure
	var err error
	if c.AllSizes {
		fig, err = plot.Sweep(rounds)
	} else {
		fig, err = plot.Rounds(rounds, metric, plot.RoundsOptions{Name: "bandwidth"})
	}
	var figs []plot.Figure
	if err != nil {
		// Emulated clocks can leave a metric without any finite value;
		// the report says so instead of failing the whole sweep.
		fmt.Fprintf(w, "No plot: %v\n\n", err)
	} else {
		figs = append(figs, fig)
	}
	if _, err := cli.WriteFile(c.Out, "summary.json", func(f io.Writer) error {
		return report.WriteJSON(f, buildSummary(mode, metric, points, findings))
	}); err != nil {
		return err
	}
	// report.md, report.html and bandwidth.svg: the picture inline, findings first.
	return workflow.WriteReport(c.Out, fmt.Sprintf("soft-RoCE MTU sweep (%s)", mode), md.String(),
		page.Section{Title: "mtu-sweep", Findings: findings, Rounds: rounds, Figures: figs})
}

// writeTable prints one line per MTU: what the kernel chose and the
// bandwidth median.
func writeTable(w io.Writer, points []point, metric string) {
	fmt.Fprintf(w, "## Bandwidth by MTU (%s)\n\n", metric)
	fmt.Fprintf(w, "| MTU | netdev MTU | RoCE path MTU expected | RoCE path MTU seen | took effect | failed runs | median | × lowest MTU |\n")
	fmt.Fprintf(w, "|--:|--:|--:|--:|:-:|--:|--:|--:|\n")
	for _, p := range points {
		med, gain := "—", "—"
		if p.Median != nil {
			med = fmt.Sprintf("%.4g %s", *p.Median, p.Unit)
			if low := points[0].Median; low != nil && *low > 0 {
				gain = fmt.Sprintf("×%.2f", *p.Median / *low)
			}
		}
		netdev := fmt.Sprint(p.NearMTU)
		if p.FarMTU != p.NearMTU {
			netdev = fmt.Sprintf("%d (far %d)", p.NearMTU, p.FarMTU)
		}
		fmt.Fprintf(w, "| %d | %s | %d | %s | %s | %d of %d | %s | %s |\n", p.MTU, netdev, p.Expected(), seenText(p.Seen), yesNo(p.TookEffect()),
			len(p.Failures), p.Runs, med, gain)
	}
	fmt.Fprintln(w)
}

func seenText(seen int) string {
	if seen == 0 {
		return "—"
	}
	return fmt.Sprint(seen)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
