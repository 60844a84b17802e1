// Command fleet-matrix measures every host of a fleet against the hosts it
// should be checked against, a few pairs at a time, and names what stands
// out:
//
//  1. connect every host (-host, repeated): this one ("local") and the
//     others over SSH, where rocekit-peer prepares rxe links and reads the
//     NICs (address, subnet, link speed, NUMA-local CPUs); every change is
//     journaled there and undone on exit,
//  2. schedule the pairs (-schedule all: a round-robin tournament; ring; or
//     an explicit "a-b,b-c" list) in rounds where no host is in more than
//     -per-host pairs and no round has more than -max-pairs,
//  3. run each pair (server on the first host, client on the second; one
//     perftest or netperf pair per NIC pair the two share, at once,
//     pinned to NUMA-local CPUs) under -pair-timeout, keeping each result
//     in -store as it ends; a rerun with the same -name resumes, skipping
//     the pairs measured already,
//  4. write the matrix (-out/matrix.md, .csv, .json, heatmap.svg), the
//     outliers (a pair far below its peers' median: the link; a host slow
//     with every partner: the host) and the line-rate gate (each pair at
//     -min-ratio of its line rate or more); with -gate, exit 1 when the
//     gate fails,
//  5. with -second-pass, re-pair the hosts of every failed or outlier pair
//     with hosts that passed and name the culprit: a host, both hosts, the
//     link, or a transient (-out/second-pass.md, .json).
//
// Usage, as root, on a host that reaches the others over SSH:
//
//	go run ./examples/fleet-matrix -host a=local:eth0 -host b=root@198.18.0.2:eth0 -host c=root@198.18.0.3:eth0
//
// or inside a Slurm allocation, every node of it reached with srun (no
// SSH; rocekit-peer in the nodes' PATH or at -peer-agent):
//
//	salloc -N3 fleet-matrix -slurm eth0 -line-rate 100
//	go run ./examples/fleet-matrix -schedule ring -per-host 2 -tool netperf -line-rate 25 -gate -host ...
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rocekit/rocekit/bottleneck"
	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/fleet"
	"github.com/rocekit/rocekit/internal/ownfile"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
)

// config is what the flags set.
type config struct {
	Hosts       hostList
	Slurm       string // netdevs tested on every node of the allocation
	SlurmNodes  string // host list instead of SLURM_JOB_NODELIST
	SSH         fleet.OpenOptions
	JournalDir  string // of this host's journal
	Name        string
	Schedule    string
	PerHost     int
	MaxPairs    int
	Tool        string // perftest or netperf
	Duration    int    // seconds, -D or -l
	Iterations  int    // perftest -n, instead of -D
	Size        int
	TXDepth     int
	QPTimeout   int
	Bidir       bool
	MTU         int
	PairTimeout time.Duration
	LineRate    float64
	MinRatio    float64
	SlowRatio   float64
	Gate        bool
	SecondPass  bool
	Store, Out  string
	Timeout     time.Duration
}

