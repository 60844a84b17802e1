package report

import (
	"strings"

	"github.com/rocekit/rocekit/kmsg"
)

// RuleKernelLog prefixes the rules of KernelLogFindings
// ("kernel_log_timeout", "kernel_log_link_flap", ...).
const RuleKernelLog = "kernel_log_"

// KernelLogFindings turns what a round's kernel log showed (kmsg.Summarize
// of the driver's new lines) into findings: command and firmware
// timeouts, firmware and PCIe errors, link flaps, allocation failures,
// RDMA messages, each with how often, the first line and the action.
// where names the host ("near", "far").
//
// Similar to: dmesg | grep mlx5 (and reading it)
func KernelLogFindings(where string, fs []kmsg.Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		sev := SeverityWarning
		if f.Kind == kmsg.KindTimeout || f.Kind == kmsg.KindFirmware {
			sev = SeverityCritical
		}
		src := strings.TrimSpace(strings.Join([]string{f.Source.Driver, f.Source.Device, f.Source.Netdev}, " "))
		out = append(out, Finding{Rule: RuleKernelLog + strings.ReplaceAll(strings.ToLower(f.Kind.String()), " ", "_"), Severity: sev,
			Summary:  sprintf("%s kernel log: %s ×%d (%s): %q", where, f.Name, f.Count, src, f.First.Text),
			Evidence: []Evidence{ev("kernel_log_lines", float64(f.Count), "count")},
			Action:   f.Action})
	}
	return out
}
