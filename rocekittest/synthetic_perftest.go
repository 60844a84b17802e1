package rocekittest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/perftest"
)

// ErrNoTable means the template case printed no result table that a synthetic
// case could fill (a failure, a version query, a --output run).
var ErrNoTable = errors.New("rocekittest: template has no result table")

// SyntheticBW builds a perftest case that no lab run produced: the
// template's real output (its header, addresses, banners and exit codes)
// with the BW table rows replaced by rows. Each row gives Bytes,
// Iterations, BWAvgGbps, BWPeakGbps (printed as 0.00 when PeakMeasured is
// false), MsgRateMpps and, where the template has the column,
// CPUUtilPercent; the values are printed in the template's unit (MiB/sec,
// MB/sec or Gb/sec). A server side whose template printed one row (write
// and read servers print the client's last size) gets the last row; a
// server whose template peak was 0.00 (the send server) prints 0.00.
//
// Use it where no capture has the numbers a test needs: a pair at 9.5 of
// 100 Gb/s, a sweep whose bandwidth falls at 4 KiB.
//
// Similar to: editing the table of a saved ib_send_bw output by hand.
func SyntheticBW(template *Case, rows []perftest.BWRow) (*Case, error) {
	for i, r := range rows {
		if bad(r.BWAvgGbps, r.BWPeakGbps, r.MsgRateMpps, r.CPUUtilPercent) {
			return nil, fmt.Errorf("rocekittest: BW row %d: a value is negative, NaN or infinite", i)
		}
	}
	return synthesize(template, len(rows), perftest.ResultBW, func(side table, i int) ([]string, error) {
		r := rows[i]
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
		peak := r.BWPeakGbps
		if !r.PeakMeasured || side.peakUnmeasured {
			peak = 0
		}
		cells := []string{u(r.Bytes), u(r.Iterations), f(peak / side.unit.ToGbps(1)),
			f(r.BWAvgGbps / side.unit.ToGbps(1)), strconv.FormatFloat(r.MsgRateMpps, 'f', 6, 64)}
		switch side.columns {
		case 4: // perftest 1.x/2.0: no MsgRate
			return cells[:4], nil
		case 5:
			return cells, nil
		case 6:
			return append(cells, f(r.CPUUtilPercent)), nil
		}
		return nil, fmt.Errorf("%w: a BW table of %d columns", ErrNoTable, side.columns)
	})
}

// SyntheticLat builds a latency case from the template's real output with
// its table rows replaced by rows, as SyntheticBW does for bandwidth. The
// columns follow the template: the nine of perftest ≥ 4 (t_min, t_max,
// t_typical, t_avg, t_stdev, 99%, 99.9%), the five of 2.x/3.x, or the
// t_avg and tps of a -D run.
//
// Similar to: editing the table of a saved ib_send_lat output by hand.
func SyntheticLat(template *Case, rows []perftest.LatRow) (*Case, error) {
	for i, r := range rows {
		if bad(r.TMinMicros, r.TMaxMicros, r.TTypicalMicros, r.TAvgMicros, r.TStdevMicros, r.P99Micros,
			r.P999Micros, r.TPS, r.CPUUtilPercent) {
			return nil, fmt.Errorf("rocekittest: latency row %d: a value is negative, NaN or infinite", i)
		}
	}
	return synthesize(template, len(rows), perftest.ResultLat, func(side table, i int) ([]string, error) {
		r := rows[i]
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
		switch side.columns {
		case 4: // -D: t_avg and the transaction rate
			return []string{u(r.Bytes), u(r.Iterations), f(r.TAvgMicros), f(r.TPS)}, nil
		case 5, 9:
			cells := []string{u(r.Bytes), u(r.Iterations), f(r.TMinMicros), f(r.TMaxMicros), f(r.TTypicalMicros),
				f(r.TAvgMicros), f(r.TStdevMicros), f(r.P99Micros), f(r.P999Micros)}
			return cells[:side.columns], nil
		}
		return nil, fmt.Errorf("%w: a latency table of %d columns", ErrNoTable, side.columns)
	})
}

// table is what a side's template table tells the row formatter.
type table struct {
	columns        int // cells in the template's first row
	unit           perftest.BWUnit
	peakUnmeasured bool // every template row printed BW peak 0.00
	oneRow         bool // the side prints only the last size
}