func main() {
	var c config
	flag.Var(&c.Hosts, "host", "a host: NAME=local:NETDEV, NAME=user@addr[:port]:NETDEV[+NETDEV...] or NAME=srun:NODE:NETDEV[+...] (repeat; one may be local)")
	flag.StringVar(&c.Slurm, "slurm", "", "NETDEV[+NETDEV]: every node of the Slurm allocation ($SLURM_JOB_NODELIST) as a host named by the node, reached with srun")
	flag.StringVar(&c.SSH.SlurmJob, "slurm-job", "", "the job whose nodes srun runs on (default $SLURM_JOB_ID)")
	flag.StringVar(&c.SlurmNodes, "slurm-nodelist", "", "Slurm host list to use instead of $SLURM_JOB_NODELIST")
	flag.StringVar(&c.SSH.Identity, "identity", "", "SSH private key file (default: agent and ~/.ssh/id_*)")
	flag.StringVar(&c.SSH.KnownHosts, "known-hosts", "", "known_hosts file (default ~/.ssh/known_hosts)")
	flag.StringVar(&c.SSH.Agent, "peer-agent", "rocekit-peer", "path of rocekit-peer on the other hosts")
	flag.StringVar(&c.JournalDir, "journal-dir", ".", "folder of this host's journal")
	flag.DurationVar(&c.SSH.Timeout, "ssh-timeout", 0, "SSH dial and session-open timeout (0: the default)")
	flag.StringVar(&c.Name, "name", "fleet", "the run's name in the store: a rerun with the same name resumes")
	flag.StringVar(&c.Schedule, "schedule", "all", "all (round-robin), ring, or pairs HOST-HOST,HOST-HOST")
	flag.IntVar(&c.PerHost, "per-host", 1, "pairs a host may be in at the same time")
	flag.IntVar(&c.MaxPairs, "max-pairs", 0, "pairs running at the same time in the whole fleet (0: no limit)")
	flag.StringVar(&c.Tool, "tool", "perftest", "perftest (ib_send_bw over rxe) or netperf (TCP_STREAM)")
	flag.IntVar(&c.Duration, "D", 5, "seconds per pair (perftest -D, netperf -l)")
	flag.IntVar(&c.Iterations, "n", 0, "perftest iterations -n instead of -D (0: use -D)")
	flag.IntVar(&c.Size, "size", 0, "perftest message size -s (0: 65536)")
	flag.IntVar(&c.TXDepth, "tx-depth", 0, "perftest -t (0: its default, 128)")
	flag.IntVar(&c.QPTimeout, "qp-timeout", 0, "perftest -u (0: 14, 67 ms; the lab uses 22)")
	flag.BoolVar(&c.Bidir, "b", false, "bidirectional perftest (-b)")
	flag.IntVar(&c.MTU, "mtu", 0, "netdev MTU on every host for the run (0: leave it); restored on exit")
	flag.DurationVar(&c.PairTimeout, "pair-timeout", 2*time.Minute, "deadline of each pair")
	flag.Float64Var(&c.LineRate, "line-rate", 0, "line rate in Gbit/s of NICs that report none (virtio)")
	flag.Float64Var(&c.MinRatio, "min-ratio", fleet.DefaultLineRateRatio, "share of the line rate a pair must reach")
	flag.Float64Var(&c.SlowRatio, "slow-ratio", fleet.DefaultSlowRatio, "share of its peers' median below which a pair is slow")
	flag.BoolVar(&c.Gate, "gate", false, "exit 1 when a pair fails the line-rate gate")
	flag.BoolVar(&c.SecondPass, "second-pass", false, "re-pair the hosts of every failed or outlier pair with hosts that passed, and name the culprit (host, both hosts, link, transient): second-pass.md and .json")
	flag.StringVar(&c.Store, "store", "fleet-rounds.jsonl", "store of the pairs (appended; read to resume)")
	flag.StringVar(&c.Out, "out", "fleet-matrix-out", "folder for matrix.md, .csv, .json, heatmap.svg, findings.json")
	flag.DurationVar(&c.Timeout, "timeout", 2*time.Hour, "deadline of the whole run (0: none)")
	cli.Parse("fleet-matrix")
	cli.Main("fleet-matrix", c.Timeout, func(ctx context.Context) error { return run(ctx, c, os.Stdout, os.Stderr) })
}

