package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/runbook"
)

// PrepareHost makes a runbook side (this host, a namespace, or a host
// over SSH through rocekit-peer) a fleet host: on each netdev an rxe link
// made or reused and ACTIVE, the MTU set when mtu > 0 (both journaled on
// the side, undone by its Restore), the RoCE v2 IPv4 GID picked; and each
// NIC's address and subnet, link speed (LineRateGbps, 0 when the driver
// reports none) and NUMA-local CPUs read there. rxeName names the link
// created on each netdev (nil: "rxe_NETDEV").
//
// Similar to: ssh HOST 'modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0; ip -br addr show eth0; ethtool eth0 | grep Speed; cat /sys/class/net/eth0/device/local_cpulist'
func PrepareHost(ctx context.Context, name string, side runbook.Side, netdevs []string, mtu int, rxeName func(netdev string) string) (Host, error) {
	h := Host{Name: name, Runner: side.Runner()}
	if rxeName == nil {
		rxeName = func(n string) string { return "rxe_" + n }
	}
	for _, nd := range netdevs {
		info, err := side.PrepareRXE(ctx, runbook.RXEConfig{Netdev: nd, Name: rxeName(nd), MTU: mtu})
		if err != nil {
			return h, fmt.Errorf("fleet: %s: %w", name, err)
		}
		n, err := describeNIC(ctx, side, nd)
		if err != nil {
			return h, fmt.Errorf("fleet: %s: %w", name, err)
		}
		n.Device, n.GIDIndex = info.Device, new(info.GID.Entry.Index)
		h.NICs = append(h.NICs, n)
	}
	return h, nil
}

// IPv4Prefix returns the first IPv4 address of a netdev with its prefix
// length ("198.18.1.1/24"), read with ip -j through the runner (locally,
// in a namespace or over SSH).
//
// Similar to: ip -j -4 addr show dev eth0 | jq '.[0].addr_info[0] | "\(.local)/\(.prefixlen)"'
func IPv4Prefix(ctx context.Context, r host.Runner, netdev string) (netip.Prefix, error) {
	p, err := host.Run(ctx, r, host.Cmd{Argv: []string{"ip", "-j", "-4", "addr", "show", "dev", netdev}})
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("address of %s on %s: %w", netdev, r, err)
	}
	return parseIPJSON(p.Stdout().Bytes(), netdev)
}

// parseIPJSON reads the first IPv4 address and prefix of ip -j addr.
func parseIPJSON(b []byte, netdev string) (netip.Prefix, error) {
	var ifs []struct {
		AddrInfo []struct {
			Family    string `json:"family"`
			Local     string `json:"local"`
			PrefixLen int    `json:"prefixlen"`
		} `json:"addr_info"`
	}
	if err := json.Unmarshal(b, &ifs); err != nil {
		return netip.Prefix{}, fmt.Errorf("ip -j addr of %s: %w", netdev, err)
	}
	for _, i := range ifs {
		for _, a := range i.AddrInfo {
			addr, err := netip.ParseAddr(a.Local)
			if err != nil || !addr.Is4() {
				continue
			}
			p := netip.PrefixFrom(addr, a.PrefixLen)
			if !p.IsValid() {
				return p, fmt.Errorf("ip -j addr of %s: prefix length %d", netdev, a.PrefixLen)
			}
			return p, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("%w: %s", runbook.ErrNoIPv4, netdev)
}

// PrepareNetperfHost makes a runbook side a fleet host for netperf pairs:
// the MTU set on each netdev when mtu > 0 (journaled on the side), and
// each NIC's address and subnet, link speed and NUMA-local CPUs read
// there. No rxe link is made.
//
// Similar to: ssh HOST 'ip link set eth0 mtu 9000; ip -br addr show eth0; ethtool eth0 | grep Speed'
func PrepareNetperfHost(ctx context.Context, name string, side runbook.Side, netdevs []string, mtu int) (Host, error) {
	h := Host{Name: name, Runner: side.Runner()}
	for _, nd := range netdevs {
		if mtu > 0 {
			if err := side.SetMTU(ctx, nd, mtu); err != nil {
				return h, fmt.Errorf("fleet: %s: %w", name, err)
			}
		}
		n, err := describeNIC(ctx, side, nd)
		if err != nil {
			return h, fmt.Errorf("fleet: %s: %w", name, err)
		}
		h.NICs = append(h.NICs, n)
	}
	return h, nil
}

// describeNIC reads a netdev's address and subnet, link speed and
// NUMA-local CPUs on side.
func describeNIC(ctx context.Context, side runbook.Side, netdev string) (NIC, error) {
	info, err := side.Netdev(ctx, netdev)
	if err != nil {
		return NIC{}, err
	}
	p, err := IPv4Prefix(ctx, side.Runner(), netdev)
	if err != nil {
		return NIC{}, err
	}
	n := NIC{Netdev: netdev, Addr: p.Addr(), Prefix: p.Masked(), CPUs: slices.Clone([]int(info.LocalCPUs))}
	if l := info.Snapshot.Link; l != nil && l.SpeedMbps > 0 {
		n.LineRateGbps = float64(l.SpeedMbps) / 1000
	}
	return n, nil
}
