// Command netperf-udp-tuning runs the NIC UDP tuning runbook: netperf
// UDP_STREAM from this host (the sender) to netserver on the far end (the
// receiver), in cumulative rounds compared side by side (workflow.RunUDPRounds
// does the rounds; this is its flags):
//
//	A  default: nothing changed
//	S  net.core.rmem_max and wmem_max raised to the -sockbuf asked, on both
//	   ends (Linux caps SO_RCVBUF at rmem_max, 212992 by default, so
//	   "-S 2M" is clamped until they are)
//	B  S + MTU -mtu on both ends
//	C  B + the queue IRQs of each NIC spread over its NUMA-local CPUs,
//	   irqbalance paused, cpufreq governor -governor, on both ends
//	V  C + the runbook's verification run: -m 8000 -s 4M -S 4M
//
// or the runbook's three groups as written: 1 default, 2 the MTU only,
// 3 the MTU + IRQs + governor (-rounds 1,2,3); and T, a TCP_STREAM
// reference round in the state of the round before it ("UDP on par with
// TCP"). The rounds that raise the MTU send -mtu minus 28 bytes, the
// largest datagram one frame carries, so that frames above 1500 bytes are
// sent (-keep-m keeps -m, and the round says why it cannot gain).
//
// Before the rounds, a preflight reads both ends (preflight.md,
// preflight.json). Before each round, the settings made so far are read
// back (a drifted one is a finding). Each round records both netdevs,
// runs netserver on the far end and netperf -count times, reading both
// ends' counters and netserver's own socket (its drops, beside Udp
// RcvbufErrors), writes its archive to -out, appends it to -store and is
// compared with the store's previous round of its name.
//
// In -out: report.md, report.html, throughput.svg, interims-throughput.svg,
// cpu-LETTER.svg, summary.json and one NAME.tar.gz per round (raw outputs,
// snapshots of both ends, rerun.sh).
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
//	go run ./examples/netperf-udp-tuning -netdev eth0 -peer-netns udppeer -peer-netdev eth1 -rounds 1,2,3,T
//
// Flags besides the shared ones (-netdev, -peer, -peer-netns, -peer-netdev,
// -journal, -timeout, ...):
//
//	-rounds A,S,B,C,V   the rounds to run, in order (A S B C V 1 2 3 T)
//	-mtu 9000           MTU of the rounds that set one
//	-l 30               seconds per netperf run
//	-m 1400             UDP message size (stay below MTU-28 of round A)
//	-keep-m             keep -m in the MTU rounds
//	-sockbuf 2M         -s and -S socket buffers (K, M, G: binary; k, m, g: decimal)
//	-count 3            runs per round
//	-keep-going         a failed run is a warning, not the end of the run
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
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/progress"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// config is what the flags set.
type config struct {
	cli.Flags
	Rounds    string
	MTU       int
	Length    int
	MsgSize   int
	KeepMsg   bool
	SockBuf   string
	Count     int
	KeepGoing bool
	Store     string
	Out       string
	Governor  string
	Interval  int // netperf -D: seconds between interim results, 0 off
}

func main() {
	var c config
	c.Register(flag.CommandLine)
	flag.StringVar(&c.Rounds, "rounds", "A,S,B,C,V", "rounds to run, in order: A default, S socket buffer limits, B S + MTU -mtu, C B + IRQs spread + -governor, V C + -m 8000 -s 4M -S 4M; "+
		"or the runbook's groups 1 default, 2 MTU only, 3 MTU + IRQs + governor; T a TCP_STREAM reference round")
	flag.IntVar(&c.MTU, "mtu", 9000, "netdev MTU on both ends in the rounds that set one; restored on exit")
	flag.IntVar(&c.Length, "l", 30, "seconds per netperf run (-l)")
	flag.IntVar(&c.MsgSize, "m", 1400, "UDP message size in bytes (test-specific -m); the MTU rounds send MTU-28 unless -keep-m")
	flag.BoolVar(&c.KeepMsg, "keep-m", false, "keep -m in the rounds that raise the MTU (no frame above 1500 bytes is then sent)")
	flag.StringVar(&c.SockBuf, "sockbuf", "2M", "socket buffer of both ends (test-specific -s and -S)")
	flag.IntVar(&c.Count, "count", 3, "netperf runs per round")
	flag.BoolVar(&c.KeepGoing, "keep-going", false, "a failed netperf run is a warning of its round (its output kept), not the end of the run")
	flag.StringVar(&c.Store, "store", "rocekit-rounds.jsonl", "round store (appended)")
	flag.StringVar(&c.Out, "out", "netperf-udp-tuning-out", "folder for report.md, the plots, summary.json and the round archives")
	flag.StringVar(&c.Governor, "governor", "performance", "cpufreq governor of the IRQ rounds on both ends; restored on exit")
	flag.IntVar(&c.Interval, "interval", 1, "seconds between netperf's interim results (-D), drawn over time in interims-throughput.svg; 0 off")
	cli.Parse("netperf-udp-tuning")
	cli.Main("netperf-udp-tuning", c.Timeout, func(ctx context.Context) error { return run(ctx, c, os.Stdout, os.Stderr) })
}

