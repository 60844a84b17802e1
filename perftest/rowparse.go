package perftest

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// The column order of the tables as perftest 4.x and later print them;
// Row values are put in these positions (v[i] for column i) before the
// row is built, whatever order the table header gave.
var (
	plainBW     = [...]column{colBytes, colIters, colBWPeak, colBWAvg, colMsgRate, colBWPort1, colRatePort1, colBWPort2, colRatePort2}
	plainLat    = [...]column{colBytes, colIters, colTMin, colTMax, colTTypical, colTAvg, colTStdev, colP99, colP999}
	plainLatDur = [...]column{colBytes, colIters, colTAvg, colTPS}
)

// columnLabels name the columns in warnings.
var columnLabels = [numColumns]string{
	colBWPeak: "BW peak", colBWAvg: "BW average", colMsgRate: "MsgRate",
	colBWPort1: "BW Port1", colRatePort1: "MsgRate Port1", colBWPort2: "BW Port2", colRatePort2: "MsgRate Port2",
	colTMin: "t_min", colTMax: "t_max", colTTypical: "t_typical", colTAvg: "t_avg", colTStdev: "t_stdev",
	colP99: "99% percentile", colP999: "99.9% percentile", colTPS: "tps average", colCPU: "CPU_Util",
}

// setLayout takes the layout of a table header: the plain order the rows
// are built from (target), whether the header has exactly that order (so
// rows need no reordering), and where the CPU column goes.
func (p *textParser) setLayout(l tableLayout) {
	p.layout = l
	switch p.table {
	case tableLat:
		p.target = plainLat[:]
	case tableLatDur:
		p.target = plainLatDur[:]
	default:
		p.target = plainBW[:5]
		if l.has(colBWPort1) {
			p.target = plainBW[:]
		}
	}
	k := len(p.target)
	p.plain = l.n == k || l.n == k+1 && l.at[k] == colCPU
	for i := 0; p.plain && i < k; i++ {
		p.plain = l.at[i] == p.target[i]
	}
}

// row handles a line that starts with a digit. A line that reads as a
// result row (looksLikeRow) but does not fit the table becomes a
// WarnBadRow warning and a *ParseError; a row cut short at the end of the
// input makes the output truncated (ErrTruncated). Other lines that start
// with a digit are unknown lines.
func (p *textParser) row(t []byte) {
	if p.table == tableNone || p.table == tableOther {
		switch {
		case !looksLikeRow(t):
			p.res.warn(WarnUnknownLine, p.line, clip(string(t)))
		case p.table == tableNone:
			p.badRow(t, "a result row before any table header")
		default:
			p.badRow(t, "a row under a table header whose columns this parser does not know")
		}
		return
	}
	var u [2]uint64
	var v [maxFields]float64
	n, good := scanRow(t, &u, &v)
	if !good || !p.fitsCount(n) {
		// The slow path: only lines that are not good rows come here.
		switch {
		case !looksLikeRow(t):
			p.res.warn(WarnUnknownLine, p.line, clip(string(t)))
		case !p.fitsCount(n):
			p.wrongCount(t, n)
		default:
			p.badRow(t, "bad number in a "+p.what()+" row")
		}
		return
	}
	if j, neg := negativeField(n, &v); neg {
		p.badRow(t, fmt.Sprintf("negative %s %v in a %s row: perftest prints none", p.fieldLabel(j, n), v[j], p.what()))
		return
	}
	if !p.plain {
		p.reorder(n, &u, &v)
	}
	// The row stays typed until it is held or handed to onRow: boxing it
	// in a Row for every row was one allocation per row (issue 26).
	if p.table == tableBW {
		r := p.bwRow(t, n, &u, &v)
		if p.cutNumber(t, n) {
			p.hold(r, t)
			return
		}
		p.emitBW(r)
	} else {
		r := p.latRow(t, n, &u, &v)
		if p.cutNumber(t, n) {
			p.hold(r, t)
			return
		}
		p.emitLat(r)
	}
}

// hold keeps a row whose last number may be cut until a line follows: at
// the end of the input the number was cut (see endPending).
func (p *textParser) hold(r Row, t []byte) {
	p.held, p.heldText, p.heldLine = r, append(p.heldText[:0], t...), p.line
	p.pendRaw = append(p.pendRaw[:0], p.raw...)
}

