package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteBenchstat writes rounds as a benchstat text table, without
// benchstat: one table per unit, a row per metric (its labels), a column
// per round with the median ± its confidence interval, and for every
// round after the first (the baseline) a "vs base" column with the
// median's change and the U test's p-value and sample sizes:
//
//	                  │   mtu1500    │               mtu9000                │
//	                  │    Gbit/s    │    Gbit/s      vs base               │
//	bw_avg/size=65536   3.96 ± 2%      5.89 ± 1%    +48.74% (p=0.000 n=10)
//
// "~" is no significant change at the comparison's alpha; a sample too
// small for a confidence interval reads "n = 3: no CI", one too small for
// the test says how many values it needs ("need ≥ 4"). The statistics
// are Compare's (each later round against the first, at opts) and, for a
// round alone, Summarize's: this only lays them out.
//
// Similar to: benchstat old.txt new.txt (with WriteBenchfmt's files).
func WriteBenchstat(w io.Writer, opts CompareOptions, rounds ...Round) error {
	if len(rounds) == 0 {
		return nil
	}
	cols := []benchstatColumn{{name: rounds[0].Name}}
	var rows []benchstatRow
	if len(rounds) == 1 {
		for _, m := range rounds[0].Metrics {
			rows = append(rows, benchstatRow{key: m.Key(), unit: m.Unit})
			cols[0].cells = append(cols[0].cells, benchstatCell{sum: Summarize(m), ok: true})
		}
		return writeBenchstat(w, cols, rows)
	}
	var cmps []Comparison
	for _, r := range rounds[1:] {
		cmps = append(cmps, Compare(rounds[0], r, opts))
	}
	cols, rows = benchstatColumns(rounds[0].Name, cmps)
	return writeBenchstat(w, cols, rows)
}

// WriteBenchstatComparison writes a comparison already made (a step's
// Result.Comparison, one Compare of the store's rounds) as WriteBenchstat
// lays it out: the baseline's column and the candidate's with its change.
func WriteBenchstatComparison(w io.Writer, c Comparison) error {
	cols, rows := benchstatColumns(c.Baseline, []Comparison{c})
	return writeBenchstat(w, cols, rows)
}

// benchstatColumn is one round's cells, by row; vs is set for a round
// compared with the baseline.
type benchstatColumn struct {
	name  string
	vs    bool
	cells []benchstatCell
}

type benchstatCell struct {
	sum Summary
	ok  bool // the round has the metric
	mc  *MetricComparison
}

type benchstatRow struct {
	key, unit string
}

// benchstatColumns lays out comparisons of one baseline: the rows are the
// baseline's metrics in its order, then each candidate's new ones.
func benchstatColumns(base string, cmps []Comparison) ([]benchstatColumn, []benchstatRow) {
	var rows []benchstatRow
	index := map[string]int{}
	for _, c := range cmps {
		for _, mc := range c.Metrics {
			if _, ok := index[mc.Key]; !ok {
				index[mc.Key] = len(rows)
				rows = append(rows, benchstatRow{key: mc.Key, unit: mc.Unit})
			}
		}
	}
	cols := []benchstatColumn{{name: base, cells: make([]benchstatCell, len(rows))}}
	for _, c := range cmps {
		col := benchstatColumn{name: c.Candidate, vs: true, cells: make([]benchstatCell, len(rows))}
		for i := range c.Metrics {
			mc := &c.Metrics[i]
			r := index[mc.Key]
			if mc.Baseline.N > 0 {
				cols[0].cells[r] = benchstatCell{sum: mc.Baseline, ok: true}
			}
			if mc.Candidate.N > 0 {
				col.cells[r] = benchstatCell{sum: mc.Candidate, ok: true, mc: mc}
			}
		}
		cols = append(cols, col)
	}
	return cols, rows
}

// writeBenchstat prints one table per unit, in the order the units first
// appear.
func writeBenchstat(w io.Writer, cols []benchstatColumn, rows []benchstatRow) error {
	bw := bufio.NewWriter(w)
	var units []string
	for _, r := range rows {
		if !slices.Contains(units, r.unit) {
			units = append(units, r.unit)
		}
	}
	for i, u := range units {
		if i > 0 {
			bw.WriteString("\n")
		}
		t := benchstatTable{head: []string{""}}
		for _, c := range cols {
			t.names = append(t.names, c.name)
			t.head = append(t.head, benchstatUnit(u))
			n := 1
			if c.vs {
				t.head = append(t.head, "vs base")
				n = 2
			}
			t.groups = append(t.groups, n)
		}
		for r, row := range rows {
			if row.unit != u {
				continue
			}
			line := []string{row.key}
			for _, c := range cols {
				line = append(line, benchstatValue(c.cells[r]))
				if c.vs {
					line = append(line, benchstatDelta(c.cells[r]))
				}
			}
			t.grid = append(t.grid, line)
		}
		t.write(bw)
	}
	return bw.Flush()
}