// run measures the fleet and restores every host before it returns.
func run(ctx context.Context, c config, out, progress io.Writer) (err error) {
	if c.Slurm != "" { // the allocation's nodes: read only, before the flags are judged
		hosts, err := slurmHosts(ctx, c.SlurmNodes, c.Slurm)
		if err != nil {
			return err
		}
		c.Hosts = append(c.Hosts, hosts...)
	}
	if err := c.validate(); err != nil {
		return err
	}
	sched, _ := c.schedule() // validated
	sched = sched.Limit(c.MaxPairs)
	measurer, _ := c.measurer() // validated
	if err := ownfile.MkdirAll(c.Out); err != nil {
		return err
	}
	o := c.SSH
	o.Journal = filepath.Join(c.JournalDir, "fleet-matrix-journal.jsonl")
	sides, err := fleet.OpenSides(ctx, c.Hosts, o)
	defer func() { err = errors.Join(err, fleet.RestoreSides(sides)) }()
	if err != nil {
		return err
	}
	hosts, err := prepareHosts(ctx, c.Hosts, sides, c.Tool == "perftest", c.MTU, c.LineRate)
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "%d hosts, %d pairs in %d rounds (%s, at most %d per host)\n", len(hosts), sched.Len(), len(sched.Rounds), c.Schedule, c.PerHost)
	plan := fleet.Plan{Name: c.Name, Hosts: hosts, Schedule: sched, Measurer: measurer,
		PairDeadline: c.PairTimeout, Store: report.OpenStore(c.Store), Progress: progress}
	m, runErr := plan.Run(ctx)
	if m == nil {
		return runErr
	}
	gateErr, werr := c.write(out, m, hosts)
	var passErr error
	if c.SecondPass && runErr == nil && werr == nil {
		passErr = c.secondPass(ctx, out, plan, m)
	}
	return errors.Join(runErr, werr, gateErr, passErr)
}

// validate checks every flag, touching nothing: run calls it before any
// host is opened.
func (c config) validate() error {
	if len(c.Hosts) < 2 {
		return cli.Usage("-host: at least two hosts")
	}
	_, schedErr := c.schedule()
	_, measErr := c.measurer()
	return errors.Join(cli.BadFlag(schedErr), cli.BadFlag(measErr), cli.Duration("-timeout", c.Timeout),
		cli.Duration("-pair-timeout", c.PairTimeout), cli.Duration("-ssh-timeout", c.SSH.Timeout), cli.MTU("-mtu", c.MTU),
		cli.Ratio("-min-ratio", c.MinRatio), cli.Ratio("-slow-ratio", c.SlowRatio), cli.NotNegative("-line-rate", c.LineRate),
		cli.AtLeast("-max-pairs", c.MaxPairs, 0))
}

// schedule is the -schedule of the -host names.
func (c config) schedule() (fleet.Schedule, error) {
	s, err := fleet.ParseSchedule(c.Schedule, c.Hosts.names(), c.PerHost)
	if err != nil {
		return s, fmt.Errorf("-schedule: %w", err)
	}
	return s, nil
}

// measurer builds the pair measurement from the flags.
func (c config) measurer() (fleet.Measurer, error) {
	switch c.Tool {
	case "perftest":
		o := perftest.Options{Test: perftest.SendBW, Duration: time.Duration(c.Duration) * time.Second, Iterations: c.Iterations, Size: c.Size,
			TXDepth: c.TXDepth, QPTimeout: c.QPTimeout, Bidirectional: c.Bidir, ReportGbits: true, NoFreqCheck: true,
			Timeout: c.PairTimeout}
		if c.Iterations > 0 {
			o.Duration = 0
		}
		if err := o.Validate(); err != nil {
			return nil, err
		}
		return fleet.PerftestMeasurer{Options: o, Pin: true}, nil
	case "netperf":
		if c.Bidir {
			return nil, errors.New("-b is for perftest")
		}
		o := netperf.Options{Test: netperf.TestTCPStream, Length: time.Duration(c.Duration) * time.Second, Family: netperf.IPv4}
		return fleet.NetperfMeasurer{Options: o}, o.Validate()
	}
	return nil, cli.OneOf("-tool", c.Tool, "perftest", "netperf")
}