// emit stores a row that parsed and hands it to onRow.
func (p *textParser) emit(r Row) {
	switch r := r.(type) {
	case BWRow:
		p.emitBW(r)
	case LatRow:
		p.emitLat(r)
	}
}

// emitBW is emit for a BW row.
func (p *textParser) emitBW(r BWRow) {
	p.tableRows++
	p.addBW(r)
	if p.section == sectionMain {
		p.delivered++
		if p.onRow != nil {
			p.onRow(r)
		}
	}
}

// emitLat is emit for a latency row.
func (p *textParser) emitLat(r LatRow) {
	p.tableRows++
	if p.keepRows && p.section == sectionMain {
		p.res.Lat = appendRow(p.res.Lat, r, p.rowHint)
	}
	if p.section == sectionMain {
		p.delivered++
		if p.onRow != nil {
			p.onRow(r)
		}
	}
}

// negativeField returns the first value of a row of n fields that is
// negative (and finite: -inf and -nan are kept as non-finite values).
// perftest computes every column from unsigned counters and times, so a
// negative number is as impossible as a garbled one.
func negativeField(n int, v *[maxFields]float64) (int, bool) {
	for j := 2; j < min(n, maxFields); j++ {
		if v[j] < 0 && finite(v[j]) {
			return j, true
		}
	}
	return 0, false
}

// fieldLabel names field j of a row of n fields by the table header.
func (p *textParser) fieldLabel(j, n int) string {
	if c := p.columnAt(j); columnLabels[c] != "" {
		return columnLabels[c]
	}
	return "field " + strconv.Itoa(j+1)
}

// columnAt returns the column of field j as the table header names it
// (a field past the named columns is the CPU column).
func (p *textParser) columnAt(j int) column {
	switch {
	case j < p.layout.n && j < maxFields:
		return p.layout.at[j]
	case j == p.layout.n && !p.layout.has(colCPU):
		return colCPU
	}
	return colUnknown
}

// decimals is how many decimals perftest prints in column c (its
// REPORT_FMT strings): 6 for the message rates and the BW of a Gb/sec
// table, 2 for everything else; -1 when it is not known.
func (p *textParser) decimals(c column) int {
	switch c {
	case colMsgRate, colRatePort1, colRatePort2:
		return 6
	case colBWPeak, colBWAvg, colBWPort1, colBWPort2:
		if p.res.Header.BWUnit == UnitGbps {
			return 6
		}
		return 2
	case colTMin, colTMax, colTTypical, colTAvg, colTStdev, colP99, colP999, colTPS, colCPU:
		return 2
	}
	return -1
}

// cutNumber reports whether the last field of a row has fewer decimals
// than perftest prints in its column ("0." or "2.5525" where it prints
// "2.552571"): such a row, when it ends the input, was cut inside its
// last number, and reading "0." as 0 would be a wrong value.
func (p *textParser) cutNumber(t []byte, n int) bool {
	want := p.decimals(p.columnAt(n - 1))
	if want < 0 {
		return false
	}
	i := len(t)
	for i > 0 && t[i-1] != ' ' && t[i-1] != '\t' {
		i--
	}
	last := t[i:]
	if v, _ := parseFloat(last); !finite(v) {
		return false
	}
	dot := bytes.IndexByte(last, '.')
	if dot < 0 {
		return true
	}
	return len(last)-dot-1 < want
}

// what names the table in messages.
func (p *textParser) what() string {
	if p.table == tableBW {
		return "BW"
	}
	return "latency"
}

// fitsCount checks the number of fields of a row against the table
// header: as many as the header has columns, one fewer when the last
// column is CPU_Util (a row without it), or one more when the header has
// no CPU column (a CPU value appended to the row).
func (p *textParser) fitsCount(n int) bool {
	want := p.layout.n
	cpuLast := want > 0 && want <= maxFields && p.layout.at[want-1] == colCPU
	// A CPU value appended to a row only under a header of known
	// columns: under one with a name this parser does not know (a
	// wrapped "... t_stdev[usec]   99"), the extra value is not CPU.
	return n == want || cpuLast && n == want-1 ||
		!p.layout.has(colCPU) && n == want+1 && want < maxFields && !p.layout.hasAt(colUnknown)
}