// synthesize copies template and replaces the rows of every side that
// printed a table of kind with n rows formatted by row.
func synthesize(template *Case, n int, kind perftest.ResultKind, row func(table, int) ([]string, error)) (*Case, error) {
	if template == nil || template.Tool != "perftest" {
		return nil, fmt.Errorf("%w: not a perftest case", ErrWrongTool)
	}
	if n == 0 {
		return nil, errors.New("rocekittest: no rows")
	}
	c := *template
	c.Sides = append([]Side(nil), template.Sides...)
	filled := false
	for i := range c.Sides {
		s := &c.Sides[i]
		res, err := perftest.Parse(bytes.NewReader(s.Stdout))
		if res == nil || !sameKind(res.Kind, kind) || (len(res.BW) == 0 && len(res.Lat) == 0) {
			if s.Role == "client" {
				return nil, fmt.Errorf("%w: %s client (%v)", ErrNoTable, template.ID, err)
			}
			continue
		}
		t := tableOf(res, s.Role)
		out, err := replaceRows(s.Stdout, t, n, row)
		if err != nil {
			return nil, fmt.Errorf("rocekittest: %s %s: %w", template.ID, s.Role, err)
		}
		if want := n - t.first(n); rowsIn(out) != want {
			return nil, fmt.Errorf("%w: %s %s: the filled table does not parse back to %d rows", ErrNoTable, template.ID, s.Role, want)
		}
		s.Stdout, filled = out, true
	}
	if !filled {
		return nil, fmt.Errorf("%w: %s", ErrNoTable, template.ID)
	}
	c.ID = "synthetic/perftest/" + template.Name
	c.Suite, c.Synthetic, c.Source = "synthetic", true, template.ID
	c.Note = "synthetic rows in the real output of " + template.ID
	c.Files = nil // a --out_json file would contradict the new rows
	return &c, nil
}

// sameKind: a -D latency table takes latency rows too.
func sameKind(got, want perftest.ResultKind) bool {
	return got == want || got == perftest.ResultLatDuration && want == perftest.ResultLat
}

// first is the index of the first of n rows the side prints.
func (t table) first(n int) int {
	if t.oneRow {
		return n - 1
	}
	return 0
}

// rowsIn counts the result rows perftest.Parse finds in out.
func rowsIn(out []byte) int {
	res, _ := perftest.Parse(bytes.NewReader(out))
	if res == nil {
		return 0
	}
	return len(res.BW) + len(res.Lat)
}

func tableOf(res *perftest.Result, role string) table {
	// Servers of write, read and atomic BW print the client's last size.
	last := role == "server" && len(res.BW) > 0 && !strings.HasPrefix(res.Test, "Send")
	t := table{oneRow: last, peakUnmeasured: len(res.BW) > 0}
	for _, r := range res.BW {
		t.unit = r.Printed.Unit
		t.peakUnmeasured = t.peakUnmeasured && !r.PeakMeasured
	}
	return t
}

// replaceRows swaps the data rows under the "#bytes" header of out for n
// new ones, aligned to the header's columns; everything else is kept.
func replaceRows(out []byte, t table, n int, row func(table, int) ([]string, error)) ([]byte, error) {
	lines := strings.SplitAfter(string(out), "\n")
	head := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "#bytes") {
			head = i
			break
		}
	}
	if head < 0 {
		return nil, ErrNoTable
	}
	end := head + 1
	for end < len(lines) && isDataRow(lines[end]) {
		end++
	}
	if end == head+1 {
		return nil, ErrNoTable
	}
	t.columns = len(strings.Fields(lines[head+1]))
	if t.unit == perftest.UnitUnknown && strings.Contains(lines[head], "BW") {
		return nil, fmt.Errorf("%w: BW unit of %q", ErrNoTable, strings.TrimSpace(lines[head]))
	}
	first := t.first(n)
	starts := columnStarts(lines[head])
	var b strings.Builder
	for _, l := range lines[:head+1] {
		b.WriteString(l)
	}
	for i := first; i < n; i++ {
		cells, err := row(t, i)
		if err != nil {
			return nil, err
		}
		b.WriteString(aligned(cells, starts) + "\n")
	}
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	return []byte(b.String()), nil
}

// isDataRow: a table row starts with a size (digits).
func isDataRow(l string) bool {
	f := strings.Fields(l)
	if len(f) < 2 {
		return false
	}
	_, err := strconv.ParseUint(f[0], 10, 64)
	return err == nil
}

// columnStarts returns where each header label starts: after two blanks,
// or at a '#' ("#bytes #iterations"), so "BW peak[MiB/sec]" is one label.
func columnStarts(header string) []int {
	header = strings.ReplaceAll(header, "\t", "    ")
	var starts []int
	for i := 1; i < len(header); i++ {
		c := header[i]
		if c != ' ' && c != '\n' && header[i-1] == ' ' && (c == '#' || i >= 2 && header[i-2] == ' ') {
			starts = append(starts, i)
		}
	}
	return starts
}

// aligned puts each cell at its column's start, always at least two
// blanks after the previous cell.
func aligned(cells []string, starts []int) string {
	var b strings.Builder
	b.WriteByte(' ')
	for i, c := range cells {
		if i < len(starts) {
			for b.Len() < starts[i] {
				b.WriteByte(' ')
			}
		}
		if i > 0 && !strings.HasSuffix(b.String(), "  ") {
			b.WriteString("  ")
		}
		b.WriteString(c)
	}
	return b.String()
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

func bad(vs ...float64) bool {
	for _, v := range vs {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return true
		}
	}
	return false
}
