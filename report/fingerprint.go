package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Fingerprint is the environment a round ran in: what the runbooks say to
// record for every round, so that a comparison can name what else changed.
// Every part is optional; Fields flattens it for comparison and tables.
type Fingerprint struct {
	// Kernel is the release (uname -r), per host when they differ.
	Kernel string `json:"kernel,omitempty"`
	// RXE are the RDMA links used and the GID chosen on each.
	RXE []RXEFingerprint `json:"rxe,omitempty"`
	// NICs are the netdevs under test.
	NICs []NICFingerprint `json:"nics,omitempty"`
	// Governor summarises the cpufreq governors: "performance" when all
	// CPUs agree, "powersave×6,performance×2" otherwise (GovernorSummary).
	Governor string `json:"governor,omitempty"`
	// IRQBalance is "running" or "stopped" ("" when not checked).
	IRQBalance string `json:"irqbalance,omitempty"`
	// IRQPlacement summarises where the NIC's queue IRQs fired
	// (IRQPlacementSummary).
	IRQPlacement string `json:"irq_placement,omitempty"`
	// Tools are tool versions in order ("perftest"="4.5+0.17-1").
	Tools []Param `json:"tools,omitempty"`
	// Argv are the exact command lines, per side.
	Argv []SideArgv `json:"argv,omitempty"`
	// Extra holds anything else the caller records (sysctls, qdiscs).
	Extra []Param `json:"extra,omitempty"`
}

// RXEFingerprint is one soft-RoCE link and its chosen GID.
type RXEFingerprint struct {
	Host     string `json:"host,omitempty"`     // "local", "remote", a host name
	Link     string `json:"link"`               // "rxe0"
	Netdev   string `json:"netdev"`             // the netdev it runs over
	State    string `json:"state"`              // "ACTIVE/LINK_UP"
	GIDIndex int    `json:"gid_index"`          // -1 when none was chosen
	GID      string `json:"gid,omitempty"`      // as sysfs prints it
	GIDType  string `json:"gid_type,omitempty"` // "RoCE v2"
}

// NICFingerprint is one netdev's configuration (ethtool -i, ethtool, -g, -l).
type NICFingerprint struct {
	Host          string `json:"host,omitempty"`              // "local", "remote", a host name
	Netdev        string `json:"netdev"`                      // "eth1"
	MTU           int    `json:"mtu"`                         // netdev MTU, bytes
	RoCEPathMTU   int    `json:"roce_path_mtu,omitempty"`     // bytes: nic.RoCEPathMTU(MTU) or the port active_mtu
	Driver        string `json:"driver,omitempty"`            // ethtool -i driver
	DriverVersion string `json:"driver_version,omitempty"`    // ethtool -i version
	Firmware      string `json:"firmware,omitempty"`          // ethtool -i firmware-version
	SpeedMbps     int    `json:"speed_mbps,omitempty"`        // -1 unknown
	Duplex        string `json:"duplex,omitempty"`            // "Full"
	RingRx        uint32 `json:"ring_rx,omitempty"`           // ethtool -g current RX
	RingTx        uint32 `json:"ring_tx,omitempty"`           // ethtool -g current TX
	ChannelsComb  uint32 `json:"channels_combined,omitempty"` // ethtool -l current combined
	ChannelsRx    uint32 `json:"channels_rx,omitempty"`       // ethtool -l current RX
	ChannelsTx    uint32 `json:"channels_tx,omitempty"`       // ethtool -l current TX
	NUMANode      int    `json:"numa_node"`                   // -1: none
	NUMANodeCPUs  string `json:"numa_node_cpus,omitempty"`    // "0-7"
	PCIAddress    string `json:"pci,omitempty"`               // "0000:3b:00.0"
	// PCIe is the function's PCIe link as lspci's LnkSta and LnkCap say
	// it ("8 GT/s x8 (of 8 GT/s x16)"); PCIeDegraded is true when it
	// runs slower or narrower than the device can.
	PCIe         string `json:"pcie,omitempty"`
	PCIeDegraded bool   `json:"pcie_degraded,omitempty"`
	// RDMADevice is the RDMA device over this netdev ("mlx5_0"), set by
	// the caller for hardware RoCE; an rxe link in Fingerprint.RXE on the
	// same host and netdev counts too. Without either the netdev is not
	// RDMA, and Fields leaves out its roce_path_mtu.
	RDMADevice string `json:"rdma_device,omitempty"`
}

// SideArgv is the command line one side ran, and what that side ran
// with: the archive's rerun.sh sets its MTUs and sysctls again before the
// commands.
type SideArgv struct {
	Role string   `json:"role"`           // "server", "client"
	Host string   `json:"host,omitempty"` // where it ran, "user@host[:port]" over SSH; "" for local
	Argv []string `json:"argv"`           // the exact argv
	// Netns is the network namespace of this host the side ran in; Argv
	// already enters it (ip netns exec), MTUs and Sysctls are set in it.
	Netns string `json:"netns,omitempty"`
	// MTUs are the side's netdev MTUs during the round.
	MTUs []NetdevMTU `json:"mtus,omitempty"`
	// Sysctls are the kernel parameters the round set on the side, as
	// dotted keys ("net.core.rmem_max").
	Sysctls []Param `json:"sysctls,omitempty"`
	// RXE are the soft-RoCE links the side ran on: rerun.sh adds each
	// that is missing (after a reboot) before the commands.
	RXE []RXELink `json:"rxe,omitempty"`
}

