package main

import (
	"context"
	"fmt"

	"github.com/rocekit/rocekit/fleet"
	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/runbook"
)

// hostList collects repeated -host flags (fleet.ParseHostSpec).
type hostList []fleet.HostSpec

func (l *hostList) String() string { return fmt.Sprint(*l) }

// Set parses "b=root@198.18.1.2:eth0+eth1" or "a=local:eth0".
func (l *hostList) Set(s string) error {
	h, err := fleet.ParseHostSpec(s)
	if err != nil {
		return err
	}
	*l = append(*l, h)
	return nil
}

// slurmHosts makes every node of the allocation (or of list) a host of
// its own name, reached with srun, tested on netdevs ("eth0+eth1").
func slurmHosts(ctx context.Context, list, netdevs string) (hostList, error) {
	hosts, err := fleet.SlurmHostSpecs(ctx, host.Local{}, list, netdevs)
	if err != nil {
		return nil, fmt.Errorf("-slurm: %w", err)
	}
	return hosts, nil
}

func (l hostList) names() []string {
	out := make([]string, len(l))
	for i, h := range l {
		out[i] = h.Name
	}
	return out
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
