package runbook

import (
	"context"
	"fmt"

	"github.com/rocekit/rocekit/report"
)

// Ends reads both ends' netdevs (one in loopback) as report.Bottleneck
// takes them: link speed, MTU and PCIe link, by side name.
//
// Similar to: ethtool eth0 | grep Speed; ip link show eth0 (on both hosts)
func (s *Sides) Ends(ctx context.Context) ([]report.End, error) {
	near, far, err := s.ends()
	if err != nil {
		return nil, err
	}
	type end struct {
		side   Side
		netdev string
	}
	list := []end{{near, s.NearNetdev}}
	if s.Mode != Loopback {
		list = append(list, end{far, s.FarNetdev})
	}
	var out []report.End
	for _, e := range list {
		info, err := e.side.Netdev(ctx, e.netdev)
		if err != nil {
			return out, fmt.Errorf("%s: %w", e.side.Name(), err)
		}
		out = append(out, report.End{Host: e.side.Name(), Snapshot: info.Snapshot})
	}
	return out, nil
}