// errLoopback refuses a run without a far end.
var errLoopback = errors.New("NIC UDP tuning needs two ends: give -peer-netns NS -peer-netdev DEV or -peer user@host (loopback would measure lo, not the NIC)")

// run does the rounds and restores every change it made before it
// returns, whatever happened.
func run(ctx context.Context, c config, out, status io.Writer) error {
	return c.OpenRun(ctx, c.validate, c.Out, c.Store, status, func(sides *runbook.Sides) error { return rounds(ctx, c, sides, out, status) })
}

// rounds runs the rounds on the opened sides and writes the report.
func rounds(ctx context.Context, c config, sides *runbook.Sides, out, status io.Writer) error {
	o, _ := c.options() // validated
	if spreads(o.Rounds) {
		// Before round A changes anything: a governor a host's driver
		// does not offer would fail round C only.
		hosts := map[string]host.Runner{sides.Near.Name(): sides.Near.Runner(), sides.Far.Name(): sides.Far.Runner()}
		if err := cli.CheckGovernorOffered(ctx, "-governor", c.Governor, hosts); err != nil {
			return err
		}
	}
	prog := progress.New(status, 1+len(o.Rounds)*(2+c.Count))
	o.Progress, o.FarTarget = prog, c.Peer
	prog.Step("preflight: both ends' NIC, link, firewall, limits")
	pre, err := workflow.RunUDPPreflight(ctx, sides, o.Netperf.RemoteSocketBuffer)
	if err != nil {
		return err
	}
	if err := pre.WriteFiles(c.Out, out); err != nil {
		return err
	}
	o.Preflight, o.PreflightFindings = pre.Hosts, pre.Findings
	results, err := workflow.RunUDPRounds(ctx, sides, o)
	prog.Done()
	if len(results) > 0 {
		err = errors.Join(err, workflow.WriteUDPReport(c.Out, out, sides, results))
	}
	return err
}

// validate checks every flag, touching nothing: run calls it before
// anything is read or changed. The governor is checked by name here, and
// against what both hosts offer once they are open, before round A.
func (c config) validate() error {
	o, optsErr := c.options()
	var govErr error
	if optsErr == nil && spreads(o.Rounds) {
		govErr = cli.Governor("-governor", c.Governor)
	}
	if err := errors.Join(c.Flags.Validate(), cli.BadFlag(optsErr), govErr); err != nil {
		return err
	}
	if c.Peer == "" && c.PeerNetns == "" {
		return errLoopback
	}
	return nil
}

// spreads reports whether a round spreads the IRQs and sets the governor.
func spreads(specs []workflow.UDPRound) bool {
	return slices.ContainsFunc(specs, func(s workflow.UDPRound) bool { return s.Spread })
}

// options are the rounds as the flags say, without the host (the far
// netdev's address, read each round).
func (c config) options() (workflow.UDPOptions, error) {
	rounds, err := workflow.ParseUDPRounds(c.Rounds, c.MTU)
	if err != nil {
		return workflow.UDPOptions{}, err
	}
	buf, err := workflow.ParseSize(c.SockBuf)
	if err != nil {
		return workflow.UDPOptions{}, fmt.Errorf("-sockbuf: %w", err)
	}
	if err := errors.Join(cli.AtLeast("-count", c.Count, 1), cli.AtLeast("-l", c.Length, 1)); err != nil {
		return workflow.UDPOptions{}, err
	}
	n := netperf.Options{Test: netperf.TestUDPStream, Family: netperf.IPv4, Length: time.Duration(c.Length) * time.Second,
		MessageSize: c.MsgSize, LocalSocketBuffer: buf, RemoteSocketBuffer: buf}
	switch {
	case c.Interval < 0:
		return workflow.UDPOptions{}, fmt.Errorf("-interval %d: want 0 (off) or more seconds", c.Interval)
	case c.Interval > 0:
		// netperf -D N: an interim result every N seconds, where a stall shows.
		n.Extra = append(n.Extra, "-D", strconv.Itoa(c.Interval))
	}
	policy := workflow.NetperfStop
	if c.KeepGoing {
		policy = workflow.NetperfKeepGoing
	}
	return workflow.UDPOptions{Rounds: rounds, Netperf: n, Count: c.Count, Policy: policy, Governor: c.Governor,
		KeepMessageSize: c.KeepMsg, Out: c.Out, Store: report.OpenStore(c.Store)}, n.Validate()
}