// benchstatTable is one unit's table: the rounds' names over their
// groups of cells (1, or 2 with "vs base"), the header under them, and
// the rows, label first.
type benchstatTable struct {
	names  []string
	groups []int
	head   []string
	grid   [][]string
}

// write aligns the table: the label column left, each round's group
// between "│" in the header, its name centred over the group.
func (t benchstatTable) write(w *bufio.Writer) {
	width := make([]int, len(t.head))
	for _, line := range append([][]string{t.head}, t.grid...) {
		for i, c := range line {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	span := func(at, n int) int {
		s := 2 * (n - 1)
		for i := at; i < at+n; i++ {
			s += width[i]
		}
		return s
	}
	at := 1
	for g, n := range t.groups { // a name wider than its cells widens the last one
		if d := utf8.RuneCountInString(t.names[g]) - span(at, n); d > 0 {
			width[at+n-1] += d
		}
		at += n
	}
	row := func(cell func(g, at, n int) string, sep, end string, label string) {
		var b strings.Builder
		b.WriteString(label + strings.Repeat(" ", width[0]-utf8.RuneCountInString(label)))
		at := 1
		for g, n := range t.groups {
			b.WriteString(sep + cell(g, at, n))
			at += n
		}
		w.WriteString(strings.TrimRight(b.String()+end, " ") + "\n")
	}
	row(func(g, at, n int) string { return benchstatCentre(t.names[g], span(at, n)) }, " │ ", " │", "")
	row(func(g, at, n int) string {
		cs := make([]string, n)
		for i := range cs {
			cs[i] = benchstatCentre(t.head[at+i], width[at+i])
		}
		return strings.Join(cs, "  ")
	}, " │ ", " │", "")
	for _, line := range t.grid {
		row(func(g, at, n int) string {
			cs := make([]string, n)
			for i := range cs {
				c := line[at+i]
				cs[i] = c + strings.Repeat(" ", width[at+i]-utf8.RuneCountInString(c))
			}
			return strings.Join(cs, "  ")
		}, "   ", "", line[0])
	}
}

func benchstatCentre(s string, w int) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	return strings.Repeat(" ", n/2) + s + strings.Repeat(" ", n-n/2)
}

// benchstatUnit is the unit as a column header ("" is "value").
func benchstatUnit(u string) string {
	if u == "" {
		return "value"
	}
	return u
}

// benchstatValue is "3.96 ± 2%", "3.96 (n = 3: no CI)", or "—" for a
// metric the round does not have.
func benchstatValue(c benchstatCell) string {
	if !c.ok {
		return "—"
	}
	v := num(c.sum.Median)
	if !c.sum.HasCI() {
		return fmt.Sprintf("%s (n = %d: no CI)", v, c.sum.N)
	}
	return v + " ± " + c.sum.PctRange()
}

// benchstatDelta is the "vs base" cell of a compared metric.
func benchstatDelta(c benchstatCell) string {
	mc := c.mc
	if mc == nil {
		return ""
	}
	n := strconv.Itoa(mc.Baseline.N)
	if mc.Candidate.N != mc.Baseline.N {
		n += "+" + strconv.Itoa(mc.Candidate.N)
	}
	p := "p=" + strconv.FormatFloat(mc.P, 'f', 3, 64)
	switch mc.Verdict {
	case VerdictMissing:
		return "(missing in the baseline)"
	case VerdictTooFewSamples:
		if math.IsNaN(mc.P) {
			return fmt.Sprintf("~ (n=%s: need ≥ %d)", n, mc.NeedSamples)
		}
		return fmt.Sprintf("~ (%s n=%s: need ≥ %d)", p, n, mc.NeedSamples)
	case VerdictNoChange:
		return fmt.Sprintf("~ (%s n=%s)", p, n)
	}
	d := "?"
	if !math.IsNaN(mc.DeltaPct) {
		d = strconv.FormatFloat(mc.DeltaPct, 'f', 2, 64) + "%"
		if mc.DeltaPct >= 0 {
			d = "+" + d
		}
	}
	return fmt.Sprintf("%s (%s n=%s)", d, p, n)
}
