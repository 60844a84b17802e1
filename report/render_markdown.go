package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/rocekit/rocekit/internal/warnjson"
)

// WriteRoundMarkdown writes one round as Markdown: its parameters, a table
// of its metrics (median with benchstat's ± CI, min, max, number of
// repeats), its warnings and its environment.
func WriteRoundMarkdown(w io.Writer, r Round) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## Round %s\n\n", mdEscape(r.Name))
	fmt.Fprintf(bw, "Started %s, %s s.\n\n", r.Start.UTC().Format("2006-01-02 15:04:05Z"), num(r.DurationSec))
	if len(r.Params) > 0 {
		fmt.Fprintf(bw, "| parameter | value |\n|---|---|\n")
		for _, p := range r.Params {
			fmt.Fprintf(bw, "| %s | %s |\n", mdEscape(p.Key), mdEscape(p.Value))
		}
		bw.WriteString("\n")
	}
	sweep, rest := splitSweep(r.Metrics)
	writeSweep(bw, sweep)
	if len(rest) > 0 {
		fmt.Fprintf(bw, "| metric | labels | unit | better | n | median | CI | min | max |\n|---|---|---|---|--:|--:|--:|--:|--:|\n")
	}
	for _, m := range rest {
		s := summarize(benchmath.NewSample(slices.Clone(m.Values), &benchmath.DefaultThresholds), 0.95)
		lo, hi := minMax(m.Values)
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %d | %s | %s | %s | %s |\n", mdEscape(m.Name), mdEscape(labelString(m.Labels)),
			mdEscape(m.Unit), m.Better, len(m.Values), valueText(s.Median, m.Unit), ciText(s), valueText(lo, m.Unit), valueText(hi, m.Unit))
	}
	writeWarnings(bw, r.Warnings)
	if fs := r.Fingerprint.Fields(); len(fs) > 0 {
		fmt.Fprintf(bw, "\n### Environment\n\n| field | value |\n|---|---|\n")
		for _, f := range fs {
			fmt.Fprintf(bw, "| %s | %s |\n", mdEscape(f.Key), mdEscape(f.Value))
		}
	}
	return bw.Flush()
}

// WriteComparisonMarkdown writes a comparison as Markdown: first what else
// changed in the environment (so that it is not compared silently), then
// one row per metric with both medians and CIs, the change, the U test's
// p-value and the verdict.
func WriteComparisonMarkdown(w io.Writer, c Comparison) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## %s vs %s\n\n", mdEscape(c.Candidate), mdEscape(c.Baseline))
	if ds, argv := paramChanges(c.ParamDiff); len(ds) > 1 {
		bw.WriteString(fmt.Sprintf("Several parameters changed at once (%d): %s%s. The comparison cannot tell which one made the difference.\n\n", len(ds), diffList(ds), argv))
	} else if len(ds) == 1 {
		bw.WriteString("Changed: " + diffList(ds) + argv + ".\n\n")
	} else if argv != "" {
		bw.WriteString("Changed: the command line only.\n\n")
	}
	if len(c.EnvDiff) > 0 {
		bw.WriteString("**Environment differs from the baseline:** " + diffList(c.EnvDiff) + ".\n\n")
	} else {
		bw.WriteString("Environment: same as the baseline.\n\n")
	}
	fmt.Fprintf(bw, "| metric | labels | unit | baseline | CI | candidate | CI | delta | p | n | verdict |\n|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n")
	notes := slices.Clone(c.Notes)
	for _, m := range c.Metrics {
		verdict := string(m.Verdict)
		if m.Verdict == VerdictTooFewSamples {
			verdict = fmt.Sprintf("too few samples, need %d per side", m.NeedSamples)
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d+%d | %s |\n",
			mdEscape(m.Name), mdEscape(labelString(m.Labels)), mdEscape(m.Unit),
			valueText(m.Baseline.Median, m.Unit), ciText(m.Baseline), valueText(m.Candidate.Median, m.Unit), ciText(m.Candidate),
			signedPct(m.DeltaPct), pValue(m.P), m.Baseline.N, m.Candidate.N, verdict)
		for _, w := range slices.Concat(m.Warnings, warnjson.Strings(m.Baseline.Warnings), warnjson.Strings(m.Candidate.Warnings)) {
			notes = appendUnique(notes, m.Key+": "+w)
		}
	}
	writeWarnings(bw, notes)
	return bw.Flush()
}

// WriteSideBySideMarkdown writes rounds side by side, one column per
// round and one row per metric (the union, in first-seen order), each cell
// the median and the CI: the table of a tuning session's rounds (A)
// default, (B) MTU 9000, (C) MTU 9000 + IRQs spread.
func WriteSideBySideMarkdown(w io.Writer, rounds []Round) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("| metric | unit |")
	for _, r := range rounds {
		bw.WriteString(" " + mdEscape(r.Name) + " |")
	}
	bw.WriteString("\n|---|---|" + strings.Repeat("--:|", len(rounds)) + "\n")
	for _, row := range SideBySide(rounds, nil) {
		fmt.Fprintf(bw, "| %s | %s |", mdEscape(row.Key), mdEscape(row.Unit))
		for _, m := range row.Cells {
			if len(m.Values) == 0 {
				bw.WriteString(" — |")
				continue
			}
			s := Summarize(m)
			ci := ciText(s)
			if !s.HasCI() {
				ci = "(" + ci + ")"
			}
			fmt.Fprintf(bw, " %s %s |", valueText(s.Median, m.Unit), ci)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

func writeWarnings(bw *bufio.Writer, ws []string) {
	if len(ws) == 0 {
		return
	}
	bw.WriteString("\nWarnings:\n\n")
	for _, w := range ws {
		bw.WriteString("- " + strings.ReplaceAll(w, "\n", " ") + "\n")
	}
}

// paramChanges leaves the command line out of the parameters that
// changed (it follows from the others) and says whether it changed too.
func paramChanges(ds []FieldDiff) ([]FieldDiff, string) {
	var out []FieldDiff
	argv := ""
	for _, d := range ds {
		if d.Field == "argv" {
			argv = " (and so the command line)"
			continue
		}
		out = append(out, d)
	}
	return out, argv
}

func diffList(ds []FieldDiff) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = "`" + d.Field + "` " + orDash(d.Baseline) + " → " + orDash(d.Candidate)
	}
	return mdEscape(strings.Join(s, ", "))
}

