package runbook

import (
	"context"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/firewall"
	"github.com/rocekit/rocekit/report"
)

// Port is a port a test uses, for the firewall check.
type Port struct {
	Proto string // "tcp", "udp"
	Port  int
}

// NetperfPorts are netserver's control port and, for a UDP_STREAM, the
// data port netperf picks (any: a rule on any UDP port counts).
var NetperfPorts = []Port{{"tcp", 12865}, {"udp", 12866}}

// Preflight reads both ends (once in loopback) before anything is changed
// and judges them with report.CheckPreflight: NIC, link, NUMA, firewall
// rules stopping ports, limits under ask, irqbalance, governor, and the
// two hosts side by side. It returns the facts with the findings.
//
// Similar to: the runbook's checks on both hosts before tuning
func (s *Sides) Preflight(ctx context.Context, ports []Port, ask report.PreflightAsk) ([]report.HostFacts, []report.Finding, error) {
	nearSide, farSide, err := s.ends()
	if err != nil {
		return nil, nil, err
	}
	ends := []struct {
		role   string
		side   Side
		netdev string
	}{{"near", nearSide, s.NearNetdev}}
	if farSide != nearSide {
		ends = append(ends, struct {
			role   string
			side   Side
			netdev string
		}{"far", farSide, s.FarNetdev})
	}
	var facts []report.HostFacts
	var hosts []Host
	for _, e := range ends {
		h, err := e.side.Host(ctx)
		if err != nil {
			return facts, nil, fmt.Errorf("preflight on %s: %w", e.side.Name(), err)
		}
		f, err := hostFacts(ctx, h, e.role, e.side, e.netdev, ports)
		if err != nil {
			return facts, nil, fmt.Errorf("preflight on %s: %w", e.side.Name(), err)
		}
		facts, hosts = append(facts, f), append(hosts, h)
	}
	findings := report.CheckPreflight(facts, ask)
	if len(hosts) == 2 {
		findings = append(findings, oneKernelFinding(s.Mode, hosts[0], hosts[1])...)
		report.SortFindings(findings)
	}
	return facts, findings, nil
}

func hostFacts(ctx context.Context, h Host, role string, side Side, netdev string, ports []Port) (report.HostFacts, error) {
	n, err := side.Netdev(ctx, netdev)
	if err != nil {
		return report.HostFacts{}, err
	}
	f := report.HostFacts{Role: role, Host: h.Hostname, Kernel: h.Kernel, NIC: report.NICFromSnapshot(role, n.Snapshot),
		IRQBalance: len(h.IRQBalance) > 0, Governor: report.GovernorSummary(h.Governors), Sysctls: h.Sysctls, Firewalld: h.Firewalld}
	if l := n.Snapshot.Link; l != nil {
		f.LinkDetected, f.MaxSupportedMbps = l.LinkDetected, l.MaxSupportedMbps()
	}
	if p := n.Snapshot.Device.PCI; p != nil {
		f.Model = strings.TrimSpace(p.VendorName() + " " + p.Model())
	}
	f.FirewallBlocks = firewallBlocks(h.Firewall, ports)
	return f, nil
}

// firewallBlocks evaluates each listing for each port.
func firewallBlocks(listings []FirewallListing, ports []Port) []string {
	var out []string
	haveNft := false
	for _, l := range listings {
		haveNft = haveNft || (l.Tool == "nft" && !l.Missing)
	}
	for _, l := range listings {
		if l.Missing || strings.TrimSpace(l.Text) == "" {
			continue
		}
		if l.Tool == "iptables-save" && haveNft && strings.Contains(l.Text, "(nf_tables)") {
			continue // iptables-nft's rules are in nft's listing already
		}
		parse := firewall.ParseNft
		if l.Tool == "iptables-save" {
			parse = firewall.ParseIptablesSave
		}
		rs, err := parse(strings.NewReader(l.Text))
		if err != nil {
			out = append(out, fmt.Sprintf("%s could not be read (%v): check it by hand", l.Tool, err))
			continue
		}
		for _, p := range ports {
			for _, b := range rs.Blocks(p.Proto, p.Port) {
				out = append(out, fmt.Sprintf("%s/%d: %s", p.Proto, p.Port, b))
			}
		}
	}
	return out
}
