package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rocekit/rocekit/fleet"
	"github.com/rocekit/rocekit/runbook"
)

// hostFlag is one -host NAME=TARGET:NETDEV[+NETDEV...].
type hostFlag struct {
	Name, Target string // Target: "local" or "user@addr[:port]"
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

// sshOptions are the flags of the SSH connections.
type sshOptions struct {
	Identity, KnownHosts, Agent, JournalDir string
	Timeout                                 time.Duration
}

// openSides connects every host: runbook.Local for "local", a
// runbook.Peer over SSH (whose leftover journals are restored first)
// otherwise. Sides opened before a failure are returned for restoring.
func openSides(ctx context.Context, hosts hostList, o sshOptions) ([]runbook.Side, error) {
	var sides []runbook.Side
	locals := 0
	for _, h := range hosts {
		if h.Target == "local" {
			locals++
			if locals > 1 {
				return sides, errors.New("-host: only one host can be local")
			}
			sides = append(sides, &runbook.Local{Journal: filepath.Join(o.JournalDir, "fleet-matrix-journal.jsonl")})
			continue
		}
		p, err := runbook.DialPeer(ctx, runbook.PeerConfig{Target: h.Target, Identity: o.Identity, KnownHosts: o.KnownHosts,
			Timeout: o.Timeout, Agent: o.Agent})
		if err != nil {
			return sides, fmt.Errorf("%s: %w", h.Name, err)
		}
		sides = append(sides, p)
		if err := p.Restore(ctx); err != nil {
			return sides, fmt.Errorf("%s: restoring an earlier run's changes: %w", h.Name, err)
		}
	}
	return sides, nil
}

// restoreSides undoes every side's changes with a fresh context and
// closes them.
func restoreSides(sides []runbook.Side) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var errs []error
	for _, s := range sides {
		errs = append(errs, s.Restore(ctx), s.Close())
	}
	return errors.Join(errs...)
}

// prepareHosts makes every side a fleet host (rxe links for perftest;
// addresses only for netperf) and overrides unknown line rates.
func prepareHosts(ctx context.Context, hosts hostList, sides []runbook.Side, rdma bool, mtu int, lineRate float64) ([]fleet.Host, error) {
	var out []fleet.Host
	for i, h := range hosts {
		var fh fleet.Host
		var err error
		if rdma {
			fh, err = fleet.PrepareHost(ctx, h.Name, sides[i], h.Netdevs, mtu, nil)
		} else {
			fh, err = addressesOnly(ctx, h, sides[i], mtu)
		}
		if err != nil {
			return nil, err
		}
		for j := range fh.NICs {
			if fh.NICs[j].LineRateGbps == 0 {
				fh.NICs[j].LineRateGbps = lineRate
			}
		}
		out = append(out, fh)
	}
	return out, nil
}

// addressesOnly describes a host's NICs for netperf: address, subnet,
// speed and NUMA-local CPUs, without rxe links.
func addressesOnly(ctx context.Context, h hostFlag, side runbook.Side, mtu int) (fleet.Host, error) {
	fh := fleet.Host{Name: h.Name, Runner: side.Runner()}
	for _, nd := range h.Netdevs {
		if mtu > 0 {
			if err := side.SetMTU(ctx, nd, mtu); err != nil {
				return fh, fmt.Errorf("%s: %w", h.Name, err)
			}
		}
		info, err := side.Netdev(ctx, nd)
		if err != nil {
			return fh, fmt.Errorf("%s: %w", h.Name, err)
		}
		p, err := fleet.IPv4Prefix(ctx, fh.Runner, nd)
		if err != nil {
			return fh, fmt.Errorf("%s: %w", h.Name, err)
		}
		n := fleet.NIC{Netdev: nd, Addr: p.Addr(), Prefix: p.Masked(), CPUs: info.LocalCPUs}
		if l := info.Snapshot.Link; l != nil && l.SpeedMbps > 0 {
			n.LineRateGbps = float64(l.SpeedMbps) / 1000
		}
		fh.NICs = append(fh.NICs, n)
	}
	return fh, nil
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
			return fleet.Schedule{}, fmt.Errorf("%w: -schedule %q: %q is not HOST-HOST of the -host names", fleet.ErrInvalidSchedule, s, p)
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
