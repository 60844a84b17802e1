package report

import (
	"fmt"
	"strconv"
	"strings"
)

// HostFacts is what a preflight read on one host of a run: its kernel,
// the NIC under test and what stands in the way of a test.
type HostFacts struct {
	Role   string `json:"role"` // "near", "far"
	Host   string `json:"host"` // hostname
	Kernel string `json:"kernel"`
	// NIC is the netdev under test (driver, firmware, speed, NUMA).
	NIC NICFingerprint `json:"nic"`
	// Model is the PCI vendor and model as lspci names them
	// ("Mellanox ConnectX-5"); "" for a virtual netdev.
	Model string `json:"model,omitempty"`
	// LinkDetected and MaxSupportedMbps come from ethtool: the link is
	// up, and the fastest mode the NIC supports (0: not reported).
	LinkDetected     bool `json:"link_detected"`
	MaxSupportedMbps int  `json:"max_supported_mbps,omitempty"`
	// IRQBalance is set when irqbalance runs.
	IRQBalance bool `json:"irqbalance"`
	// Governor is GovernorSummary of the CPUs ("" without cpufreq).
	Governor string `json:"governor,omitempty"`
	// Sysctls are the limits read (net.core.rmem_max, ...).
	Sysctls map[string]string `json:"sysctls,omitempty"`
	// FirewallBlocks quote the rules that stop a port the test uses,
	// each with the port: "tcp/12865: inet filter input: tcp dport 12865
	// drop (line 5)".
	FirewallBlocks []string `json:"firewall_blocks,omitempty"`
	// Firewalld is systemctl's answer for firewalld ("active", ...).
	Firewalld string `json:"firewalld,omitempty"`
}

// PreflightAsk is what the coming test needs of the hosts.
type PreflightAsk struct {
	// SocketBufferBytes is netperf's -s/-S (0: not set): the receiver's
	// net.core.rmem_max and the sender's wmem_max must reach it.
	SocketBufferBytes int
}

// Rules of the preflight findings.
const (
	RuleNICIdentity         = "preflight_nic"
	RuleDriverOld           = "preflight_driver_old"
	RuleLinkDown            = "preflight_link_down"
	RuleLinkSlow            = "preflight_link_below_supported"
	RulePCIeDegraded        = "preflight_pcie_link_degraded"
	RuleFirewall            = "preflight_firewall_blocks"
	RuleFirewalld           = "preflight_firewalld_active"
	RuleBufferLimit         = "preflight_socket_buffer_limit"
	RuleHostsDiffer         = "preflight_hosts_differ"
	RulePreflightIRQBalance = "preflight_irqbalance"
	RulePreflightGovernor   = "preflight_governor"
)

// CheckPreflight runs the runbook's checks before any tuning, on every
// host of a run: the NIC (vendor, model, driver, firmware; mlx5_core older
// than 5.x asks for an upgrade), the link (down; or slower than the NIC
// supports: optics and cable first), the NUMA node and its CPUs, a
// firewall in the way (the rule quoted), firewalld running, socket buffer
// limits under what the test asks, irqbalance and the governor, and the
// hosts side by side (NIC model, firmware, driver and kernel should match
// or rounds are not comparable).
//
// Similar to: lspci | grep -i mellanox; ethtool -i; ethtool; systemctl status firewalld; sysctl net.core.rmem_max
func CheckPreflight(hosts []HostFacts, ask PreflightAsk) []Finding {
	var fs []Finding
	for _, h := range hosts {
		fs = append(fs, checkHost(h, ask)...)
	}
	fs = append(fs, compareHosts(hosts)...)
	SortFindings(fs)
	return fs
}

