package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
	"github.com/rocekit/rocekit/report/plot"
	"github.com/rocekit/rocekit/runbook"
)

// summary is summary.json: one line per round for scripts and CI.
type summary struct {
	Mode     string           `json:"mode"`
	Rounds   []roundSummary   `json:"rounds"`
	Findings []findingSummary `json:"findings"`
}

// roundSummary is a round's medians and verdicts. Throughputs and loss
// are null when netperf did not print them.
type roundSummary struct {
	Name      string   `json:"name"`
	Letter    string   `json:"letter"`
	NetdevMTU int      `json:"netdev_mtu"`
	SendMbps  *float64 `json:"send_mbps"`
	RecvMbps  *float64 `json:"recv_mbps"`
	LossPct   *float64 `json:"loss_pct"`
	// NICDrops is the receiver's loss counters' growth over the round
	// (the larger of the ethtool and the link counters' sums, so a drop
	// counted by both is counted once).
	NICDrops uint64 `json:"nic_drops"`
	// UDPRcvbufErrors is the receiver's UDP RcvbufErrors growth over the
	// round (all runs; the report's table has the per-run median).
	UDPRcvbufErrors uint64   `json:"udp_rcvbuf_errors"`
	IRQOK           bool     `json:"irq_ok"`
	IRQReasons      []string `json:"irq_reasons"`
	// HotCore is the receiver's CPU with the most softirq time, -1 if none.
	HotCore     int  `json:"hot_core"`
	GovernorSet bool `json:"governor_set"`
}