// wrongCount reports a row whose number of fields does not fit. A row
// with too few is cut short: if nothing but blank lines follows it, the
// output is truncated (see textParser.cutRow).
func (p *textParser) wrongCount(t []byte, n int) {
	msg := fmt.Sprintf("%s row has %d fields, want %d", p.what(), n, p.layout.n)
	if n < p.layout.n {
		// The warning waits for what follows: the rest of a wrapped row
		// (joinRow), another line (settle) or the end (endPending).
		p.cutRow = newParseError(ErrTruncated, p.line, t, msg+" (cut short)")
		p.heldText, p.heldLine = append(p.heldText[:0], t...), p.line
		p.pendRaw = append(p.pendRaw[:0], p.raw...)
		return
	}
	p.badRow(t, msg)
}

// badRow reports a line that reads as a result row but does not parse:
// a warning with its line number, and the parse error.
func (p *textParser) badRow(t []byte, msg string) {
	p.res.warn(WarnBadRow, p.line, clip(msg+": "+string(t)))
	p.setErr(newParseError(ErrParse, p.line, t, msg))
}

// reorder moves the values of a row of n fields from the positions of the
// table header to those of p.target, the CPU value after them, and sets
// the columns the table does not have to NaN: not printed.
func (p *textParser) reorder(n int, u *[2]uint64, v *[maxFields]float64) {
	got, gotU := *v, *u
	value := func(j int) float64 {
		if j < 2 {
			return float64(gotU[j])
		}
		return got[j]
	}
	for i, c := range p.target {
		j := int(p.layout.idx[c])
		switch {
		case i < 2 && j >= 0 && j < 2:
			u[i] = gotU[j]
		case i < 2:
			u[i] = 0
		case j >= 0 && j < n:
			v[i] = value(j)
		default:
			v[i] = math.NaN()
		}
	}
	cpu := len(p.target)
	switch j := int(p.layout.idx[colCPU]); {
	case j >= 2 && j < n:
		v[cpu] = got[j]
	case j < 0 && n == p.layout.n+1:
		v[cpu] = got[n-1]
	}
}

// hasCPU reports whether a row of n fields has the CPU column.
func (p *textParser) hasCPU(n int) bool {
	if p.layout.has(colCPU) {
		return n == p.layout.n
	}
	return n == p.layout.n+1
}

// printedFinite reports whether every value the row printed is finite
// (values of columns the table does not have are NaN and do not count).
func (p *textParser) printedFinite(n int, v *[maxFields]float64) bool {
	if p.plain {
		return allFinite(v[2:n])
	}
	for i := 2; i < len(p.target); i++ {
		if p.layout.has(p.target[i]) && !finite(v[i]) {
			return false
		}
	}
	return !p.hasCPU(n) || finite(v[len(p.target)])
}

// appendRow appends r. The first row allocates room for hint rows (the
// most the input can hold); after that the capacity doubles when full,
// where append would grow a large slice by a quarter and copy a long -a
// or --run_infinitely table several times over.
func appendRow[T any](s []T, r T, hint int) []T {
	if len(s) == cap(s) {
		n := 2*cap(s) + 8
		if len(s) == 0 && hint > n {
			n = hint
		}
		grown := make([]T, len(s), n)
		copy(grown, s)
		s = grown
	}
	return append(s, r)
}

// bwRow builds a BW row from values in the positions of p.target: size,
// iterations, peak, average, message rate, the per-port columns, and the
// CPU column after them.
func (p *textParser) bwRow(t []byte, n int, u *[2]uint64, v *[maxFields]float64) BWRow {
	r := BWRow{Bytes: u[0], Iterations: u[1], Line: p.line}
	unit := p.res.Header.BWUnit
	r.Printed = PrintedBW{Peak: v[2], Avg: v[3], Unit: unit}
	r.PeakMeasured = v[2] != 0 && !math.IsNaN(v[2])
	if r.PeakMeasured {
		r.BWPeakGbps = unit.ToGbps(v[2])
	}
	r.BWAvgGbps = unit.ToGbps(v[3])
	r.MsgRateMpps = v[4]
	if len(p.target) > 5 {
		r.Ports = []PortBW{
			{BWGbps: unit.ToGbps(v[5]), MsgRateMpps: v[6], BWPrinted: v[5]},
			{BWGbps: unit.ToGbps(v[7]), MsgRateMpps: v[8], BWPrinted: v[7]},
		}
	}
	if p.hasCPU(n) {
		r.CPUUtilPercent, r.HasCPUUtil = v[len(p.target)], true
	}
	if !p.printedFinite(n, v) {
		p.warnNonFinite(r.Bytes, t)
	}
	return r
}

