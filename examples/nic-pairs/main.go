// Command nic-pairs runs one perftest (or netperf) pair per NIC between two
// hosts, all at the same time, as ngc_multinode_perf does for the NICs of
// two GPU servers:
//
//  1. prepare every NIC of both ends (-netdevs here, -peer-netdevs there,
//     or the one -peer-netdev; by default the same names as here):
//     an rxe link on each, ACTIVE, its RoCE v2 GID picked (perftest), and
//     read its address, subnet, link speed and NUMA-local CPUs,
//  2. pair the NICs that reach each other (same subnet), one pair each,
//     with its own TCP port (-port, -port+1, ...), each side pinned to its
//     NIC's share of the NUMA-local CPUs,
//  3. start every server and wait until all listen, then release every
//     client at once; a pair that fails is reported beside the others,
//  4. print each pair's bandwidth, the sum and the slowest pair, and the
//     line-rate check (-min-ratio of each link's speed) when the speeds
//     are known (-line-rate for NICs that report none); write
//     -out/summary.json.
//
// The far end is, by the flags: (none) loopback, each NIC's pair on its
// own rxe device; -peer-netns NS a namespace here; -peer root@host another
// host over SSH with rocekit-peer. Every change is journaled and undone on
// exit.
//
// Usage, as root:
//
//	go run ./examples/nic-pairs -netdevs eth0,eth1 -peer root@198.18.0.2 -D 10 -b
//	go run ./examples/nic-pairs -netdevs eth0,eth1 -tool netperf
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"text/tabwriter"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/fleet"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// config is what the flags set.
type config struct {
	cli.Flags
	Netdevs, PeerNetdevs string
	Tool                 string
	Duration             int
	Iterations           int
	Bidir, Pin           bool
	Port                 int
	QPTimeout            int
	MTU                  int
	LineRate, MinRatio   float64
	Gate                 bool
	Out                  string
}

func main() {
	var c config
	c.Register(flag.CommandLine)
	flag.StringVar(&c.Netdevs, "netdevs", "", "this host's netdevs, comma-separated (default: -netdev)")
	flag.StringVar(&c.PeerNetdevs, "peer-netdevs", "", "the far host's netdevs (default: -peer-netdev, else -netdevs)")
	flag.StringVar(&c.Tool, "tool", "perftest", "perftest (ib_send_bw over rxe) or netperf (TCP_STREAM)")
	flag.IntVar(&c.Duration, "D", 5, "seconds per pair (perftest -D, netperf -l)")
	flag.IntVar(&c.Iterations, "n", 0, "perftest iterations -n instead of -D (0: use -D)")
	flag.BoolVar(&c.Bidir, "b", false, "bidirectional perftest (-b)")
	flag.BoolVar(&c.Pin, "pin", true, "pin each side to its NIC's share of the NUMA-local CPUs")
	flag.IntVar(&c.Port, "port", 0, "first TCP port, one more per pair (0: perftest's 18515, netperf's 12865)")
	flag.IntVar(&c.QPTimeout, "qp-timeout", 0, "perftest -u (0: 14; the lab uses 22)")
	flag.IntVar(&c.MTU, "mtu", 0, "MTU of every netdev for the run (0: leave it); restored on exit")
	flag.Float64Var(&c.LineRate, "line-rate", 0, "line rate in Gbit/s of NICs that report none")
	flag.Float64Var(&c.MinRatio, "min-ratio", fleet.DefaultLineRateRatio, "share of the line rate each pair must reach, more than 0 and at most 1")
	flag.BoolVar(&c.Gate, "gate", false, "exit 1 when a pair failed or is below -min-ratio of a known line rate")
	flag.StringVar(&c.Out, "out", "nic-pairs-out", "folder for summary.json")
	cli.Parse("nic-pairs")
	cli.Main("nic-pairs", c.Timeout, func(ctx context.Context) error { return run(ctx, c, os.Stdout, os.Stderr) })
}

// run prepares both ends, runs the pairs and restores both ends.
func run(ctx context.Context, c config, out, progress io.Writer) (err error) {
	if err := c.validate(); err != nil {
		return err
	}
	near, far := c.netdevs()
	c.Netdev, c.PeerNetdev, c.Log = near[0], far[0], progress
	sides, err := c.Open(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, sides.Restore()) }()
	server, client, err := prepare(ctx, c, sides, far, near)
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "%s: %d NICs, %s: %d NICs; running %s pairs at once\n", server.Name, len(server.NICs), client.Name, len(client.NICs), c.Tool)
	var rows []pairRow
	var sum float64
	slowest := -1
	if c.Tool == "perftest" {
		rows, sum, slowest, err = runPerftest(ctx, c, server, client)
	} else {
		rows, sum, slowest, err = runNetperf(ctx, c, server, client)
	}
	if rows == nil {
		return err
	}
	s := summary{Tool: c.Tool, Mode: string(sides.Mode), Pairs: rows, SumGbps: sum, Slowest: slowest, MinRatio: c.MinRatio}
	s.judge()
	s.print(out)
	if _, werr := cli.WriteFile(c.Out, "summary.json", func(f io.Writer) error { return report.WriteJSON(f, s) }); werr != nil {
		return errors.Join(err, werr)
	}
	if c.Gate && s.Below > 0 {
		err = errors.Join(err, fmt.Errorf("%w: %d of %d pairs under %.0f%%", fleet.ErrBelowLineRate, s.Below, len(s.Pairs), 100*c.MinRatio))
	}
	return err
}

