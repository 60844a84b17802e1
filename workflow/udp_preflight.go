package workflow

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// UDPPreflight is what the preflight of both ends found before any round
// changes a thing.
type UDPPreflight struct {
	Hosts    []report.HostFacts `json:"hosts"` // near, then far
	Findings []report.Finding   `json:"findings"`
}

// RunUDPPreflight reads both ends for netperf (Sides.Preflight with
// netserver's ports): NIC model, driver and firmware, link speed, NUMA
// node, a firewall rule in the way, socket buffer limits under
// socketBuffer, irqbalance, governor, the two hosts side by side. Pass
// its Hosts and Findings to UDPOptions.Preflight and PreflightFindings.
func RunUDPPreflight(ctx context.Context, sides *runbook.Sides, socketBuffer int) (UDPPreflight, error) {
	facts, fs, err := sides.Preflight(ctx, runbook.NetperfPorts, report.PreflightAsk{SocketBufferBytes: socketBuffer})
	return UDPPreflight{Hosts: facts, Findings: fs}, err
}

// WriteMarkdown writes the preflight: one line per host, then its
// findings.
func (p UDPPreflight) WriteMarkdown(w io.Writer) error {
	var md strings.Builder
	fmt.Fprintf(&md, "# Preflight\n\n")
	for _, h := range p.Hosts {
		fmt.Fprintf(&md, "- %s: %s, kernel %s, %s %s, rmem_max %s, wmem_max %s, firewalld %s\n", h.Role, udpOrNone(h.Host), udpOrNone(h.Kernel),
			h.NIC.Netdev, udpOrNone(h.Model), udpOrNone(h.Sysctls["net.core.rmem_max"]), udpOrNone(h.Sysctls["net.core.wmem_max"]), udpOrNone(h.Firewalld))
	}
	fmt.Fprintln(&md)
	if err := report.WriteFindingsMarkdown(&md, p.Findings); err != nil {
		return err
	}
	_, err := io.WriteString(w, md.String())
	return err
}

// WriteFiles writes preflight.md and preflight.json into dir, and the
// Markdown to out when not nil.
func (p UDPPreflight) WriteFiles(dir string, out io.Writer) error {
	if _, err := udpWriteMarkdown(dir, "preflight.md", out, p.WriteMarkdown); err != nil {
		return err
	}
	return udpWriteJSON(dir, "preflight.json", p)
}