// addBW stores a BW row in its section.
func (p *textParser) addBW(r BWRow) {
	switch p.section {
	case sectionLocal:
		p.res.ReportBoth.Local = append(p.res.ReportBoth.Local, r)
		return
	case sectionRemote:
		p.res.ReportBoth.Remote = append(p.res.ReportBoth.Remote, r)
		return
	}
	if !r.PeakMeasured && !p.peakWarned && p.layout.has(colBWPeak) {
		p.peakWarned = true
		if !p.res.HasWarning(WarnPeakNotMeasured) {
			p.res.warn(WarnPeakNotMeasured, r.Line, "BW peak printed as 0.00: perftest did not measure it "+
				"(-D, --run_infinitely, -N, -n > 20000 or the server of a send test); it is not zero")
		}
	}
	if p.keepRows {
		p.res.BW = appendRow(p.res.BW, r, p.rowHint)
	}
}

// latRow builds a latency row, or a -D latency row, from values in the
// positions of p.target (plainLat or plainLatDur).
func (p *textParser) latRow(t []byte, n int, u *[2]uint64, v *[maxFields]float64) LatRow {
	r := LatRow{Bytes: u[0], Iterations: u[1], Line: p.line}
	if p.table == tableLatDur {
		r.Duration, r.TAvgMicros, r.TPS = true, v[2], v[3]
	} else {
		r.TMinMicros, r.TMaxMicros, r.TTypicalMicros = v[2], v[3], v[4]
		r.TAvgMicros, r.TStdevMicros, r.P99Micros, r.P999Micros = v[5], v[6], v[7], v[8]
	}
	if p.hasCPU(n) {
		r.CPUUtilPercent, r.HasCPUUtil = v[len(p.target)], true
	}
	if !p.printedFinite(n, v) {
		p.warnNonFinite(r.Bytes, t)
	} else if !r.Duration && !p.percentileWarned && r.P999Micros == r.TMaxMicros {
		p.percentileWarned = true
		which := "the 99.9% percentile equals"
		if r.P99Micros == r.TMaxMicros {
			which = "the 99% and 99.9% percentiles equal"
		}
		p.res.warn(WarnCoarsePercentile, r.Line, fmt.Sprintf("%s t_max at %d iterations: too few samples for them "+
			"(perftest drops the 2 largest samples; t_max is the 3rd largest)", which, r.Iterations))
	}
	return r
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if !finite(x) {
			return false
		}
	}
	return true
}

// warnNonFinite warns about the inf and nan fields of a row, named by the
// table header (a field past the named columns is the CPU column).
func (p *textParser) warnNonFinite(size uint64, row []byte) {
	var f [maxFields][]byte
	n := min(splitFields(row, &f), maxFields)
	b := strconv.AppendUint(p.scratch[:0], size, 10)
	b = append(b, " bytes: "...)
	first := true
	for i, field := range f[2:n] {
		if v, _ := parseFloat(field); finite(v) {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		name := "CPU_Util"
		if j := i + 2; j < p.layout.n && j < maxFields && columnLabels[p.layout.at[j]] != "" {
			name = columnLabels[p.layout.at[j]]
		}
		b = append(append(append(b, name...), ' '), field...)
	}
	b = append(b, " (kept as printed)"...)
	p.scratch = b
	p.res.warn(WarnNonFinite, p.line, p.intern(b))
}

// intern returns b as a string, the same string for the same text: the
// rows of an -a latency output repeat their inf and -nan columns, so
// most of their warnings are the same text (at most 256 are kept).
func (p *textParser) intern(b []byte) string {
	if s, ok := p.texts[string(b)]; ok {
		return s
	}
	s := string(b)
	if p.texts == nil {
		p.texts = make(map[string]string)
	}
	if len(p.texts) < 256 {
		p.texts[s] = s
	}
	return s
}