func checkHost(h HostFacts, ask PreflightAsk) []Finding {
	where := h.Role
	if h.Host != "" {
		where += " (" + h.Host + ")"
	}
	n := h.NIC
	var fs []Finding
	add := func(rule string, sev Severity, action, format string, args ...any) {
		fs = append(fs, Finding{Rule: rule, Severity: sev, Summary: where + ": " + fmt.Sprintf(format, args...), Action: action})
	}
	model := h.Model
	if model == "" {
		model = "virtual or unknown device"
	}
	node := "NUMA node unknown"
	if n.NUMANode >= 0 {
		node = fmt.Sprintf("NUMA node %d, CPUs %s", n.NUMANode, n.NUMANodeCPUs)
	}
	add(RuleNICIdentity, SeverityInfo, "", "%s: %s, driver %s %s, firmware %s, %s", n.Netdev, model, n.Driver, n.DriverVersion, orDash(n.Firmware), node)
	if n.Driver == "mlx5_core" && majorVersion(n.DriverVersion) > 0 && majorVersion(n.DriverVersion) < 5 {
		add(RuleDriverOld, SeverityWarning, "upgrade the driver (MLNX_OFED or a kernel with a newer mlx5_core) before tuning", "mlx5_core %s is older than 5.x", n.DriverVersion)
	}
	switch {
	case !h.LinkDetected:
		add(RuleLinkDown, SeverityCritical, "bring the link up and check the cable and the switch port before measuring", "%s has no link", n.Netdev)
	case h.MaxSupportedMbps > 0 && n.SpeedMbps > 0 && n.SpeedMbps < h.MaxSupportedMbps:
		add(RuleLinkSlow, SeverityWarning, "check the optics and the cable (and the partner's port) first: tuning cannot pass the link's speed",
			"%s linked at %d Mb/s of the %d Mb/s it supports", n.Netdev, n.SpeedMbps, h.MaxSupportedMbps)
	case n.Duplex != "" && strings.EqualFold(n.Duplex, "half"):
		add(RuleLinkSlow, SeverityWarning, "fix autonegotiation on both ends", "%s runs half duplex", n.Netdev)
	}
	if n.PCIeDegraded {
		add(RulePCIeDegraded, SeverityWarning, "seat the card in a slot of its full width and speed (lspci -vv: LnkSta below LnkCap), check the BIOS's link settings, then rerun: the PCIe link is the ceiling now",
			"%s's PCIe link is degraded: %s", n.Netdev, n.PCIe)
	}
	for _, b := range h.FirewallBlocks {
		add(RuleFirewall, SeverityCritical, "allow the test's ports on this host (netserver 12865 and the data ports, perftest 18515), or stop the firewall for the test", "the firewall stops %s", b)
	}
	if h.Firewalld == "active" && len(h.FirewallBlocks) == 0 {
		add(RuleFirewalld, SeverityInfo, "if netperf fails to connect or UDP results are abnormally low, open the ports with firewall-cmd", "firewalld is active")
	}
	if ask.SocketBufferBytes > 0 {
		for _, k := range []string{"net.core.rmem_max", "net.core.wmem_max"} {
			v, err := strconv.Atoi(h.Sysctls[k])
			if err == nil && v < ask.SocketBufferBytes {
				add(RuleBufferLimit, SeverityWarning, fmt.Sprintf("raise it (sysctl -w %s=%d; tune.Sysctl journals it) or the socket buffers are clamped", k, ask.SocketBufferBytes),
					"%s is %d, under the %d bytes the test asks for its socket buffers", k, v, ask.SocketBufferBytes)
			}
		}
	}
	if h.IRQBalance {
		add(RulePreflightIRQBalance, SeverityInfo, "pause it before spreading IRQs (tune.PauseIRQBalance), or it moves them back", "irqbalance is running")
	}
	if h.Governor != "" && h.Governor != "performance" {
		add(RulePreflightGovernor, SeverityInfo, "set the performance governor for the tuned rounds", "cpufreq governor is %s", h.Governor)
	}
	return fs
}

// compareHosts names what differs between the hosts' NICs and kernels.
func compareHosts(hosts []HostFacts) []Finding {
	if len(hosts) < 2 {
		return nil
	}
	a := hosts[0]
	var fs []Finding
	for _, b := range hosts[1:] {
		var diffs []string
		for _, f := range []struct{ name, x, y string }{
			{"NIC model", a.Model, b.Model}, {"driver", a.NIC.Driver + " " + a.NIC.DriverVersion, b.NIC.Driver + " " + b.NIC.DriverVersion},
			{"firmware", a.NIC.Firmware, b.NIC.Firmware}, {"kernel", a.Kernel, b.Kernel},
		} {
			if f.x != f.y {
				diffs = append(diffs, fmt.Sprintf("%s %s vs %s", f.name, orDash(f.x), orDash(f.y)))
			}
		}
		if len(diffs) > 0 {
			fs = append(fs, Finding{Rule: RuleHostsDiffer, Severity: SeverityWarning,
				Summary: fmt.Sprintf("%s and %s differ: %s", a.Role, b.Role, strings.Join(diffs, "; ")),
				Action:  "match NIC model, firmware, driver and kernel on both hosts, or the rounds are not comparable between them"})
		}
	}
	return fs
}

// majorVersion is the leading number of a version ("4.7-3.2.9" is 4);
// 0 when there is none.
func majorVersion(v string) int {
	end := 0
	for end < len(v) && v[end] >= '0' && v[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(v[:end])
	return n
}