// netdevs are both ends' netdevs: -netdevs (or -netdev) here; there
// -peer-netdevs, else -peer-netdev, else this end's.
func (c config) netdevs() (near, far []string) {
	near = cli.SplitList(c.Netdevs)
	if len(near) == 0 && c.Netdev != "" {
		near = []string{c.Netdev}
	}
	far = cli.SplitList(c.PeerNetdevs)
	if len(far) == 0 && c.PeerNetdev != "" {
		far = []string{c.PeerNetdev}
	}
	if len(far) == 0 {
		far = near
	}
	return near, far
}

// validate checks every flag, touching nothing: run calls it before
// anything is read, loaded or changed.
func (c config) validate() error {
	near, far := c.netdevs()
	var errs []error
	switch {
	case len(near) == 0:
		errs = append(errs, cli.Usage("-netdevs (or -netdev) is required"))
	case c.Netdevs != "" && c.Netdev != "" && c.Netdev != near[0]:
		errs = append(errs, cli.Usage("-netdev and -netdevs exclude each other"))
	}
	if c.PeerNetdevs != "" && c.PeerNetdev != "" {
		errs = append(errs, cli.Usage("-peer-netdev and -peer-netdevs exclude each other"))
	}
	if c.Peer == "" && c.PeerNetns == "" && c.PeerNetdevs != "" && c.PeerNetdevs != c.Netdevs {
		errs = append(errs, cli.Usage("-peer-netdevs needs -peer or -peer-netns (loopback uses -netdevs on both ends)"))
	}
	f := c.Flags
	if c.Netdevs != "" {
		for _, n := range near {
			errs = append(errs, cli.Netdev("-netdevs", n))
		}
		// -netdevs stands for -netdev, its names checked above as -netdevs.
		if f.Netdev = near[0]; cli.Netdev("", near[0]) != nil {
			f.Netdev = "checked0"
		}
	}
	if c.PeerNetdevs != "" {
		for _, n := range far {
			errs = append(errs, cli.Netdev("-peer-netdevs", n))
		}
	}
	if len(near) > 0 {
		errs = append(errs, f.Validate())
	}
	errs = append(errs, cli.OneOf("-tool", c.Tool, "perftest", "netperf"))
	if c.Iterations == 0 {
		errs = append(errs, cli.AtLeast("-D", c.Duration, 1))
	}
	return errors.Join(append(errs, cli.Iterations("-n", c.Iterations), cli.QPTimeout("-qp-timeout", c.QPTimeout),
		cli.MTU("-mtu", c.MTU), cli.Port("-port", c.Port, min(len(near), len(far))),
		cli.NotNegative("-line-rate", c.LineRate), cli.Ratio("-min-ratio", c.MinRatio))...)
}

// prepare makes both ends fleet hosts: rxe links (perftest) or addresses
// only (netperf), with line rates and NUMA-local CPUs.
func prepare(ctx context.Context, c config, sides *runbook.Sides, far, near []string) (server, client fleet.Host, err error) {
	for _, h := range []struct {
		name    string
		side    runbook.Side
		netdevs []string
		dst     *fleet.Host
	}{{"far", sides.Far, far, &server}, {"near", sides.Near, near, &client}} {
		if c.Tool == "perftest" {
			*h.dst, err = fleet.PrepareHost(ctx, h.name, h.side, h.netdevs, c.MTU, nil)
		} else {
			*h.dst, err = fleet.PrepareNetperfHost(ctx, h.name, h.side, h.netdevs, c.MTU)
		}
		if err != nil {
			return server, client, err
		}
		for i := range h.dst.NICs {
			if h.dst.NICs[i].LineRateGbps == 0 {
				h.dst.NICs[i].LineRateGbps = c.LineRate
			}
		}
	}
	return server, client, nil
}

// pairRow is one pair in the output.
type pairRow struct {
	Name         string  `json:"name"`
	Port         int     `json:"port"`
	ServerCPUs   []int   `json:"server_cpus,omitempty"`
	ClientCPUs   []int   `json:"client_cpus,omitempty"`
	OK           bool    `json:"ok"`
	Gbps         float64 `json:"gbps"`
	LineRateGbps float64 `json:"line_rate_gbps,omitempty"`
	Verdict      string  `json:"verdict"`
	Error        string  `json:"error,omitempty"`
	ClientStart  string  `json:"client_start,omitempty"` // after the release, RFC 3339 with ns
}