// write prints and saves the matrix, the outliers and the gate's verdict;
// it returns the gate's error when -gate is set.
func (c config) write(out io.Writer, m *fleet.Matrix, hosts []fleet.Host) (gateErr, err error) {
	var md strings.Builder
	w := io.MultiWriter(out, &md)
	fmt.Fprintf(w, "# fleet matrix %s (%s, Gbit/s)\n\n", m.Name, c.Tool)
	if err := m.WriteMarkdown(w); err != nil {
		return nil, err
	}
	outliers := fleet.Outliers(m, c.SlowRatio)
	fmt.Fprintf(w, "\n## Outliers\n\n")
	if len(outliers) == 0 {
		fmt.Fprintln(w, "none: every measured pair is within its peers' range")
	}
	for _, o := range outliers {
		fmt.Fprintf(w, "- **%s**: %s\n", o.Blame, o)
	}
	gate := fleet.LineRateGate{MinRatio: c.MinRatio}
	verdict := gate.Check(m)
	fmt.Fprintf(w, "\n## Line-rate gate (%.0f%%)\n\n", 100*c.MinRatio)
	if verdict == nil {
		fmt.Fprintln(w, "passed")
	} else {
		fmt.Fprintln(w, verdict)
	}
	findings := gate.Findings(m, outliers)
	report.SortFindings(findings)
	fmt.Fprintln(w)
	if err := report.WriteFindingsMarkdown(w, findings); err != nil {
		return nil, err
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"matrix.md", func(f io.Writer) error { _, err := io.WriteString(f, md.String()); return err }},
		{"matrix.csv", m.WriteCSV},
		{"matrix.json", m.WriteJSON},
		{"heatmap.svg", m.WriteHeatmapSVG},
		{"findings.json", func(f io.Writer) error {
			return report.WriteJSON(f, summary{Outliers: outliers, Findings: findings, Gate: gateText(verdict), Hosts: hosts})
		}},
	}
	for _, f := range files {
		if _, err := cli.WriteFile(c.Out, f.name, f.write); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(out, "\nwritten to %s\n", filepath.Clean(c.Out))
	if c.Gate {
		return verdict, nil
	}
	return nil, nil
}

// summary is findings.json.
type summary struct {
	Hosts    []fleet.Host     `json:"hosts"`
	Outliers []fleet.Outlier  `json:"outliers"`
	Gate     string           `json:"gate"`
	Findings []report.Finding `json:"findings"`
}

func gateText(err error) string {
	if err == nil {
		return "passed"
	}
	return err.Error()
}

// secondPass re-pairs the suspects of m with hosts that passed, prints
// each suspect's culprit and saves second-pass.md and second-pass.json.
func (c config) secondPass(ctx context.Context, out io.Writer, plan fleet.Plan, m *fleet.Matrix) error {
	sp, err := plan.SecondPass(ctx, m, fleet.SecondPassOptions{SlowRatio: c.SlowRatio})
	if sp == nil {
		return err
	}
	var md strings.Builder
	w := io.MultiWriter(out, &md)
	fmt.Fprintf(w, "\n## Second pass (reference %s, good hosts: %s)\n\n", bottleneck.FormatRate(sp.ReferenceGbps), strings.Join(sp.Good, ", "))
	if len(sp.Suspects) == 0 {
		fmt.Fprintln(w, "no suspect pair: nothing to re-pair")
	}
	for _, s := range sp.Suspects {
		blame := string(s.Culprit)
		if s.Host != "" {
			blame += " " + s.Host
		}
		fmt.Fprintf(w, "- **%s**: %s — %s\n", s.Name, blame, s.Why)
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"second-pass.md", func(f io.Writer) error { _, err := io.WriteString(f, md.String()); return err }},
		{"second-pass.json", func(f io.Writer) error { return report.WriteJSON(f, sp) }},
	} {
		if _, werr := cli.WriteFile(c.Out, f.name, f.write); werr != nil {
			return errors.Join(err, werr)
		}
	}
	return err
}
