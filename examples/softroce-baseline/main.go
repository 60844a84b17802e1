// Command softroce-baseline runs the soft-RoCE baseline of the runbook:
//
//  1. make sure rdma_rxe is usable (load it if needed) on both ends,
//  2. create an rxe link on the netdev of each end, or reuse the one there,
//  3. set the netdev's MTU on both ends (-mtu),
//  4. wait for the ports to be ACTIVE and pick the RoCE v2 GID on each end,
//  5. set the cpufreq governor on both ends (-governor) and pin each side
//     (-server-cpus, -client-cpus), journaled,
//  6. run ib_send_bw and ib_send_lat pairs with identical parameters -count
//     times each (server on the far end, client here): one
//     workflow.RunPerftest step per test, which records both ends'
//     fingerprint (kernel, rdma-core, perftest, driver, firmware, the
//     command lines as run), counters, verdict and findings in the round,
//     writes its archive (-out/NAME.tar.gz, with a rerun.sh), then appends
//     it to the store (-store) and compares it with the store's previous
//     round of the test, whatever changed (the changed parameters named),
//  7. write report.md (also printed), summary.json and report.html,
//  8. with -soak D, run ib_send_bw --run_infinitely -D 1 for D and add the
//     round ib_send_bw_soak: its rows over time (interims-bw_avg.svg on
//     report.html), where a stall shows.
//
// perftest's CPU-frequency warning is kept: -F is passed only with
// -no-freq-check.
//
// The far end is, by the flags:
//
//	(none)                 loopback: server and client on this host's rxe link
//	-peer-netns NS         a network namespace here, on -peer-netdev
//	-peer root@host        another host over SSH, configured by rocekit-peer there
//
// Every change (rxe links, MTUs, governors) is journaled and undone on
// exit, also on Ctrl-C; after a crash, the next run (or tune.Recover on
// -journal, and "rocekit-peer restore" on the peer) undoes what was left.
//
// Usage, as root:
//
//	go run ./examples/softroce-baseline -netdev eth0 [-mtu 9000] [-count 3] [-n 10000]
//	go run ./examples/softroce-baseline -netdev eth0 -peer root@198.18.0.2 -mtu 9000 -governor performance -server-cpus 2 -client-cpus 2
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
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/progress"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// config is what the flags set.
type config struct {
	cli.StepFlags
	MTU      int
	Soak     time.Duration // ib_send_bw --run_infinitely for this long; 0: none
	Governor string        // set on both ends; "": leave it
	// ServerCPUs and ClientCPUs pin each side ("2", "0-3"); "": unpinned.
	ServerCPUs, ClientCPUs string
	NoFreqCheck            bool // perftest -F
}

func main() {
	var c config
	c.RegisterSteps(flag.CommandLine, "runs of each test, each with a fresh pair",
		"softroce-baseline-out", "folder for report.md, report.html and the round archives")
	flag.IntVar(&c.MTU, "mtu", 0, "netdev MTU on both ends for the run (0: leave it); restored on exit")
	flag.DurationVar(&c.Soak, "soak", 0, "after the baseline, run ib_send_bw --run_infinitely -D 1 this long and draw its rows over time (0: no soak)")
	flag.StringVar(&c.Governor, "governor", "", "cpufreq governor to set on both ends for the run (performance; \"\": leave it); restored on exit")
	flag.StringVar(&c.ServerCPUs, "server-cpus", "", "CPUs to pin the server (far end) to, as taskset -c takes them (\"2\", \"0-3\"; \"\": unpinned)")
	flag.StringVar(&c.ClientCPUs, "client-cpus", "", "CPUs to pin the client (this end) to (\"\": unpinned)")
	flag.BoolVar(&c.NoFreqCheck, "no-freq-check", false, "pass perftest -F on hosts with cpufreq too: do not warn when the CPU frequency may distort the numbers (hosts without cpufreq, VMs, always get -F: the check fails runs there)")
	cli.Parse("softroce-baseline")
	cli.Main("softroce-baseline", c.Timeout, func(ctx context.Context) error { return run(ctx, c, os.Stdout, os.Stderr) })
}

// run does the baseline and restores every change it made before it
// returns, whatever happened.
func run(ctx context.Context, c config, out, status io.Writer) error {
	return c.OpenRun(ctx, c.validate, status, func(sides *runbook.Sides) error {
		prepare := 2
		if sides.Mode == runbook.Loopback {
			prepare = 1
		}
		prog := progress.New(status, prepare+len(tests)*c.Count+soakSteps(c))
		if err := sides.PrepareRXE(ctx, c.RXE, c.MTU, prog); err != nil {
			return err
		}
		return baseline(ctx, c, sides, prog, out)
	})
}

// tests are the baseline's, in order.
var tests = []perftest.Test{perftest.SendBW, perftest.SendLat}

// validate checks every flag, touching nothing: run calls it before
// anything is read, loaded or changed.
func (c config) validate() error {
	_, _, cpuErr := c.cpus()
	var govErr error
	if c.Governor != "" {
		govErr = cli.Governor("-governor", c.Governor)
	}
	return errors.Join(c.StepFlags.Validate(), cli.MTU("-mtu", c.MTU), cli.Duration("-soak", c.Soak), govErr, cpuErr)
}

