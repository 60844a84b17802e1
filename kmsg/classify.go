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
	// (mlx5 wait_func timeouts, a completion that arrived after the
	// timeout or was lost and recovered, NETDEV WATCHDOG, TX timeout).
	KindTimeout
	// KindFirmware: the device reports a firmware or health error
	// (health compromised, syndrome, FW fatal, firmware too old) or its
	// firmware did not start (mlx5 wait_fw_init).
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
	actionFirmware = "firmware: check the firmware version against the driver's (ethtool -i on both hosts, or mstflint -d <pci> query), update it (mlxup, or mstflint with the vendor's image), or reset the device (mlxfwreset -d <pci> reset, devlink dev reload)"
	// A mlx5_core command timeout means firmware, the runbook says; under
	// load it can also be the driver, so both versions are named.
	actionCmdTimeout = "firmware command timeout: the firmware did not answer a driver command in time; check the firmware version against the driver's (ethtool -i on both hosts), update it (mlxup or mstflint) or reset it (mlxfwreset -d <pci> reset); a timeout under load may be the driver or the firmware, so compare both with the vendor's release notes"
	actionFWInit     = "firmware did not start: the driver gave up waiting for the device's firmware to initialise (no netdev); reset it (mlxfwreset -d <pci> reset) or power-cycle the host (a warm reboot may not clear it), then check its version (mstflint -d <pci> query, ethtool -i) and update it (mlxup or mstflint)"
	actionCmdLost    = "command completion lost: the firmware answered but its completion interrupt did not arrive, and the driver found it by polling; check interrupt delivery (IOMMU interrupt remapping, the VF's MSI-X under a hypervisor, a kernel change); if it recurs, treat it as a firmware command timeout (ethtool -i, mlxup/mstflint, mlxfwreset)"
	actionTxQueue    = "transmit queue stalled: check the firmware and driver versions, the device's health (devlink health show) and for PCIe errors; the driver resets the queue"
	actionLink       = "link flap: check the cable, the optics (ethtool -m) and the switch port (errors, speed, autonegotiation); the round is not comparable"
	actionPCIe       = "PCIe errors: reseat the card or move it to another slot, check lspci -vvv LnkSta for a degraded width or speed, update the platform firmware"
	actionAlloc      = "memory: the driver could not allocate pages; lower ring sizes or MTU, check free memory and vm.min_free_kbytes"
	actionVF         = "accelerated networking: the VF left or came back (host servicing, VF revoked); traffic fell back to the synthetic NIC, so the round is not comparable"
	actionRDMA       = "rdma: an RDMA device changed or reported an error; check rdma link and the rxe netdev"
)

// rules are tried in order; the first that matches classifies a record.
//
// The mlx5 strings are the kernel's format strings of drivers/net/ethernet/
// mellanox/mlx5/core (main.c wait_fw_init, cmd.c, eq.c, health.c), v4.10 to
// v6.18: "Waiting for FW initialization" became "Waiting for FW %s" (with
// pre-initializing or initializing) in v6.9, and the abort moved from
// mlx5_function_setup into wait_fw_init.
var rules = []Rule{
	{Kind: KindFirmware, Name: "firmware initialization timeout", Action: actionFWInit,
		any: []string{"initializing state, aborting"}},
	{Kind: KindFirmware, Name: "firmware initialization slow", Action: actionFWInit,
		any: []string{"Waiting for FW initialization, timeout abort", "Waiting for FW pre-initializing, timeout abort", "Waiting for FW initializing, timeout abort"}},
	// Before the timeout rule, whose "wait_func" would take
	// wait_func_handle_exec_timeout's "recovered after timeout".
	{Kind: KindTimeout, Name: "command completion lost", Action: actionCmdLost,
		any:     []string{"recovered after timeout", "EQEs on cmd_eq"},
		anyFold: []string{"mlx5_cmd_eq_recover"}},
	{Kind: KindTimeout, Name: "firmware command timeout", Action: actionCmdTimeout,
		any: []string{"cmd_exec timeout", "No done completion", "Will cause a leak of a command resource", "command timeout", "FW command timeout", "cmd timeout",
			"Command completion arrived after timeout", "canceled on out of queue timeout", "timed out while waiting for a slot"},
		anyFold: []string{"wait_func", "cmd_work_handler"}},
	{Kind: KindTimeout, Name: "transmit queue timeout", Action: actionTxQueue,
		any:     []string{"NETDEV WATCHDOG", "TX timeout", "tx timeout", "transmit queue", "TX queue timeout"},
		anyFold: []string{"tx_timeout"}},
	{Kind: KindFirmware, Name: "device health or firmware error", Action: actionFirmware,
		any: []string{"Health issue observed", "health recovery flow aborted", "FW is unable to respond"},
		anyFold: []string{"health compromised", "firmware error", "fw fatal", "fw_fatal", "firmware fatal", "syndrome",
			"firmware version is too old", "firmware is too old", "health poll failed", "assert_var", "unrecoverable", "internal error",
			"handle_hca_cap failed", "mlx5_load_one failed", "mlx5_init_one failed", "failed to load firmware", "firmware recovery",
			"poll_health"}},
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
