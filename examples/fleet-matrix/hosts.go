package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rocekit/rocekit/fleet"
	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/didyoumean"
	"github.com/rocekit/rocekit/runbook"
)

// hostFlag is one -host NAME=TARGET:NETDEV[+NETDEV...].
type hostFlag struct {
	Name, Target string // Target: "local", "user@addr[:port]" or "srun:NODE"
	Netdevs      []string
}

// hostList collects repeated -host flags.
type hostList []hostFlag

func (l *hostList) String() string { return fmt.Sprint(*l) }

// Set parses "b=root@198.18.1.2:eth0+eth1" or "a=local:eth0".
func (l *hostList) Set(s string) error {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q: want NAME=local:NETDEV or NAME=user@host:NETDEV[+NETDEV]", s)
	}
	i := strings.LastIndex(rest, ":")
	if i <= 0 || i == len(rest)-1 {
		return fmt.Errorf("%q: no :NETDEV after the target", s)
	}
	target, nds := rest[:i], strings.Split(rest[i+1:], "+")
	for _, n := range nds {
		if n == "" || strings.ContainsAny(n, " /") {
			return fmt.Errorf("%q: bad netdev %q", s, n)
		}
	}
	*l = append(*l, hostFlag{Name: name, Target: target, Netdevs: nds})
	return nil
}

// sshOptions are the flags of the SSH connections (and of srun's).
type sshOptions struct {
	Identity, KnownHosts, Agent, JournalDir string
	Timeout                                 time.Duration
	SlurmJob                                string // srun --jobid; "" is $SLURM_JOB_ID
}

// srunPrefix marks a target reached with srun: "srun:NODE".
const srunPrefix = "srun:"

// slurmHosts makes every node of the allocation (or of list) a host of
// its own name, reached with srun, tested on netdevs ("eth0+eth1").
//
// Similar to: for n in $(scontrol show hostnames $SLURM_JOB_NODELIST); do -host $n=srun:$n:NETDEV; done
func slurmHosts(ctx context.Context, list, netdevs string) (hostList, error) {
	nodes, err := host.SlurmNodes(ctx, host.Local{}, list)
	if err != nil {
		return nil, fmt.Errorf("-slurm: %w", err)
	}
	var hosts hostList
	for _, n := range nodes {
		if err := hosts.Set(n + "=" + srunPrefix + n + ":" + netdevs); err != nil {
			return nil, fmt.Errorf("-slurm: %w", err)
		}
	}
	return hosts, nil
}

// openSides connects every host, up to fleet.DefaultPrepareLimit at
// once: runbook.Local for "local", a runbook.Peer through srun for
// "srun:NODE", over SSH otherwise (each Peer's leftover journals are
// restored first). The sides that opened
// are returned beside an error naming every host that did not (nil
// where it failed), for restoring.
func openSides(ctx context.Context, hosts hostList, o sshOptions) ([]runbook.Side, error) {
	locals := 0
	for _, h := range hosts {
		if h.Target == "local" {
			if locals++; locals > 1 {
				return nil, errors.New("-host: only one host can be local")
			}
		}
	}
	return fleet.Prepare(ctx, hosts.names(), 0, func(ctx context.Context, i int) (runbook.Side, error) {
		h := hosts[i]
		if h.Target == "local" {
			return &runbook.Local{Journal: filepath.Join(o.JournalDir, "fleet-matrix-journal.jsonl")}, nil
		}
		if node, ok := strings.CutPrefix(h.Target, srunPrefix); ok {
			p := &runbook.Peer{Via: host.Srun{Node: node, JobID: o.SlurmJob}, Agent: o.Agent}
			if err := p.Restore(ctx); err != nil {
				return p, fmt.Errorf("restoring an earlier run's changes: %w", err)
			}
			return p, nil
		}
		p, err := runbook.DialPeer(ctx, runbook.PeerConfig{Target: h.Target, Identity: o.Identity, KnownHosts: o.KnownHosts,
			Timeout: o.Timeout, Agent: o.Agent})
		if err != nil {
			return nil, err
		}
		if err := p.Restore(ctx); err != nil {
			return p, fmt.Errorf("restoring an earlier run's changes: %w", err)
		}
		return p, nil
	})
}

func (l hostList) names() []string {
	out := make([]string, len(l))
	for i, h := range l {
		out[i] = h.Name
	}
	return out
}

// restoreSides undoes every side's changes with a fresh context and
// closes them.
func restoreSides(sides []runbook.Side) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var errs []error
	for _, s := range sides {
		if s != nil {
			errs = append(errs, s.Restore(ctx), s.Close())
		}
	}
	return errors.Join(errs...)
}

// prepareHosts makes every side a fleet host, up to
// fleet.DefaultPrepareLimit at once (rxe links for perftest; addresses
// only for netperf), and overrides unknown line rates.
func prepareHosts(ctx context.Context, hosts hostList, sides []runbook.Side, rdma bool, mtu int, lineRate float64) ([]fleet.Host, error) {
	return fleet.Prepare(ctx, hosts.names(), 0, func(ctx context.Context, i int) (fleet.Host, error) {
		h := hosts[i]
		var fh fleet.Host
		var err error
		if rdma {
			fh, err = fleet.PrepareHost(ctx, h.Name, sides[i], h.Netdevs, mtu, nil)
		} else {
			fh, err = fleet.PrepareNetperfHost(ctx, h.Name, sides[i], h.Netdevs, mtu)
		}
		for j := range fh.NICs {
			if fh.NICs[j].LineRateGbps == 0 {
				fh.NICs[j].LineRateGbps = lineRate
			}
		}
		return fh, err
	})
}

// parseSchedule reads -schedule: "all", "ring" or "a-b,b-c" by host name.
func parseSchedule(s string, names []string, perHost int) (fleet.Schedule, error) {
	switch s {
	case "all":
		return fleet.AllPairs(len(names), perHost)
	case "ring":
		return fleet.Ring(len(names), perHost)
	}
	idx := map[string]int{}
	for i, n := range names {
		idx[n] = i
	}
	var pairs []fleet.Pair
	for _, p := range strings.Split(s, ",") {
		ia, ib, ok := splitPair(p, idx)
		if !ok {
			return fleet.Schedule{}, fmt.Errorf("%w: -schedule %q: %q is not HOST-HOST of the -host names%s", fleet.ErrInvalidSchedule, s, p,
				didyoumean.Suffix(s, []string{"all", "ring"}))
		}
		pairs = append(pairs, fleet.Pair{A: ia, B: ib})
	}
	return fleet.Pack(len(names), pairs, perHost)
}

// splitPair splits "a-b" at the dash that leaves two host names (names
// may hold dashes themselves).
func splitPair(p string, idx map[string]int) (int, int, bool) {
	for i := range p {
		if p[i] != '-' {
			continue
		}
		ia, okA := idx[p[:i]]
		ib, okB := idx[p[i+1:]]
		if okA && okB {
			return ia, ib, true
		}
	}
	return 0, 0, false
}