func runPerftest(ctx context.Context, c config, server, client fleet.Host) ([]pairRow, float64, int, error) {
	o := perftest.Options{Test: perftest.SendBW, Duration: time.Duration(c.Duration) * time.Second,
		Bidirectional: c.Bidir, QPTimeout: c.QPTimeout, ReportGbits: true, NoFreqCheck: true}
	if c.Iterations > 0 {
		o.Duration, o.Iterations = 0, c.Iterations
	}
	specs, err := fleet.NICPairs(server, client, o, c.Port, c.Pin)
	if err != nil {
		return nil, 0, -1, err
	}
	par, err := fleet.RunParallel(ctx, specs)
	if par == nil {
		return nil, 0, -1, err
	}
	links, _ := fleet.Links(server, client)
	var rows []pairRow
	for i, p := range par.Pairs {
		r := pairRow{Name: p.Spec.Name, Port: p.Spec.Options.Port, ServerCPUs: p.Spec.Options.Server.CPUs,
			ClientCPUs: p.Spec.Options.Client.CPUs, OK: p.OK(), Gbps: p.BWGbps,
			LineRateGbps: min(links[i][0].LineRateGbps, links[i][1].LineRateGbps)}
		if !p.ClientStart.IsZero() {
			r.ClientStart = p.ClientStart.Format(time.RFC3339Nano)
		}
		if p.Err != nil {
			r.Error = p.Err.Error()
		}
		rows = append(rows, r)
	}
	fmt.Fprintf(os.Stderr, "clients released together once every server listened: starts within %v\n", par.ReleaseSpread)
	return rows, par.SumBWGbps, par.Slowest, err
}

func runNetperf(ctx context.Context, c config, server, client fleet.Host) ([]pairRow, float64, int, error) {
	links, err := fleet.Links(server, client)
	if err != nil {
		return nil, 0, -1, err
	}
	base := c.Port
	if base == 0 {
		base = netperf.DefaultPort
	}
	var specs []fleet.NetperfSpec
	for i, l := range links {
		specs = append(specs, fleet.NetperfSpec{Name: l[0].Netdev + "-" + l[1].Netdev, Server: server.Runner, Client: client.Runner,
			Options: netperf.Options{Test: netperf.TestTCPStream, Host: l[0].Addr.String(), Port: uint16(base + i),
				Length: time.Duration(c.Duration) * time.Second, Family: netperf.IPv4}})
	}
	par, err := fleet.RunNetperfPairs(ctx, specs)
	if par == nil {
		return nil, 0, -1, err
	}
	var rows []pairRow
	for i, p := range par.Pairs {
		r := pairRow{Name: p.Spec.Name, Port: int(p.Spec.Options.Port), OK: p.OK(), Gbps: p.Gbps,
			LineRateGbps: min(links[i][0].LineRateGbps, links[i][1].LineRateGbps)}
		if p.Err != nil {
			r.Error = p.Err.Error()
		}
		rows = append(rows, r)
	}
	return rows, par.SumGbps, par.Slowest, err
}

// summary is summary.json and what is printed.
type summary struct {
	Tool     string    `json:"tool"`
	Mode     string    `json:"mode"`
	Pairs    []pairRow `json:"pairs"`
	SumGbps  float64   `json:"sum_gbps"`
	Slowest  int       `json:"slowest"` // index in Pairs, -1 when none succeeded
	MinRatio float64   `json:"min_ratio"`
	Failed   int       `json:"failed"`
	Below    int       `json:"below"` // below MinRatio of a known line rate
}

// judge gives each pair its verdict against its line rate.
func (s *summary) judge() {
	for i := range s.Pairs {
		p := &s.Pairs[i]
		switch {
		case !p.OK:
			p.Verdict, p.Gbps = "failed", 0
			s.Failed++
		case p.LineRateGbps <= 0:
			p.Verdict = "line rate unknown"
		case p.Gbps >= s.MinRatio*p.LineRateGbps:
			p.Verdict = "pass"
		default:
			p.Verdict = fmt.Sprintf("below %.0f%% of line rate", 100*s.MinRatio)
			s.Below++
		}
		if math.IsNaN(p.Gbps) {
			p.Gbps = 0
		}
	}
}

func (s *summary) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "pair\tport\tserver CPUs\tclient CPUs\tGbit/s\tline rate\tverdict")
	for _, p := range s.Pairs {
		fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t%.4g\t%.4g\t%s\n", p.Name, p.Port, p.ServerCPUs, p.ClientCPUs, p.Gbps, p.LineRateGbps, p.Verdict)
	}
	tw.Flush()
	slow := "none"
	if s.Slowest >= 0 {
		slow = fmt.Sprintf("%s (%.4g Gbit/s)", s.Pairs[s.Slowest].Name, s.Pairs[s.Slowest].Gbps)
	}
	fmt.Fprintf(w, "\nsum %.4g Gbit/s over %d pairs, slowest %s, %d failed\n", s.SumGbps, len(s.Pairs)-s.Failed, slow, s.Failed)
	for _, p := range s.Pairs {
		if p.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", p.Name, p.Error)
		}
	}
}