// SideBySideRow is one metric of rounds side by side: its key, the unit
// of the first round that has it, and the metric in each round (a zero
// Metric where the round lacks it).
type SideBySideRow struct {
	Key, Unit string
	Cells     []Metric // one per round, in order
}

// SideBySide lays rounds out as a table, the rows that
// WriteSideBySideMarkdown and the HTML page print: the metrics of all
// rounds that keep accepts (nil keeps every one), in first-seen order.
func SideBySide(rounds []Round, keep func(Metric) bool) []SideBySideRow {
	var rows []SideBySideRow
	seen := map[string]bool{}
	for _, r := range rounds {
		for _, m := range r.Metrics {
			if k := m.Key(); !seen[k] && (keep == nil || keep(m)) {
				seen[k] = true
				rows = append(rows, SideBySideRow{Key: k, Unit: m.Unit})
			}
		}
	}
	for i := range rows {
		rows[i].Cells = make([]Metric, len(rounds))
		for j := range rounds {
			rows[i].Cells[j], _ = rounds[j].Metric(rows[i].Key)
		}
	}
	return rows
}

func minMax(vs []float64) (lo, hi float64) {
	if len(vs) == 0 {
		return nan64(), nan64()
	}
	return slices.Min(vs), slices.Max(vs)
}

func appendUnique(ss []string, s string) []string {
	if slices.Contains(ss, s) {
		return ss
	}
	return append(ss, s)
}

// WriteFindingsMarkdown writes one list item per cause (GroupFindings):
// "- **warning** rule: summary", and for a cause raised more than once
// "(N times)" with the other occurrences' summaries indented below it.
func WriteFindingsMarkdown(w io.Writer, fs []Finding) error {
	for _, g := range GroupFindings(fs) {
		f, times := g.Finding, ""
		if g.Count() > 1 {
			times = fmt.Sprintf(" (%d times)", g.Count())
		}
		if _, err := fmt.Fprintf(w, "- **%s** %s%s: %s\n", f.Severity, f.Rule, times, f.Summary); err != nil {
			return err
		}
		for _, o := range g.Also {
			if _, err := fmt.Fprintf(w, "  - %s\n", o.Summary); err != nil {
				return err
			}
		}
	}
	return nil
}

// sweepMinSizes is how many message sizes make a round a sweep (-a), shown
// as one row per size instead of one row per metric and size.
const sweepMinSizes = 3

// splitSweep parts a round's metrics into those labelled by message size
// alone, when there are sweepMinSizes sizes or more, and the rest.
func splitSweep(ms []Metric) (sweep, rest []Metric) {
	sizes := map[string]bool{}
	for _, m := range ms {
		if len(m.Labels) == 1 && m.Labels[0].Key == LabelSize {
			sizes[m.Labels[0].Value] = true
		}
	}
	if len(sizes) < sweepMinSizes {
		return nil, ms
	}
	for _, m := range ms {
		if len(m.Labels) == 1 && m.Labels[0].Key == LabelSize {
			sweep = append(sweep, m)
		} else {
			rest = append(rest, m)
		}
	}
	return sweep, rest
}

// writeSweep writes a sweep as one row per message size (in the order
// the sizes came) and one column per metric, each cell the median scaled
// for reading and its CI where the repeats give one.
func writeSweep(bw *bufio.Writer, ms []Metric) {
	if len(ms) == 0 {
		return
	}
	var names, units, sizes []string
	cells := map[[2]string]Metric{}
	for _, m := range ms {
		if !slices.Contains(names, m.Name) {
			names, units = append(names, m.Name), append(units, m.Unit)
		}
		if sz := m.Labels[0].Value; !slices.Contains(sizes, sz) {
			sizes = append(sizes, sz)
		}
		cells[[2]string{m.Labels[0].Value, m.Name}] = m
	}
	bw.WriteString("| size (B) |")
	for i, n := range names {
		fmt.Fprintf(bw, " %s (%s) |", mdEscape(n), mdEscape(units[i]))
	}
	bw.WriteString(" n |\n|--:|" + strings.Repeat("--:|", len(names)) + "--:|\n")
	for _, sz := range sizes {
		fmt.Fprintf(bw, "| %s |", mdEscape(sz))
		n := 0
		for _, name := range names {
			m, ok := cells[[2]string{sz, name}]
			if !ok || len(m.Values) == 0 {
				bw.WriteString(" — |")
				continue
			}
			s := Summarize(m)
			n = max(n, s.N)
			if s.HasCI() {
				fmt.Fprintf(bw, " %s %s |", valueText(s.Median, m.Unit), ciText(s))
			} else {
				fmt.Fprintf(bw, " %s |", valueText(s.Median, m.Unit))
			}
		}
		fmt.Fprintf(bw, " %d |\n", n)
	}
	bw.WriteString("\n")
}