// cpus reads -server-cpus and -client-cpus.
func (c config) cpus() (server, client []int, err error) {
	for _, f := range []struct {
		flag, v string
		to      *[]int
	}{{"-server-cpus", c.ServerCPUs, &server}, {"-client-cpus", c.ClientCPUs, &client}} {
		if f.v == "" {
			continue
		}
		l, perr := irq.ParseCPUList(f.v)
		if perr != nil || len(l) == 0 {
			err = errors.Join(err, cli.BadFlag(fmt.Errorf("%s %q: want CPUs as taskset -c takes them (\"2\", \"0-3,6\")", f.flag, f.v)))
			continue
		}
		*f.to = l
	}
	return server, client, err
}

// step is one test's workflow step, as the flags set it.
func (c config) step(test perftest.Test, store *report.Store, prog runbook.Progress) workflow.PerftestStep {
	server, client, _ := c.cpus() // validated
	return workflow.PerftestStep{Options: perftest.Options{Test: test, Iterations: c.Iterations, QPTimeout: c.QPTimeout,
		ReportGbits: true, NoFreqCheck: c.NoFreqCheck, Server: perftest.End{CPUs: server}, Client: perftest.End{CPUs: client}},
		Count: c.Count, Governor: c.Governor, Out: c.Out, Store: store, Progress: prog, CPULoad: true,
		Remedies: map[string]string{report.RuleJitter: "here: run again with -governor performance -server-cpus N -client-cpus M (one core each, NUMA-local to the netdev)"}}
}

// baseline runs the tests (and the soak) on prepared sides, printing the
// report on out, then writes report.md, summary.json and report.html.
// A test whose every run failed has no round: its critical finding is in
// the report and summary, both sides' outputs in -out/failed/.
func baseline(ctx context.Context, c config, sides *runbook.Sides, prog runbook.Progress, out io.Writer) error {
	var md strings.Builder
	w := io.MultiWriter(out, &md)
	writeHeader(w, sides)
	store := report.OpenStore(c.Store)
	sum := summary{Mode: string(sides.Mode), Server: sides.FarRXE, Client: sides.NearRXE}
	var rounds []report.Round
	for i, test := range tests {
		st := c.step(test, store, prog)
		st.Preflight = workflow.RDMAPreflightWhen(i == 0, 0, test.Program()) // both ends' troubleshooting, before the first pair
		res, err := workflow.RunPerftest(ctx, sides, st)
		if err != nil {
			return err
		}
		if err := workflow.WritePerftestMarkdown(w, res); err != nil {
			return err
		}
		sum.Findings = append(sum.Findings, res.Findings...)
		if res.Measured {
			rounds = append(rounds, res.Round)
			sum.add(res.Round)
		}
	}
	if c.Soak > 0 {
		prog.Step("ib_send_bw --run_infinitely -D 1 for %v", c.Soak)
		round, files, err := soak(ctx, c, sides, w)
		if err != nil { // its outputs kept all the same, not stored
			_, aerr := workflow.SaveArchive(c.Out, round, files)
			return errors.Join(err, aerr)
		}
		if err := workflow.SaveRound(store, c.Out, round, files); err != nil {
			return err
		}
		rounds = append(rounds, round)
	}
	if p, ok := prog.(*progress.Printer); ok {
		p.Done()
	}
	return writeOutputs(c, sides.Mode, md.String(), sum, rounds)
}

// writeHeader says where the pairs run.
func writeHeader(w io.Writer, sides *runbook.Sides) {
	fmt.Fprintf(w, "# soft-RoCE baseline (%s)\n\n", sides.Mode)
	for _, s := range []struct {
		side string
		info runbook.RXE
	}{{"server " + sides.Far.Name(), sides.FarRXE}, {"client " + sides.Near.Name(), sides.NearRXE}} {
		fmt.Fprintf(w, "- %s: %s on %s (%s, MTU %d), GID index %d: %s\n", s.side, s.info.Device, s.info.Netdev,
			s.info.Addr, s.info.NetdevMTU, s.info.GID.Entry.Index, s.info.GID.Reason)
	}
	fmt.Fprintln(w)
}

// writeOutputs writes summary.json, report.md and report.html: the
// findings, the rounds' pictures (bandwidth runs, latency percentiles)
// inline, then report.md.
func writeOutputs(c config, mode runbook.Mode, md string, sum summary, rounds []report.Round) error {
	if _, err := cli.WriteFile(c.Out, "summary.json", func(f io.Writer) error { return report.WriteJSON(f, sum) }); err != nil {
		return err
	}
	sec := page.FromRounds("softroce-baseline", rounds)
	sec.Findings = sum.Findings
	return workflow.WriteReport(c.Out, fmt.Sprintf("soft-RoCE baseline (%s)", mode), md, sec)
}

// summary is summary.json: what a script or test reads instead of the
// Markdown.
type summary struct {
	Mode     string           `json:"mode"`
	Server   runbook.RXE      `json:"server"`
	Client   runbook.RXE      `json:"client"`
	Rounds   []roundSummary   `json:"rounds"`
	Findings []report.Finding `json:"findings"`
}

type roundSummary struct {
	Name    string                    `json:"name"`
	Params  []report.Param            `json:"params"`
	Medians map[string]report.Summary `json:"medians"` // by metric key
}

func (s *summary) add(r report.Round) {
	rs := roundSummary{Name: r.Name, Params: r.Params, Medians: map[string]report.Summary{}}
	for _, m := range r.Metrics {
		rs.Medians[m.Key()] = report.Summarize(m)
	}
	s.Rounds = append(s.Rounds, rs)
}
