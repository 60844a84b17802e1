package report

import (
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/nic"
)

// RuleAER is CheckAER's rule: the NIC's PCIe AER counters grew during
// the round.
const RuleAER = "pcie_aer_errors"

// CheckAER reports what a NIC's PCIe AER counters grew by over a round
// (runbook.Growth.AER) on the end named where: corrected errors (bad
// TLPs, replays) are a warning, since the link retransmits and loses
// bandwidth without a message; uncorrected ones are critical.
//
// Similar to: cat /sys/bus/pci/devices/ADDR/aer_dev_* before and after; dmesg | grep AER
func CheckAER(where string, d nic.AERCounts) []Finding {
	var fs []Finding
	for _, f := range []struct {
		kind string
		file nic.AERFile
		sev  Severity
	}{{"corrected", d.Correctable, SeverityWarning}, {"non-fatal", d.NonFatal, SeverityCritical}, {"fatal", d.Fatal, SeverityCritical}} {
		var sum uint64
		var parts []string
		var evs []Evidence
		for _, name := range f.file.Names {
			if c := f.file.Counts[name]; c > 0 {
				sum += c
				parts = append(parts, fmt.Sprintf("%s %d", name, c))
				evs = append(evs, ev(strings.ToLower(strings.ReplaceAll(name, " ", "_")), float64(c), "count"))
			}
		}
		n := f.file.Total // the kernel's count of messages; the sum when the file has no TOTAL line
		if n == 0 {
			n = sum
		}
		if n == 0 {
			continue
		}
		fs = append(fs, Finding{Rule: RuleAER, Severity: f.sev,
			Summary:  fmt.Sprintf("%s: %d %s PCIe errors during the round (%s)", where, n, f.kind, strings.Join(parts, ", ")),
			Evidence: append([]Evidence{ev("errors", float64(n), "count")}, evs...),
			Action:   "reseat the card or move it to another slot, check the riser and the BIOS's PCIe settings (lspci -vv, dmesg | grep -i aer); the link's replays cost bandwidth the tools cannot see"})
	}
	return fs
}