// RXELink is one rxe link and the netdev it runs over.
type RXELink struct {
	Link   string `json:"link"`   // "rxe0"
	Netdev string `json:"netdev"` // "eth0"
}

// NetdevMTU is one netdev's MTU.
type NetdevMTU struct {
	Netdev string `json:"netdev"`
	MTU    int    `json:"mtu"`
}

// Fields flattens the fingerprint into ordered key=value pairs, the unit
// of FingerprintDiff: "kernel", "nic[local/eth0].mtu", "rxe[rxe0].gid_index",
// "argv[client]". Empty parts are left out, and so is the RoCE path MTU of
// a netdev that carries no RDMA (see NICFingerprint.RDMADevice).
func (f *Fingerprint) Fields() []Param {
	if f == nil {
		return nil
	}
	var ps []Param
	add := func(k, v string) {
		if v != "" {
			ps = append(ps, Param{k, v})
		}
	}
	add("kernel", f.Kernel)
	for _, x := range f.RXE {
		p := "rxe[" + hostPrefix(x.Host) + x.Link + "]."
		add(p+"netdev", x.Netdev)
		add(p+"state", x.State)
		add(p+"gid_index", strconv.Itoa(x.GIDIndex))
		add(p+"gid", x.GID)
		add(p+"gid_type", x.GIDType)
	}
	for _, n := range f.NICs {
		p := "nic[" + hostPrefix(n.Host) + n.Netdev + "]."
		add(p+"mtu", strconv.Itoa(n.MTU))
		if f.isRDMA(n) {
			add(p+"roce_path_mtu", itoaNZ(n.RoCEPathMTU))
		}
		add(p+"driver", n.Driver)
		add(p+"driver_version", n.DriverVersion)
		add(p+"firmware", n.Firmware)
		add(p+"speed_mbps", itoaNZ(n.SpeedMbps))
		add(p+"duplex", n.Duplex)
		add(p+"ring", ringString(n.RingRx, n.RingTx))
		add(p+"channels", channelsString(n.ChannelsComb, n.ChannelsRx, n.ChannelsTx))
		add(p+"numa_node", strconv.Itoa(n.NUMANode))
		add(p+"numa_node_cpus", n.NUMANodeCPUs)
		add(p+"pci", n.PCIAddress)
		add(p+"pcie", n.PCIe)
	}
	add("governor", f.Governor)
	add("irqbalance", f.IRQBalance)
	add("irq_placement", f.IRQPlacement)
	for _, t := range f.Tools {
		add("tool["+t.Key+"]", t.Value)
	}
	for _, a := range f.Argv {
		add("argv["+hostPrefix(a.Host)+a.Role+"]", strings.Join(a.Argv, " "))
	}
	for _, e := range f.Extra {
		add(e.Key, e.Value)
	}
	return ps
}

// isRDMA reports whether a netdev carries RDMA: its RDMADevice, or an rxe
// link of the fingerprint on the same host and netdev.
func (f *Fingerprint) isRDMA(n NICFingerprint) bool {
	if n.RDMADevice != "" {
		return true
	}
	for _, x := range f.RXE {
		if x.Netdev == n.Netdev && x.Host == n.Host {
			return true
		}
	}
	return false
}

// FieldDiff is a fingerprint field whose value differs between a baseline
// and a candidate; an empty side means the field is absent there.
type FieldDiff struct {
	Field     string `json:"field"`     // a Fields key: "nic[eth1].mtu"
	Baseline  string `json:"baseline"`  // the baseline's value
	Candidate string `json:"candidate"` // the candidate's value
}

// String returns "nic[eth0].mtu: 1500 → 9000".
func (d FieldDiff) String() string {
	return fmt.Sprintf("%s: %s → %s", d.Field, orDash(d.Baseline), orDash(d.Candidate))
}

// DiffFingerprints names the fields that differ between a baseline and a
// candidate environment, in the baseline's field order and then the
// candidate's new fields. Nil fingerprints have no fields.
func DiffFingerprints(baseline, candidate *Fingerprint) []FieldDiff {
	b, c := baseline.Fields(), candidate.Fields()
	var ds []FieldDiff
	for _, p := range b {
		v, _ := lookup(c, p.Key)
		if v != p.Value {
			ds = append(ds, FieldDiff{p.Key, p.Value, v})
		}
	}
	for _, p := range c {
		if !slices.ContainsFunc(b, func(q Param) bool { return q.Key == p.Key }) {
			ds = append(ds, FieldDiff{p.Key, "", p.Value})
		}
	}
	return ds
}

func hostPrefix(h string) string {
	if h == "" {
		return ""
	}
	return h + "/"
}

func itoaNZ(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func ringString(rx, tx uint32) string {
	if rx == 0 && tx == 0 {
		return ""
	}
	return fmt.Sprintf("rx %d tx %d", rx, tx)
}

func channelsString(comb, rx, tx uint32) string {
	if comb == 0 && rx == 0 && tx == 0 {
		return ""
	}
	return fmt.Sprintf("combined %d rx %d tx %d", comb, rx, tx)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