// findingSummary is one finding of one round.
type findingSummary struct {
	Round    string `json:"round"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Summary  string `json:"summary"`
}

// buildSummary summarises the rounds.
func buildSummary(mode runbook.Mode, results []roundResult) summary {
	s := summary{Mode: string(mode), Rounds: []roundSummary{}, Findings: []findingSummary{}}
	for _, res := range results {
		d := res.Receiver.Distribution
		rs := roundSummary{Name: res.Round.Name, Letter: res.Spec.Letter, NetdevMTU: res.Far.Snapshot.MTU,
			SendMbps: medianOf(res.Round, "send_throughput"), RecvMbps: medianOf(res.Round, "recv_throughput"),
			NICDrops: nicDrops(res.Receiver.Stats), UDPRcvbufErrors: res.Receiver.UDP.RcvbufErrors,
			IRQOK: d.OK, IRQReasons: append([]string{}, d.Reasons...), HotCore: res.Receiver.Load.Hot().CPU,
			GovernorSet: res.GovernorSet}
		if l := medianOf(res.Round, "loss_ratio"); l != nil {
			pct := 100 * *l
			rs.LossPct = &pct
		}
		s.Rounds = append(s.Rounds, rs)
		for _, f := range res.Findings {
			s.Findings = append(s.Findings, findingSummary{Round: res.Round.Name, Severity: string(f.Severity), Rule: f.Rule, Summary: f.Summary})
		}
	}
	return s
}

// medianOf returns the median of a round's metric, nil when it has none.
func medianOf(r report.Round, key string) *float64 {
	m, ok := r.Metric(key)
	if !ok || len(m.Values) == 0 {
		return nil
	}
	v := slices.Sorted(slices.Values(m.Values))
	n := len(v)
	med := v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	return &med
}

// nicDrops sums the loss counters that grew, per source (ethtool -S, ip -s
// link), and returns the larger sum: drivers count many drops in both.
func nicDrops(d nic.StatsDelta) uint64 {
	sums := map[string]uint64{}
	for _, c := range d.Losses() {
		sums[c.Source] += c.Delta
	}
	var most uint64
	for _, v := range sums {
		most = max(most, v)
	}
	return most
}

// writeOutputs writes report.md (also to out), summary.json, report.html
// and the plots to dir.
func writeOutputs(dir string, out io.Writer, sides *runbook.Sides, store *report.Store, results []roundResult) error {
	var md strings.Builder
	if err := writeMarkdown(&md, sides, results); err != nil {
		return err
	}
	rs := make([]report.Round, len(results))
	for i, r := range results {
		rs[i] = r.Round
	}
	// The store holds this run's rounds too; Previous takes earlier ones.
	if err := report.WriteAgainstPrevious(&md, store, rs); err != nil {
		return err
	}
	if _, err := io.WriteString(out, md.String()); err != nil {
		return err
	}
	if _, err := cli.WriteFile(dir, "report.md", func(w io.Writer) error {
		_, err := io.WriteString(w, md.String())
		return err
	}); err != nil {
		return err
	}
	rounds := make([]report.Round, len(results))
	for i, r := range results {
		rounds[i] = r.Round
	}
	var figs []plot.Figure
	var findings []report.Finding
	fig, err := plot.UDP(rounds)
	if err != nil {
		return err
	}
	figs = append(figs, fig)
	interims, err := interimFigures(rounds)
	if err != nil {
		return err
	}
	figs = append(figs, interims...)
	for _, r := range results {
		opts := plot.CPULoadOptions{Name: "cpu-" + r.Spec.Letter}
		if r.Far.Snapshot.Device.NUMANode >= 0 {
			opts.NodeCPUs = r.Far.LocalCPUs
		}
		fig, err := plot.CPULoad(r.Round, opts)
		if err != nil {
			return err
		}
		figs = append(figs, fig)
		findings = append(findings, r.Findings...)
	}
	if _, err := cli.WriteFile(dir, "summary.json", func(w io.Writer) error {
		b, err := json.MarshalIndent(buildSummary(sides.Mode, results), "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}); err != nil {
		return err
	}
	// report.html, throughput.svg and cpu-LETTER.svg: the pictures inline, findings first.
	report.SortFindings(findings)
	return page.WriteFiles(dir, page.Page{Title: fmt.Sprintf("netperf UDP_STREAM tuning (%s)", sides.Mode),
		Sections: []page.Section{{Title: "netperf-udp-tuning", Findings: findings, Rounds: withoutPerCPU(results), Figures: figs, Markdown: md.String()}}})
}

// writeMarkdown writes the report: the environment of both ends, the
// rounds side by side, then each round's details and findings.
func writeMarkdown(w io.Writer, sides *runbook.Sides, results []roundResult) error {
	if len(results) == 0 {
		return nil
	}
	first := results[0]
	fmt.Fprintf(w, "# netperf UDP_STREAM tuning (%s)\n\n", sides.Mode)
	rounds := make([]report.Round, len(results))
	for i, r := range results {
		rounds[i] = r.Round
	}
	if err := report.WriteAnswersMarkdown(w, rounds); err != nil {
		return err
	}
	if fp := first.Round.Fingerprint; fp != nil {
		fmt.Fprintf(w, "%d runs per round of:\n\n", len(first.Round.Outputs))
		for _, a := range fp.Argv {
			fmt.Fprintf(w, "    %s: %s\n", a.Role, strings.Join(a.Argv, " "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "## Environment (start of round %s)\n\n", first.Spec.Letter)
	writeEnvironment(w, sides, first)
	fmt.Fprintf(w, "\n## Rounds side by side\n\n")
	fmt.Fprintf(w, "Medians ± 95%% CI over the runs; per-CPU values are in the store, the archives and cpu-LETTER.svg.\n\n")
	if err := report.WriteSideBySideMarkdown(w, withoutPerCPU(results)); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n![send and receive throughput, loss and drops per round](throughput.svg)\n")
	for _, r := range results {
		writeRound(w, sides, r)
	}
	return nil
}

// withoutPerCPU returns the rounds without their per-CPU metrics (two
// rows per CPU would drown the table on a large host) and interim
// results (one row per second; interims-throughput.svg shows them);
// cpu_soft_max and queue_irq_busiest_share stay.
func withoutPerCPU(results []roundResult) []report.Round {
	rounds := make([]report.Round, len(results))
	for i, r := range results {
		rounds[i] = r.Round
		rounds[i].Metrics = slices.DeleteFunc(slices.Clone(r.Round.Metrics), func(m report.Metric) bool {
			_, perCPU := m.Label("cpu")
			return perCPU || strings.HasPrefix(m.Name, "interim_")
		})
	}
	return rounds
}

// writeEnvironment is a table of both netdevs.
func writeEnvironment(w io.Writer, sides *runbook.Sides, r roundResult) {
	near, far := r.Near, r.Far
	rows := []struct {
		name string
		f    func(runbook.NetdevInfo, []irq.Affinity) string
	}{
		{"netdev", func(n runbook.NetdevInfo, _ []irq.Affinity) string {
			return n.Snapshot.Netdev + " " + orNone(n.Addr)
		}},
		{"driver, version", func(n runbook.NetdevInfo, _ []irq.Affinity) string {
			return orNone(strings.TrimSpace(n.Snapshot.Driver.Driver + " " + n.Snapshot.Driver.Version))
		}},
		{"firmware", func(n runbook.NetdevInfo, _ []irq.Affinity) string { return orNone(n.Snapshot.Driver.FirmwareVersion) }},
		{"bus", func(n runbook.NetdevInfo, _ []irq.Affinity) string { return orNone(n.Snapshot.Driver.BusInfo) }},
		{"link", func(n runbook.NetdevInfo, _ []irq.Affinity) string { return linkText(n.Snapshot.Link) }},
		{"NUMA node (CPUs)", func(n runbook.NetdevInfo, _ []irq.Affinity) string {
			return fmt.Sprintf("%d (%s)", n.Snapshot.Device.NUMANode, orNone(n.LocalCPUs.String()))
		}},
		{"MTU", func(n runbook.NetdevInfo, _ []irq.Affinity) string { return fmt.Sprint(n.Snapshot.MTU) }},
		{"channels", func(n runbook.NetdevInfo, _ []irq.Affinity) string { return channelsText(n.Snapshot.Channels) }},
		{"queue IRQs → affinity", irqText},
	}
	fmt.Fprintf(w, "| | sender (netperf, %s) | receiver (netserver, %s) |\n|---|---|---|\n", sides.Near.Name(), sides.Far.Name())
	for _, row := range rows {
		fmt.Fprintf(w, "| %s | %s | %s |\n", row.name, mdCell(row.f(near, r.NearAffinity)), mdCell(row.f(far, r.FarAffinity)))
	}
	for _, n := range []runbook.NetdevInfo{near, far} {
		for _, warn := range n.Warnings {
			fmt.Fprintf(w, "\n- %s: %s", n.Snapshot.Netdev, warn)
		}
	}
	fmt.Fprintln(w)
}

// receiveBufferText says whether netserver's receive buffer was granted:
// Linux reads a granted SO_RCVBUF back as twice the request, so reading
// back the size asked is a clamp to half, not a grant.
func receiveBufferText(asked string, got float64) string {
	a, err := strconv.Atoi(asked)
	if err != nil || a <= 0 {
		return fmt.Sprintf("reads back %.0f bytes (-S not recorded)", got)
	}
	if got >= 2*float64(a) {
		return fmt.Sprintf("asked %d bytes (-S): granted, it reads back %.0f (the kernel doubles SO_RCVBUF)", a, got)
	}
	return fmt.Sprintf("asked %d bytes (-S): **clamped**, it reads back %.0f where a granted buffer reads back %d (the kernel doubles SO_RCVBUF): net.core.rmem_max on the receiver is %.0f",
		a, got, 2*a, got/2)
}

// writeRound writes one round's details.
func writeRound(w io.Writer, sides *runbook.Sides, r roundResult) {
	s := buildSummary(sides.Mode, []roundResult{r}).Rounds[0]
	fmt.Fprintf(w, "\n## Round %s: %s\n\n", r.Spec.Letter, r.Round.Name)
	fmt.Fprintf(w, "- change: %s\n", r.Spec.change())
	for _, c := range r.Changes {
		fmt.Fprintf(w, "  - %s\n", c)
	}
	fmt.Fprintf(w, "- MTU: sender %d, receiver %d\n", r.Near.Snapshot.MTU, r.Far.Snapshot.MTU)
	if m, ok := r.Round.Metric("sockbuf_remote_recv"); ok && len(m.Values) > 0 {
		asked, _ := r.Round.Param("sockbuf")
		fmt.Fprintf(w, "- receive socket buffer: %s\n", receiveBufferText(asked, m.Values[0]))
	}
	fmt.Fprintf(w, "- throughput (medians of %d runs): send %s Mbit/s, receive %s Mbit/s, loss %s%%\n",
		len(r.Round.Outputs), numText(s.SendMbps), numText(s.RecvMbps), numText(s.LossPct))
	fmt.Fprintf(w, "- receiver NIC drop counters over the round: %s\n", lossesText(r.Receiver.Stats))
	u := r.Receiver.UDP
	fmt.Fprintf(w, "- receiver UDP errors: RcvbufErrors %d, InErrors %d, MemErrors %d, NoPorts %d\n",
		u.RcvbufErrors, u.InErrors, u.MemErrors, u.NoPorts)
	fmt.Fprintf(w, "- sender NIC drop counters: %s; SndbufErrors %d\n", lossesText(r.Sender.Stats), r.Sender.UDP.SndbufErrors)
	fmt.Fprintf(w, "- receiver queue IRQs → affinity at the start: %s\n", irqText(r.Far, r.FarAffinity))
	d := r.Receiver.Distribution
	verdict := "OK"
	if !d.OK {
		verdict = "not OK"
	}
	fmt.Fprintf(w, "- receiver interrupt distribution: %s: **%s**", report.IRQPlacementSummary(d), verdict)
	if len(d.Reasons) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(d.Reasons, "; "))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- receiver's hottest softirq core: %s\n", r.Receiver.Load.Hot())
	for _, n := range append(slices.Clone(r.Notes), r.Round.Warnings...) {
		fmt.Fprintf(w, "- note: %s\n", n)
	}
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "- findings: none\n")
	} else {
		fmt.Fprintf(w, "- findings:\n")
		for _, f := range r.Findings {
			fmt.Fprintf(w, "  - **%s** %s: %s", f.Severity, f.Rule, f.Summary)
			if f.Action != "" {
				fmt.Fprintf(w, " — %s", f.Action)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "\n![receiver CPU load and queue interrupts, round %s](cpu-%s.svg)\n", r.Spec.Letter, r.Spec.Letter)
}

// linkText is ethtool's speed, duplex and link in one cell.
func linkText(l *nic.LinkSettings) string {
	if l == nil {
		return "not reported"
	}
	speed := "speed unknown"
	if l.SpeedMbps > 0 {
		speed = fmt.Sprintf("%d Mbit/s", l.SpeedMbps)
	}
	det := "link detected"
	if !l.LinkDetected {
		det = "no link"
	}
	return fmt.Sprintf("%s, duplex %s, %s", speed, orNone(string(l.Duplex)), det)
}

// channelsText is ethtool -l in one cell.
func channelsText(c *nic.Channels) string {
	if c == nil {
		return "not reported"
	}
	return fmt.Sprintf("combined %d (max %d), rx %d, tx %d", c.Combined, c.MaxCombined, c.Rx, c.Tx)
}

// irqText lists a netdev's IRQs with their affinity where known: "25
// virtio1-input.0 → 0-3 (effective 1)".
func irqText(n runbook.NetdevInfo, aff []irq.Affinity) string {
	var s []string
	for _, q := range n.IRQs {
		t := fmt.Sprintf("%d %s", q.IRQ, q.Name)
		if i := slices.IndexFunc(aff, func(a irq.Affinity) bool { return a.IRQ == q.IRQ }); i >= 0 {
			t += " → " + aff[i].CPUs.String()
			if aff[i].Effective != nil {
				t += " (effective " + aff[i].Effective.String() + ")"
			}
		}
		s = append(s, t)
	}
	return orNone(strings.Join(s, "; "))
}

// lossesText lists the loss counters that grew: "ethtool.rx_queue_0_drops
// +12".
func lossesText(d nic.StatsDelta) string {
	var s []string
	for _, c := range d.Losses() {
		s = append(s, fmt.Sprintf("%s.%s +%d", c.Source, c.Name, c.Delta))
	}
	if len(s) == 0 {
		return "none grew"
	}
	return strings.Join(s, ", ")
}

// numText prints a median, or a dash when there is none.
func numText(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *v)
}

// mdCell escapes a table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
