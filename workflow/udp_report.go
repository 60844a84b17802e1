package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/ownfile"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
	"github.com/rocekit/rocekit/report/plot"
	"github.com/rocekit/rocekit/runbook"
)

// UDPSummary is summary.json of UDP rounds: one line per round for
// scripts and CI.
type UDPSummary struct {
	Mode     string              `json:"mode"`
	Rounds   []UDPRoundSummary   `json:"rounds"`
	Findings []UDPFindingSummary `json:"findings"`
}

// UDPRoundSummary is a round's medians and verdicts. Throughputs and loss
// are null when netperf did not print them.
type UDPRoundSummary struct {
	Name      string   `json:"name"`
	Letter    string   `json:"letter"`
	Test      string   `json:"test"`
	NetdevMTU int      `json:"netdev_mtu"`
	MsgSize   int      `json:"msg_size"`
	SendMbps  *float64 `json:"send_mbps"`
	RecvMbps  *float64 `json:"recv_mbps"`
	// Mbps is TCP_STREAM's throughput (T rounds).
	Mbps    *float64 `json:"mbps,omitempty"`
	LossPct *float64 `json:"loss_pct"`
	// FrameMeanBytes is the receiver's mean frame over the round
	// (rx_bytes / rx_packets): above 1500 in an MTU round that sent jumbo
	// frames.
	FrameMeanBytes *float64 `json:"frame_mean_bytes,omitempty"`
	// NICDrops is the receiver's loss counters' growth over the round
	// (the larger of the ethtool and the link counters' sums, so a drop
	// counted by both is counted once).
	NICDrops uint64 `json:"nic_drops"`
	// UDPRcvbufErrors is the receiver's UDP RcvbufErrors growth over the
	// round (all runs; the report's table has the per-run median).
	UDPRcvbufErrors uint64 `json:"udp_rcvbuf_errors"`
	// SocketDrops is netserver's own socket's drops summed over the runs;
	// null when not read.
	SocketDrops *uint64  `json:"socket_drops"`
	IRQOK       bool     `json:"irq_ok"`
	IRQReasons  []string `json:"irq_reasons"`
	// HotCore is the receiver's CPU with the most softirq time, -1 if none.
	HotCore     int      `json:"hot_core"`
	GovernorSet bool     `json:"governor_set"`
	Drifts      []string `json:"drifts,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// UDPFindingSummary is one finding of one round.
type UDPFindingSummary struct {
	Round    string `json:"round"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Summary  string `json:"summary"`
}

// SummarizeUDP summarises the rounds.
func SummarizeUDP(mode runbook.Mode, results []UDPRoundResult) UDPSummary {
	s := UDPSummary{Mode: string(mode), Rounds: []UDPRoundSummary{}, Findings: []UDPFindingSummary{}}
	for _, res := range results {
		d := res.Receiver.Distribution
		test, _ := res.Round.Param(report.ParamTest)
		msg, _ := res.Round.Param(report.ParamMsgSize)
		m, _ := strconv.Atoi(msg)
		rs := UDPRoundSummary{Name: res.Spec.Name(), Letter: res.Spec.Letter, Test: test, NetdevMTU: res.Far.Snapshot.MTU, MsgSize: m,
			SendMbps: udpMedianOf(res.Round, report.MetricSendThroughput), RecvMbps: udpMedianOf(res.Round, report.MetricRecvThroughput),
			FrameMeanBytes: udpMedianOf(res.Round, report.MetricRecvFrameMean),
			NICDrops:       udpNicDrops(res.Receiver.Stats), UDPRcvbufErrors: res.Receiver.UDP.RcvbufErrors,
			IRQOK: d.OK, IRQReasons: append([]string{}, d.Reasons...), HotCore: res.Receiver.Load.Hot().CPU,
			GovernorSet: res.GovernorSet, Drifts: res.Drifts}
		if res.Spec.TCP {
			rs.Mbps = udpMedianOf(res.Round, report.MetricThroughput)
		}
		if len(res.Sockets) > 0 {
			var n uint64
			for _, x := range res.Sockets {
				n += x.Drops
			}
			rs.SocketDrops = &n
		}
		if res.Err != nil {
			rs.Error = res.Err.Error()
		}
		if l := udpMedianOf(res.Round, report.MetricLossRatio); l != nil {
			pct := 100 * *l
			rs.LossPct = &pct
		}
		s.Rounds = append(s.Rounds, rs)
		for _, f := range res.Round.Findings {
			s.Findings = append(s.Findings, UDPFindingSummary{Round: rs.Name, Severity: string(f.Severity), Rule: f.Rule, Summary: f.Summary})
		}
	}
	return s
}

