// Command softroce-baseline runs the soft-RoCE baseline of the runbook:
//
//  1. make sure rdma_rxe is usable (load it if needed) on both ends,
//  2. create an rxe link on the netdev of each end, or reuse the one there,
//  3. set the netdev's MTU on both ends (-mtu),
//  4. wait for the ports to be ACTIVE and pick the RoCE v2 GID on each end,
//  5. run ib_send_bw and ib_send_lat pairs with identical parameters -count
//     times each (server on the far end, client here),
//  6. append one round per test to the store (-store) and write a Markdown
//     report (-out/report.md, also printed): against the previous round of
//     the same name and parameters when the store has one, with findings
//     (jitter, the GID type), report.html (the same with the pictures of
//     the runs and the latency percentiles inline, rounds.svg, latency.svg)
//     and one reproducibility archive per round,
//  7. with -soak D, run ib_send_bw --run_infinitely -D 1 for D and add the
//     round ib_send_bw_soak: its rows over time (interims-bw_avg.svg on
//     report.html), where a stall shows.
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
// Usage, as root:
//
//	go run ./examples/softroce-baseline -netdev eth0 [-mtu 9000] [-count 3] [-n 10000]
//	go run ./examples/softroce-baseline -netdev eth0 -peer root@198.18.0.2 -mtu 9000
//	go run ./examples/softroce-baseline -netdev eth0 -count 1 -soak 10m
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
	"github.com/rocekit/rocekit/runbook"
)

// config is what the flags set.
type config struct {
	cli.Flags
	RXE        string
	MTU        int
	Count      int
	Iterations int
	QPTimeout  int
	Store      string
	Out        string
	Soak       time.Duration // ib_send_bw --run_infinitely for this long; 0: none
}

func main() {
	var c config
	c.Register(flag.CommandLine)
	flag.StringVar(&c.RXE, "rxe", "rxe0", "rxe link name to create when the netdev has none")
	flag.IntVar(&c.MTU, "mtu", 0, "netdev MTU on both ends for the run (0: leave it); restored on exit")
	flag.IntVar(&c.Count, "count", 3, "runs of each test, each with a fresh pair")
	flag.IntVar(&c.Iterations, "n", 10000, "iterations per run (-n)")
	flag.IntVar(&c.QPTimeout, "qp-timeout", 0, "perftest -u: QP timeout exponent, 4.096 us * 2^N (0: perftest's 14, 67 ms); raise it on emulated or loaded hosts (the lab uses 22)")
	flag.StringVar(&c.Store, "store", "rocekit-rounds.jsonl", "round store (appended)")
	flag.StringVar(&c.Out, "out", "softroce-baseline-out", "folder for report.md, report.html and the round archives")
	flag.DurationVar(&c.Soak, "soak", 0, "after the baseline, run ib_send_bw --run_infinitely -D 1 this long and draw its rows over time (0: no soak)")
	cli.Parse("softroce-baseline")
	cli.Main("softroce-baseline", c.Timeout, func(ctx context.Context) error { return run(ctx, c, os.Stdout, os.Stderr) })
}

// run does the baseline and restores every change it made before it
// returns, whatever happened.
func run(ctx context.Context, c config, out, progress io.Writer) (err error) {
	if err := c.validate(); err != nil {
		return err
	}
	sides, err := c.OpenChecked(ctx, c.Out, c.Store, progress)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, sides.Restore()) }()

	tests := []perftest.Test{perftest.SendBW, perftest.SendLat}
	prog := cli.NewProgress(progress, 2+len(tests)*c.Count+soakSteps(c))
	if sides.Mode == runbook.Loopback {
		prog = cli.NewProgress(progress, 1+len(tests)*c.Count+soakSteps(c))
	}
	if err := sides.PrepareRXE(ctx, c.RXE, c.MTU, prog); err != nil {
		return err
	}
	far, near := sides.FarRXE, sides.NearRXE
	var md strings.Builder
	w := io.MultiWriter(out, &md)
	writeHeader(w, sides, far, near)
	ends, err := sides.Ends(ctx)
	if err != nil {
		return err
	}
	b := &baseline{c: c, sides: sides, far: far, near: near, ends: ends, prog: prog, store: report.OpenStore(c.Store), w: w,
		sum: summary{Mode: string(sides.Mode), Server: far, Client: near}}
	var rounds []report.Round
	for _, test := range tests {
		round, ok, err := b.measure(ctx, test)
		if err != nil {
			return err
		}
		if ok {
			rounds = append(rounds, round)
		}
	}
	if c.Soak > 0 {
		prog.Step("ib_send_bw --run_infinitely -D 1 for %v", c.Soak)
		round, files, err := soak(ctx, c, sides, far, near, w)
		if _, aerr := cli.SaveArchive(c.Out, round, files); err != nil || aerr != nil {
			return errors.Join(err, aerr)
		}
		if err := b.store.Append(round); err != nil {
			return err
		}
		rounds = append(rounds, round)
	}
	prog.Done()
	return writeOutputs(c, sides.Mode, md.String(), b.sum, rounds)
}

