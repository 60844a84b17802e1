// Command rocekit-nodecheck checks this node before Slurm gives it work,
// as a Prolog or HealthCheckProgram (which slurmd kills after 60 s): the
// tools are there (netperf and netserver; ib_send_bw with -rdma), an RDMA
// port is ACTIVE (with -rdma), and a loopback netperf TCP_STREAM reaches
// -min-gbps, all within -timeout. It exits 0 when the node is healthy
// (a summary on standard error), else 1 with one line on standard output
// that names the cause, to be used as the drain reason:
//
//	rocekit: netperf missing (apt install netperf)
//	rocekit: loopback netperf 0.16 Gbit/s below 1 Gbit/s
//
// With -drain it drains the node itself with that reason (what a
// HealthCheckProgram does; a failing Prolog drains it through slurmd).
//
// In slurm.conf, as root on every node:
//
//	HealthCheckProgram=/usr/local/sbin/rocekit-nodecheck-drain   # a two-line script: exec rocekit-nodecheck -drain
//	Prolog=/usr/local/bin/rocekit-nodecheck
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

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/rxe"
)

// config is what the flags set.
type config struct {
	RDMA    bool
	MinGbps float64
	Length  time.Duration
	Port    uint16
	Timeout time.Duration
	Drain   bool
	Node    string // for -drain; "" is $SLURMD_NODENAME or the host name
}

// maxReason bounds the drain reason: one short line in sinfo -R.
const maxReason = 200

func main() {
	var c config
	var port uint
	flag.BoolVar(&c.RDMA, "rdma", false, "also require ib_send_bw and an ACTIVE RDMA port")
	flag.Float64Var(&c.MinGbps, "min-gbps", 1, "loopback netperf TCP_STREAM must reach this many Gbit/s")
	flag.DurationVar(&c.Length, "length", 5*time.Second, "loopback netperf test length (-l)")
	flag.UintVar(&port, "port", 12899, "netserver control port of the loopback test")
	flag.DurationVar(&c.Timeout, "timeout", 50*time.Second, "deadline of the whole check (HealthCheckProgram is killed at 60 s)")
	flag.BoolVar(&c.Drain, "drain", false, "drain the node with the reason when it fails (scontrol update)")
	flag.StringVar(&c.Node, "node", "", "node name for -drain (default $SLURMD_NODENAME, else the host name)")
	flag.Parse()
	if port == 0 || port > 65535 {
		fmt.Println("rocekit: nodecheck: -port out of range")
		os.Exit(2)
	}
	c.Port = uint16(port)
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	os.Exit(run(ctx, host.Local{}, rxe.Root{}, c, os.Stdout, os.Stderr))
}

// run checks the node and reports: exit 0 and a summary on errOut when
// healthy, exit 1 and the reason as one line on out otherwise.
func run(ctx context.Context, r host.Runner, root rxe.Root, c config, out, errOut io.Writer) int {
	summary, reason := check(ctx, r, root, c)
	if reason == "" {
		fmt.Fprintln(errOut, "rocekit: node healthy: "+summary)
		return 0
	}
	fmt.Fprintln(out, reason)
	if c.Drain {
		if err := drain(context.WithoutCancel(ctx), r, c.Node, reason); err != nil {
			fmt.Fprintln(errOut, "rocekit: drain:", err)
		}
	}
	return 1
}