// udpMedianOf returns the median of a round's metric, nil when it has none.
func udpMedianOf(r report.Round, key string) *float64 {
	m, ok := r.Metric(key)
	if !ok || len(m.Values) == 0 {
		return nil
	}
	med := report.Summarize(m).Median
	return &med
}

// udpNicDrops sums the loss counters that grew, per source (ethtool -S, ip -s
// link), and returns the larger sum: drivers count many drops in both.
func udpNicDrops(d nic.StatsDelta) uint64 {
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

// WriteUDPReport writes report.md (also to out, when not nil),
// summary.json, report.html and the plots (throughput.svg,
// interims-throughput.svg, cpu-LETTER.svg) into dir.
func WriteUDPReport(dir string, out io.Writer, sides *runbook.Sides, results []UDPRoundResult) error {
	md, err := udpWriteMarkdown(dir, "report.md", out, func(w io.Writer) error { return WriteUDPMarkdown(w, sides, results) })
	if err != nil {
		return err
	}
	if err := udpWriteJSON(dir, "summary.json", SummarizeUDP(sides.Mode, results)); err != nil {
		return err
	}
	rounds := udpRoundsOf(results, false)
	var figs []plot.Figure
	if len(rounds) > 0 {
		fig, err := plot.UDP(rounds)
		if err != nil {
			return err
		}
		figs = append(figs, fig)
		if fig, err := plot.Interims(rounds, report.MetricThroughput); err == nil {
			figs = append(figs, fig)
		} else if !errors.Is(err, report.ErrNoData) {
			return err
		}
	}
	var findings []report.Finding
	for _, r := range results {
		findings = append(findings, r.Round.Findings...)
		if r.Err != nil {
			continue
		}
		opts := plot.CPULoadOptions{Name: "cpu-" + r.Spec.Letter}
		if r.Far.Snapshot.Device.NUMANode >= 0 {
			opts.NodeCPUs = r.Far.LocalCPUs
		}
		fig, err := plot.CPULoad(r.Round, opts)
		if err != nil {
			return err
		}
		figs = append(figs, fig)
	}
	report.SortFindings(findings)
	return page.WriteFiles(dir, page.Page{Title: fmt.Sprintf("netperf UDP_STREAM tuning (%s)", sides.Mode),
		Sections: []page.Section{{Title: "netperf-udp-tuning", Findings: findings, Rounds: udpRoundsOf(results, true), Figures: figs, Markdown: md}}})
}

// udpWriteMarkdown writes the Markdown that write renders as dir/name,
// and to out when not nil; it returns the Markdown.
func udpWriteMarkdown(dir, name string, out io.Writer, write func(io.Writer) error) (string, error) {
	var md strings.Builder
	if err := write(&md); err != nil {
		return "", err
	}
	if out != nil {
		if _, err := io.WriteString(out, md.String()); err != nil {
			return "", err
		}
	}
	return md.String(), udpWriteFile(dir, name, []byte(md.String()))
}

// udpWriteJSON writes v indented as dir/name, with a final newline.
func udpWriteJSON(dir, name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return udpWriteFile(dir, name, append(b, '\n'))
}

// udpWriteFile writes dir/name whole (ownfile).
func udpWriteFile(dir, name string, data []byte) error {
	if err := ownfile.MkdirAll(dir); err != nil {
		return err
	}
	return ownfile.WriteFile(filepath.Join(dir, name), data, 0o644)
}

// udpRoundsOf are the rounds that ran; lean drops their per-CPU metrics (two
// rows per CPU would drown the table on a large host) and interim results
// (one row per second; interims-throughput.svg shows them), keeping
// cpu_soft_max and queue_irq_busiest_share.
func udpRoundsOf(results []UDPRoundResult, lean bool) []report.Round {
	var rounds []report.Round
	for _, r := range results {
		if r.Err != nil {
			continue
		}
		rd := r.Round
		if lean {
			rd.Metrics = slices.DeleteFunc(slices.Clone(r.Round.Metrics), func(m report.Metric) bool {
				_, perCPU := m.Label("cpu")
				return perCPU || strings.HasPrefix(m.Name, "interim_")
			})
		}
		rounds = append(rounds, rd)
	}
	return rounds
}

// WriteUDPMarkdown writes the report: the answers, the command lines, the
// environment of both ends, the rounds side by side, UDP against TCP,
// each round's details and findings, and each round against the store's
// previous one.
func WriteUDPMarkdown(w io.Writer, sides *runbook.Sides, results []UDPRoundResult) error {
	if len(results) == 0 {
		return nil
	}
	first := results[0]
	fmt.Fprintf(w, "# netperf UDP_STREAM tuning (%s)\n\n", sides.Mode)
	if err := report.WriteAnswersMarkdown(w, udpRoundsOf(results, false)); err != nil {
		return err
	}
	if fp := first.Round.Fingerprint; fp != nil {
		fmt.Fprintf(w, "%d runs per round of:\n\n", len(first.Round.Outputs))
		for _, a := range fp.Argv {
			fmt.Fprintf(w, "    %s: %s\n", a.Role, strings.Join(a.Argv, " "))
		}
		fmt.Fprintln(w)
		for _, t := range fp.Tools {
			fmt.Fprintf(w, "- %s %s\n", t.Key, t.Value)
		}
		if fp.Kernel != "" {
			fmt.Fprintf(w, "- kernel %s\n", fp.Kernel)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "## Environment (start of round %s)\n\n", first.Spec.Letter)
	writeEnvironment(w, sides, first)
	fmt.Fprintf(w, "\n## Rounds side by side\n\n")
	fmt.Fprintf(w, "Medians ± 95%% CI over the runs; per-CPU values are in the store, the archives and cpu-LETTER.svg.\n\n")
	if err := report.WriteSideBySideMarkdown(w, udpRoundsOf(results, true)); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n![send and receive throughput, loss and drops per round](throughput.svg)\n")
	writeAgainstTCP(w, results)
	for _, r := range results {
		writeRound(w, sides, r)
	}
	return writeAgainstPrevious(w, results)
}

// writeAgainstTCP writes the TCP reference rounds against UDP.
func writeAgainstTCP(w io.Writer, results []UDPRoundResult) {
	for _, r := range results {
		if !r.Spec.TCP {
			continue
		}
		fmt.Fprintf(w, "\n## UDP against TCP (round %s)\n\n", r.Spec.Letter)
		found := false
		for _, f := range r.Round.Findings {
			if f.Rule == RuleUDPAgainstTCP {
				fmt.Fprintf(w, "%s — %s\n", f.Summary, f.Action)
				found = true
			}
		}
		if !found {
			fmt.Fprintf(w, "no UDP round before round %s to hold against TCP_STREAM, or no throughput\n", r.Spec.Letter)
		}
	}
}

// writeAgainstPrevious writes each round against the store's previous one
// of its name, the parameters that changed first.
func writeAgainstPrevious(w io.Writer, results []UDPRoundResult) error {
	fmt.Fprintf(w, "\n## Against the previous run\n\n")
	var first []string
	for _, r := range results {
		if r.Comparison == nil {
			if r.Err == nil {
				first = append(first, r.Round.Name)
			}
			continue
		}
		if err := report.WriteComparisonMarkdown(w, *r.Comparison); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if len(first) > 0 {
		fmt.Fprintf(w, "First of their name in the store (the baseline for the next run): %s.\n", strings.Join(first, ", "))
	}
	return nil
}

// writeEnvironment is a table of both netdevs.
func writeEnvironment(w io.Writer, sides *runbook.Sides, r UDPRoundResult) {
	rows := []struct {
		name string
		f    func(runbook.Netdev) string
	}{
		{"netdev", func(n runbook.Netdev) string { return n.Snapshot.Netdev + " " + udpOrNone(n.Addr) }},
		{"driver, version", func(n runbook.Netdev) string {
			return udpOrNone(strings.TrimSpace(n.Snapshot.Driver.Driver + " " + n.Snapshot.Driver.Version))
		}},
		{"firmware", func(n runbook.Netdev) string { return udpOrNone(n.Snapshot.Driver.FirmwareVersion) }},
		{"bus", func(n runbook.Netdev) string { return udpOrNone(n.Snapshot.Driver.BusInfo) }},
		{"link", func(n runbook.Netdev) string { return udpLinkText(n.Snapshot.Link) }},
		{"NUMA node (CPUs)", func(n runbook.Netdev) string {
			return fmt.Sprintf("%d (%s)", n.Snapshot.Device.NUMANode, udpOrNone(n.LocalCPUs.String()))
		}},
		{"MTU", func(n runbook.Netdev) string { return strconv.Itoa(n.Snapshot.MTU) }},
		{"channels", func(n runbook.Netdev) string { return udpChannelsText(n.Snapshot.Channels) }},
		{"queue IRQs → affinity", udpIrqText},
	}
	fmt.Fprintf(w, "| | sender (netperf, %s) | receiver (netserver, %s) |\n|---|---|---|\n", sides.Near.Name(), sides.Far.Name())
	for _, row := range rows {
		fmt.Fprintf(w, "| %s | %s | %s |\n", row.name, udpMdCell(row.f(r.Near)), udpMdCell(row.f(r.Far)))
	}
	for _, n := range []runbook.Netdev{r.Near, r.Far} {
		for _, warn := range n.Warnings {
			fmt.Fprintf(w, "\n- %s: %s", n.Snapshot.Netdev, warn)
		}
	}
	fmt.Fprintln(w)
}

// ReceiveBufferText says whether netserver's receive buffer was granted:
// Linux reads a granted SO_RCVBUF back as twice the request, so reading
// back the size asked is a clamp to half, not a grant.
func ReceiveBufferText(asked string, got float64) string {
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
func writeRound(w io.Writer, sides *runbook.Sides, r UDPRoundResult) {
	s := SummarizeUDP(sides.Mode, []UDPRoundResult{r}).Rounds[0]
	fmt.Fprintf(w, "\n## Round %s: %s\n\n", r.Spec.Letter, r.Spec.Name())
	fmt.Fprintf(w, "- change: %s\n", r.Spec.Change())
	for _, c := range r.Changes {
		fmt.Fprintf(w, "  - %s\n", c)
	}
	if r.Err != nil {
		fmt.Fprintf(w, "- **failed**: %v\n", r.Err)
	}
	fmt.Fprintf(w, "- MTU: sender %d, receiver %d; message size %d bytes", r.Near.Snapshot.MTU, r.Far.Snapshot.MTU, s.MsgSize)
	if s.FrameMeanBytes != nil {
		fmt.Fprintf(w, "; receiver's mean frame %.0f bytes", *s.FrameMeanBytes)
	}
	fmt.Fprintln(w)
	if m, ok := r.Round.Metric("sockbuf_remote_recv"); ok && len(m.Values) > 0 {
		asked, _ := r.Round.Param(report.ParamSockbuf)
		fmt.Fprintf(w, "- receive socket buffer: %s\n", ReceiveBufferText(asked, m.Values[0]))
	}
	if r.Spec.TCP {
		fmt.Fprintf(w, "- TCP_STREAM throughput (median of %d runs): %s Mbit/s\n", len(r.Round.Outputs), udpNumText(s.Mbps))
	} else {
		fmt.Fprintf(w, "- throughput (medians of %d runs): send %s Mbit/s, receive %s Mbit/s, loss %s%%\n",
			len(r.Round.Outputs), udpNumText(s.SendMbps), udpNumText(s.RecvMbps), udpNumText(s.LossPct))
	}
	fmt.Fprintf(w, "- receiver NIC drop counters over the round: %s\n", udpLossesText(r.Receiver.Stats))
	u := r.Receiver.UDP
	fmt.Fprintf(w, "- receiver UDP errors: RcvbufErrors %d, InErrors %d, MemErrors %d, NoPorts %d\n",
		u.RcvbufErrors, u.InErrors, u.MemErrors, u.NoPorts)
	if s.SocketDrops != nil {
		fmt.Fprintf(w, "- netserver's own socket (/proc/PID/net/udp): %s\n", udpSocketText(r.Sockets, u.RcvbufErrors))
	}
	fmt.Fprintf(w, "- sender NIC drop counters: %s; SndbufErrors %d\n", udpLossesText(r.Sender.Stats), r.Sender.UDP.SndbufErrors)
	fmt.Fprintf(w, "- receiver queue IRQs → affinity at the start: %s\n", udpIrqText(r.Far))
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
	if len(r.Round.Findings) == 0 {
		fmt.Fprintf(w, "- findings: none\n")
	} else {
		fmt.Fprintf(w, "- findings:\n")
		for _, f := range r.Round.Findings {
			fmt.Fprintf(w, "  - **%s** %s: %s", f.Severity, f.Rule, f.Summary)
			if f.Action != "" {
				fmt.Fprintf(w, " — %s", f.Action)
			}
			fmt.Fprintln(w)
		}
	}
	if r.Err == nil {
		fmt.Fprintf(w, "\n![receiver CPU load and queue interrupts, round %s](cpu-%s.svg)\n", r.Spec.Letter, r.Spec.Letter)
	}
}

// udpSocketText holds netserver's socket drops against RcvbufErrors over
// the same span when they were read together, else over the runs.
func udpSocketText(socks []SocketReading, round uint64) string {
	var drops, span uint64
	together := true
	for _, x := range socks {
		drops += x.Drops
		span += x.RcvbufErrors
		together = together && x.CountersRead
	}
	against, how := round, "over the runs"
	if together {
		against, how = span, fmt.Sprintf("read with it (%d over the whole runs: what arrived after netserver stopped reading at each test's end)", round)
	}
	agree := "agree"
	if !report.SocketDropsAgree(drops, against) {
		agree = "**do not agree**"
	}
	return fmt.Sprintf("drops %d against RcvbufErrors %d %s: %s", drops, against, how, agree)
}

// udpLinkText is ethtool's speed, duplex and link in one cell.
func udpLinkText(l *nic.LinkSettings) string {
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
	return fmt.Sprintf("%s, duplex %s, %s", speed, udpOrNone(string(l.Duplex)), det)
}

// udpChannelsText is ethtool -l in one cell.
func udpChannelsText(c *nic.Channels) string {
	if c == nil {
		return "not reported"
	}
	return fmt.Sprintf("combined %d (max %d), rx %d, tx %d", c.Combined, c.MaxCombined, c.Rx, c.Tx)
}

// udpIrqText lists a netdev's IRQs with their affinity where known: "25
// virtio1-input.0 → 0-3 (effective 1)".
func udpIrqText(n runbook.Netdev) string {
	var s []string
	for _, q := range n.IRQs {
		t := fmt.Sprintf("%d %s", q.IRQ, q.Name)
		if i := slices.IndexFunc(n.Affinity, func(a irq.Affinity) bool { return a.IRQ == q.IRQ }); i >= 0 {
			t += " → " + n.Affinity[i].CPUs.String()
			if n.Affinity[i].Effective != nil {
				t += " (effective " + n.Affinity[i].Effective.String() + ")"
			}
		}
		s = append(s, t)
	}
	return udpOrNone(strings.Join(s, "; "))
}

// udpLossesText lists the loss counters that grew: "ethtool.rx_queue_0_drops
// +12".
func udpLossesText(d nic.StatsDelta) string {
	var s []string
	for _, c := range d.Losses() {
		s = append(s, fmt.Sprintf("%s.%s +%d", c.Source, c.Name, c.Delta))
	}
	if len(s) == 0 {
		return "none grew"
	}
	return strings.Join(s, ", ")
}

// udpNumText prints a median, or a dash when there is none.
func udpNumText(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *v)
}

// udpMdCell escapes a table cell.
func udpMdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