// validate checks every flag, touching nothing: run calls it before
// anything is read, loaded or changed.
func (c config) validate() error {
	return errors.Join(c.Flags.Validate(), cli.RDMADevice("-rxe", c.RXE), cli.MTU("-mtu", c.MTU),
		cli.AtLeast("-count", c.Count, 1), cli.Iterations("-n", c.Iterations), cli.QPTimeout("-qp-timeout", c.QPTimeout),
		cli.Duration("-soak", c.Soak))
}

// writeHeader says where the pairs run.
func writeHeader(w io.Writer, sides *runbook.Sides, far, near runbook.RXEInfo) {
	fmt.Fprintf(w, "# soft-RoCE baseline (%s)\n\n", sides.Mode)
	for _, s := range []struct {
		side string
		info runbook.RXEInfo
	}{{"server " + sides.Far.Name(), far}, {"client " + sides.Near.Name(), near}} {
		fmt.Fprintf(w, "- %s: %s on %s (%s, MTU %d), GID index %d: %s\n", s.side, s.info.Device, s.info.Netdev,
			s.info.Addr, s.info.NetdevMTU, s.info.GID.Entry.Index, s.info.GID.Reason)
	}
	fmt.Fprintln(w)
}

// baseline runs the tests on prepared sides.
type baseline struct {
	c         config
	sides     *runbook.Sides
	far, near runbook.RXEInfo
	ends      []report.End // both netdevs, for the bottleneck verdict
	prog      *cli.Progress
	store     *report.Store
	w         io.Writer // the report as it grows
	sum       summary
}

// measure runs -count pairs of one test, compares and stores the round,
// prints it with its findings (added to the summary), and archives it.
// When every run failed there is no round (false): the report and the
// summary get a critical finding and failed/ both sides' outputs.
func (b *baseline) measure(ctx context.Context, test perftest.Test) (report.Round, bool, error) {
	c, sides, near, w := b.c, b.sides, b.near, b.w
	opts := runbook.PerftestOptions(perftest.Options{Test: test, Iterations: c.Iterations, QPTimeout: c.QPTimeout,
		ReportGbits: true, NoFreqCheck: true}, sides, b.far, near)
	program := opts.Test.Program()
	start := time.Now()
	ps, err := cli.RunPairs(ctx, sides, b.far, opts, c.Count, b.prog, program, c.Out)
	if err != nil {
		return report.Round{}, false, err
	}
	failed, someFailed := report.RunsFailed(program, c.Count, ps.Failures)
	if someFailed && failed.Severity == report.SeverityCritical {
		return report.Round{}, false, b.allFailed(program, failed, ps, opts.QPTimeout)
	}
	round, err := report.FromPerftest(program, start, ps.Results...)
	if err != nil {
		return round, false, err
	}
	round.DurationSec = time.Since(start).Seconds()
	round.ToolSec = ps.ToolSec()
	round.SetParam("mode", string(sides.Mode))
	round.SetParam("netdev_mtu", fmt.Sprint(near.NetdevMTU))
	round.Warnings = append(append(round.Warnings, ps.Failures...), ps.Voided...)
	round.Bottleneck = report.Bottleneck(report.BottleneckInput{Round: &round, Ends: b.ends})
	files, err := cli.PairsFiles(&round, ps)
	if err != nil {
		return round, false, err
	}
	findings, err := writeRound(w, b.store, round, near)
	if err != nil {
		return round, false, err
	}
	rf := ps.Findings(program, opts.QPTimeout)
	if someFailed {
		rf = append(rf, failed)
	}
	if len(rf) > 0 {
		if err := report.WriteFindingsMarkdown(w, rf); err != nil {
			return round, false, err
		}
		findings = append(findings, rf...)
	}
	b.sum.add(round, findings)
	_, err = cli.SaveArchive(c.Out, round, files)
	return round, err == nil, err
}

