package kmsg

import (
	"strings"
)

// Kind is the class of trouble a kernel message shows.
type Kind int

// The kinds, from the most to the least severe for a NIC or RDMA test.
const (
	KindNone Kind = iota
	// KindTimeout: a firmware command or a transmit queue timed out
	// (mlx5 cmd_exec/wait_func timeouts, NETDEV WATCHDOG, TX timeout).
	KindTimeout
	// KindFirmware: the device reports a firmware or health error
	// (health compromised, syndrome, FW fatal, firmware too old).
	KindFirmware
	// KindPCIe: a PCIe/AER error on the device or its port.
	KindPCIe
	// KindAllocation: the kernel could not allocate memory for the driver
	// (page allocation failure).
	KindAllocation
	// KindLinkFlap: the link went down or came up (NIC Link is Down/Up,
	// Link down/up, link becomes ready, carrier lost).
	KindLinkFlap
	// KindRDMA: an RDMA/rxe message (rdma_rxe, infiniband rxe0, irdma).
	KindRDMA
)

// String names the kind in one word.
func (k Kind) String() string {
	switch k {
	case KindTimeout:
		return "timeout"
	case KindFirmware:
		return "firmware"
	case KindPCIe:
		return "pcie"
	case KindAllocation:
		return "allocation"
	case KindLinkFlap:
		return "link-flap"
	case KindRDMA:
		return "rdma"
	}
	return "none"
}

// Rule is one classification rule: what it matches and what to do about
// it, from the runbook.
type Rule struct {
	Kind Kind
	// Name says what the rule matches, e.g. "mlx5 firmware command timeout".
	Name string
	// Action is what to do, e.g. "firmware: upgrade it, or reset the
	// device (mlxfwreset)".
	Action string
	// any holds substrings of which one must occur (case-sensitive);
	// anyFold the same, compared case-insensitively.
	any, anyFold []string
	// drivers, when set, restricts the rule to lines of these drivers.
	drivers []string
}

func (r Rule) matches(rec Record) bool {
	if len(r.drivers) > 0 && !driverIn(rec.Source, r.drivers) {
		return false
	}
	for _, s := range r.any {
		if strings.Contains(rec.Text, s) {
			return true
		}
	}
	if len(r.anyFold) > 0 {
		low := strings.ToLower(rec.Text)
		for _, s := range r.anyFold {
			if strings.Contains(low, s) {
				return true
			}
		}
	}
	return false
}

func driverIn(s Source, drivers []string) bool {
	for _, d := range drivers {
		if driverMatches(s, d) {
			return true
		}
	}
	return false
}

const (
	actionFirmware = "firmware: compare the firmware with the driver's release notes, upgrade it, or reset the device (mlxfwreset / devlink dev reload); check ethtool -i on both hosts"
	actionTxQueue  = "transmit queue stalled: check the firmware and driver versions, the device's health (devlink health show) and for PCIe errors; the driver resets the queue"
	actionLink     = "link flap: check the cable, the optics (ethtool -m) and the switch port (errors, speed, autonegotiation); the round is not comparable"
	actionPCIe     = "PCIe errors: reseat the card or move it to another slot, check lspci -vvv LnkSta for a degraded width or speed, update the platform firmware"
	actionAlloc    = "memory: the driver could not allocate pages; lower ring sizes or MTU, check free memory and vm.min_free_kbytes"
	actionVF       = "accelerated networking: the VF left or came back (host servicing, VF revoked); traffic fell back to the synthetic NIC, so the round is not comparable"
	actionRDMA     = "rdma: an RDMA device changed or reported an error; check rdma link and the rxe netdev"
)

// rules are tried in order; the first that matches classifies a record.
var rules = []Rule{
	{Kind: KindTimeout, Name: "firmware command timeout", Action: actionFirmware,
		any:     []string{"cmd_exec timeout", "No done completion", "Will cause a leak of a command resource", "command timeout", "FW command timeout", "cmd timeout"},
		anyFold: []string{"wait_func", "cmd_work_handler"}},
	{Kind: KindTimeout, Name: "transmit queue timeout", Action: actionTxQueue,
		any:     []string{"NETDEV WATCHDOG", "TX timeout", "tx timeout", "transmit queue", "TX queue timeout"},
		anyFold: []string{"tx_timeout"}},
	{Kind: KindFirmware, Name: "device health or firmware error", Action: actionFirmware,
		anyFold: []string{"health compromised", "firmware error", "fw fatal", "fw_fatal", "firmware fatal", "syndrome",
			"firmware version is too old", "firmware is too old", "health poll failed", "assert_var", "unrecoverable", "internal error",
			"handle_hca_cap failed", "mlx5_load_one failed", "failed to load firmware", "firmware recovery"}},
	{Kind: KindPCIe, Name: "PCIe/AER error", Action: actionPCIe,
		any:     []string{"AER:", "PCIe Bus Error", "pcie_bus_error"},
		anyFold: []string{"corrected error received", "uncorrectable error", "pci error", "link is degraded"}},
	{Kind: KindAllocation, Name: "page allocation failure", Action: actionAlloc,
		anyFold: []string{"page allocation failure", "failed to allocate", "alloc failed", "out of memory"}},
	{Kind: KindLinkFlap, Name: "VF data path switched", Action: actionVF,
		any: []string{"Data path switched", "VF unregistering", "VF slot", "VF removed"}},
	{Kind: KindLinkFlap, Name: "link down", Action: actionLink,
		any:     []string{"Link down", "Link is Down", "link is not ready", "NIC Link is down"},
		anyFold: []string{"nic link is down", "carrier lost", "link is down", "cable unplugged"}},
	{Kind: KindLinkFlap, Name: "link up", Action: actionLink,
		any:     []string{"Link up", "Link is Up"},
		anyFold: []string{"nic link is up", "link becomes ready", "link is up"}},
	{Kind: KindRDMA, Name: "RDMA message", Action: actionRDMA,
		drivers: []string{"rdma_rxe", "rxe", "infiniband", "irdma", "mlx5_ib", "mlx4_ib", "bnxt_re", "mana_ib", "siw", "ib_core", "efa"},
		any:     []string{""}},
}

// Rules returns the classification rules in the order Classify tries them.
func Rules() []Rule { return append([]Rule(nil), rules...) }

// Classify returns the first rule that matches rec, and false when none
// does.
//
// Similar to: dmesg | grep -E 'mlx5.*timeout|NETDEV WATCHDOG|Link (down|up)|AER'
func Classify(rec Record) (Rule, bool) {
	for _, r := range rules {
		if r.matches(rec) {
			return r, true
		}
	}
	return Rule{}, false
}

// Finding is a rule that matched one or more records of one source.
type Finding struct {
	Rule
	// Source is the driver/device/netdev the records came from.
	Source Source
	// Count is how many records matched; First and Last are the first
	// and the last of them.
	Count       int
	First, Last Record
}

// Summarize classifies recs and groups the matches by rule and source, in
// the order of their first record.
func Summarize(recs []Record) []Finding {
	var out []Finding
	index := map[string]int{}
	for _, rec := range recs {
		r, ok := Classify(rec)
		if !ok {
			continue
		}
		key := r.Name + "\x00" + rec.Source.String()
		if i, seen := index[key]; seen {
			out[i].Count++
			out[i].Last = rec
			continue
		}
		index[key] = len(out)
		out = append(out, Finding{Rule: r, Source: rec.Source, Count: 1, First: rec, Last: rec})
	}
	return out
}