// check returns what passed, or the reason the node is not fit.
func check(ctx context.Context, r host.Runner, root rxe.Root, c config) (summary, reason string) {
	tools := []struct{ prog, flag, pkg string }{
		{"netperf", "-V", "netperf"}, {"netserver", "-V", "netperf"},
	}
	if c.RDMA {
		tools = append(tools, struct{ prog, flag, pkg string }{"ib_send_bw", "--version", "perftest"})
	}
	for _, t := range tools {
		_, err := host.Run(ctx, r, host.Cmd{Argv: []string{t.prog, t.flag}})
		if errors.Is(err, host.ErrNotFound) {
			return "", fmt.Sprintf("rocekit: %s missing (apt install %s)", t.prog, t.pkg)
		}
		if ctx.Err() != nil {
			return "", timedOut(c, "looking for "+t.prog)
		}
	}
	var parts []string
	if c.RDMA {
		dev, why := activePort(root)
		if why != "" {
			return "", "rocekit: " + why
		}
		parts = append(parts, dev+" ACTIVE")
	}
	gbps, why := loopback(ctx, r, c)
	switch {
	case ctx.Err() != nil:
		return "", timedOut(c, "the loopback netperf")
	case why != "":
		return "", oneLine("rocekit: " + why)
	case gbps < c.MinGbps:
		return "", fmt.Sprintf("rocekit: loopback netperf %.2f Gbit/s below %g Gbit/s", gbps, c.MinGbps)
	}
	parts = append(parts, fmt.Sprintf("loopback netperf %.2f Gbit/s (at least %g)", gbps, c.MinGbps))
	return strings.Join(parts, ", "), ""
}

func timedOut(c config, what string) string {
	return fmt.Sprintf("rocekit: node check not done within %s (at %s)", c.Timeout, what)
}

// activePort returns the first RDMA device with an ACTIVE port, or why
// there is none.
//
// Similar to: rdma link show | grep -w ACTIVE
func activePort(root rxe.Root) (string, string) {
	names, err := root.DeviceNames()
	if err != nil {
		return "", "reading RDMA devices: " + err.Error()
	}
	if len(names) == 0 {
		return "", "no RDMA device (modprobe rdma_rxe; rdma link add rxe0 type rxe netdev IF)"
	}
	var states []string
	for _, n := range names {
		ports := []rxe.Port{}
		if d, err := root.Device(n); err == nil {
			ports = d.Ports
		} else if p, err := root.Port(n, 1); err == nil { // the port alone
			ports = append(ports, p)
		} else {
			states = append(states, n+" unreadable: "+err.Error())
			continue
		}
		for _, p := range ports {
			if p.State == rxe.PortActive {
				return fmt.Sprintf("%s/%d", n, p.Port), ""
			}
			states = append(states, fmt.Sprintf("%s/%d %s", n, p.Port, p.State))
		}
	}
	return "", "no RDMA port ACTIVE (" + strings.Join(states, ", ") + ")"
}

// loopback runs netserver and a netperf TCP_STREAM against it on
// 127.0.0.1 and returns the throughput, or why it could not be measured.
//
// Similar to: netserver -D -L 127.0.0.1 -p PORT & netperf -H 127.0.0.1 -p PORT -t TCP_STREAM -l 5
func loopback(ctx context.Context, r host.Runner, c config) (float64, string) {
	ns, err := netperf.StartNetserver(ctx, r, netperf.ServerOptions{Port: c.Port, Addr: "127.0.0.1", Family: netperf.IPv4})
	if err != nil {
		return 0, "loopback netserver did not start: " + err.Error()
	}
	defer ns.Stop(context.WithoutCancel(ctx))
	res, err := netperf.Run(ctx, r, netperf.Options{Test: netperf.TestTCPStream, Host: "127.0.0.1", Port: c.Port,
		Family: netperf.IPv4, Length: c.Length})
	if err != nil {
		return 0, "loopback netperf failed: " + err.Error()
	}
	if res.ThroughputMbps == nil {
		return 0, "loopback netperf printed no throughput"
	}
	return *res.ThroughputMbps / 1000, ""
}

// drain sets the node DRAIN with reason.
//
// Similar to: scontrol update NodeName=NODE State=DRAIN Reason="..."
func drain(ctx context.Context, r host.Runner, node, reason string) error {
	if node == "" {
		node = os.Getenv("SLURMD_NODENAME")
	}
	if node == "" {
		h, err := os.Hostname()
		if err != nil {
			return err
		}
		node, _, _ = strings.Cut(h, ".")
	}
	_, err := host.Run(ctx, r, host.Cmd{Argv: []string{"scontrol", "update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason}})
	return err
}

// oneLine makes s a drain reason: its first line, at most maxReason bytes.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSpace(s)
	if len(s) > maxReason {
		s = s[:maxReason-3] + "..."
	}
	return s
}