// allFailed reports a test whose every run failed: the finding (with the
// runs' RDMA counter findings) in the report and the summary, both sides'
// outputs in failed/.
func (b *baseline) allFailed(program string, failed report.Finding, ps runbook.Pairs, qpTimeout int) error {
	fs := append([]report.Finding{failed}, ps.Findings(program, qpTimeout)...)
	fmt.Fprintf(b.w, "## %s: every run failed\n\n", program)
	if err := report.WriteFindingsMarkdown(b.w, fs); err != nil {
		return err
	}
	b.sum.Findings = append(b.sum.Findings, fs...)
	return cli.KeepFailedPairs(b.c.Out, program, ps.Pairs)
}

// writeOutputs writes summary.json, report.md and report.html: the
// findings, the rounds' pictures (bandwidth runs, latency percentiles)
// inline, then report.md.
func writeOutputs(c config, mode runbook.Mode, md string, sum summary, rounds []report.Round) error {
	if _, err := cli.WriteFile(c.Out, "summary.json", func(f io.Writer) error { return report.WriteJSON(f, sum) }); err != nil {
		return err
	}
	var answers strings.Builder
	if err := report.WriteAnswersMarkdown(&answers, rounds); err != nil {
		return err
	}
	md = answers.String() + md // the runbook's questions first
	if _, err := cli.WriteFile(c.Out, "report.md", func(f io.Writer) error {
		_, err := io.WriteString(f, md)
		return err
	}); err != nil {
		return err
	}
	sec := page.FromRounds("softroce-baseline", rounds)
	sec.Findings, sec.Markdown = sum.Findings, md
	return page.WriteFiles(c.Out, page.Page{Title: fmt.Sprintf("soft-RoCE baseline (%s)", mode), Sections: []page.Section{sec}})
}

// summary is summary.json: what a script or test reads instead of the
// Markdown.
type summary struct {
	Mode     string           `json:"mode"`
	Server   runbook.RXEInfo  `json:"server"`
	Client   runbook.RXEInfo  `json:"client"`
	Rounds   []roundSummary   `json:"rounds"`
	Findings []report.Finding `json:"findings"`
}

type roundSummary struct {
	Name    string                    `json:"name"`
	Params  []report.Param            `json:"params"`
	Medians map[string]report.Summary `json:"medians"` // by metric key
}

func (s *summary) add(r report.Round, findings []report.Finding) {
	rs := roundSummary{Name: r.Name, Params: r.Params, Medians: map[string]report.Summary{}}
	for _, m := range r.Metrics {
		rs.Medians[m.Key()] = report.Summarize(m)
	}
	s.Rounds = append(s.Rounds, rs)
	s.Findings = append(s.Findings, findings...)
}

// writeRound compares the round with the store's latest earlier round of
// the same test, whatever changed (the changed parameters named), prints
// it and the findings, then appends it.
func writeRound(out io.Writer, store *report.Store, round report.Round, near runbook.RXEInfo) ([]report.Finding, error) {
	prev, ok, err := store.Previous(round) // whatever changed: the runbook's "change one thing, rerun, compare"
	if err != nil {
		return nil, err
	}
	if ok {
		fmt.Fprintf(out, "## %s against the previous round\n\n", round.Name)
		if err := report.WriteComparisonMarkdown(out, report.Compare(prev, round, report.CompareOptions{})); err != nil {
			return nil, err
		}
	} else {
		fmt.Fprintf(out, "## %s (first round: the baseline)\n\n", round.Name)
		if err := report.WriteRoundMarkdown(out, round); err != nil {
			return nil, err
		}
	}
	gid := near.GID.Entry
	findings := report.Diagnose(report.DiagnosisInput{Round: &round, GID: &gid})
	report.WriteFindingsMarkdown(out, findings)
	fmt.Fprintln(out)
	return findings, store.Append(round)
}
