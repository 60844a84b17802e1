package perftest

import (
	"fmt"
	"strconv"
)

// Column names, for messages.
var (
	bwColumns     = []string{"BW peak", "BW average", "MsgRate"}
	bwPortColumns = []string{"BW peak", "BW average", "MsgRate", "BW Port1", "MsgRate Port1", "BW Port2", "MsgRate Port2"}
	latColumns    = []string{"t_min", "t_max", "t_typical", "t_avg", "t_stdev", "99% percentile", "99.9% percentile"}
	latDurColumns = []string{"t_avg", "tps average"}
)

// row handles a line that starts with a digit.
func (p *textParser) row(t []byte) {
	if p.table == tableNone {
		p.setErr(newParseError(ErrParse, p.line, t, "a result row before any table header"))
		return
	}
	var u [2]uint64
	var v [maxFields]float64
	n, good := scanRow(t, &u, &v)
	switch p.table {
	case tableBW:
		r, ok := p.bwRow(t, n, good, &u, &v)
		if !ok {
			return
		}
		p.tableRows++
		p.addBW(r)
		if p.onRow != nil && p.section == sectionMain {
			p.onRow(r)
		}
	default:
		r, ok := p.latRow(t, n, good, &u, &v)
		if !ok {
			return
		}
		p.tableRows++
		if p.keepRows && p.section == sectionMain {
			p.res.Lat = appendRow(p.res.Lat, r, p.rowHint)
		}
		if p.onRow != nil && p.section == sectionMain {
			p.onRow(r)
		}
	}
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

// bwRow parses a BW row: size, iterations, peak, average, message rate,
// then the per-port columns and the CPU column when the table has them.
func (p *textParser) bwRow(t []byte, n int, good bool, u *[2]uint64, v *[maxFields]float64) (BWRow, bool) {
	base := 5
	if p.tablePorts {
		base = 9
	}
	if n != base && n != base+1 {
		p.setErr(newParseError(ErrParse, p.line, t, fmt.Sprintf("BW row has %d fields, want %d", n, base)))
		return BWRow{}, false
	}
	if !good {
		p.setErr(newParseError(ErrParse, p.line, t, "bad number in a BW row"))
		return BWRow{}, false
	}
	r := BWRow{Bytes: u[0], Iterations: u[1], Line: p.line}
	unit := p.res.Header.BWUnit
	r.Printed = PrintedBW{Peak: v[2], Avg: v[3], Unit: unit}
	r.PeakMeasured = v[2] != 0
	if r.PeakMeasured {
		r.BWPeakGbps = unit.ToGbps(v[2])
	}
	r.BWAvgGbps = unit.ToGbps(v[3])
	r.MsgRateMpps = v[4]
	if p.tablePorts {
		r.Ports = []PortBW{
			{BWGbps: unit.ToGbps(v[5]), MsgRateMpps: v[6], BWPrinted: v[5]},
			{BWGbps: unit.ToGbps(v[7]), MsgRateMpps: v[8], BWPrinted: v[7]},
		}
	}
	if n == base+1 {
		r.CPUUtilPercent, r.HasCPUUtil = v[base], true
	}
	if !allFinite(v[2:n]) {
		names := bwColumns
		if p.tablePorts {
			names = bwPortColumns
		}
		p.warnNonFinite(r.Bytes, names, t)
	}
	return r, true
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
	if !r.PeakMeasured && !p.peakWarned {
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

// latRow parses a latency row, or a -D latency row.
func (p *textParser) latRow(t []byte, n int, good bool, u *[2]uint64, v *[maxFields]float64) (LatRow, bool) {
	base, names := 9, latColumns
	if p.table == tableLatDur {
		base, names = 4, latDurColumns
	}
	if n != base && n != base+1 {
		p.setErr(newParseError(ErrParse, p.line, t, fmt.Sprintf("latency row has %d fields, want %d", n, base)))
		return LatRow{}, false
	}
	if !good {
		p.setErr(newParseError(ErrParse, p.line, t, "bad number in a latency row"))
		return LatRow{}, false
	}
	r := LatRow{Bytes: u[0], Iterations: u[1], Line: p.line}
	if p.table == tableLatDur {
		r.Duration, r.TAvgMicros, r.TPS = true, v[2], v[3]
	} else {
		r.TMinMicros, r.TMaxMicros, r.TTypicalMicros = v[2], v[3], v[4]
		r.TAvgMicros, r.TStdevMicros, r.P99Micros, r.P999Micros = v[5], v[6], v[7], v[8]
	}
	if n == base+1 {
		r.CPUUtilPercent, r.HasCPUUtil = v[base], true
	}
	if !allFinite(v[2:n]) {
		p.warnNonFinite(r.Bytes, names, t)
	} else if !r.Duration && !p.percentileWarned && r.P999Micros == r.TMaxMicros {
		p.percentileWarned = true
		which := "the 99.9% percentile equals"
		if r.P99Micros == r.TMaxMicros {
			which = "the 99% and 99.9% percentiles equal"
		}
		p.res.warn(WarnCoarsePercentile, r.Line, fmt.Sprintf("%s t_max at %d iterations: too few samples for them "+
			"(perftest drops the 2 largest samples; t_max is the 3rd largest)", which, r.Iterations))
	}
	return r, true
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if !finite(x) {
			return false
		}
	}
	return true
}

// warnNonFinite warns about the inf and nan fields of a row; names[i]
// names field i+2, and a field past them is the CPU column.
func (p *textParser) warnNonFinite(size uint64, names []string, row []byte) {
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
		if i < len(names) {
			name = names[i]
		}
		b = append(append(append(b, name...), ' '), field...)
	}
	b = append(b, " (kept as printed)"...)
	p.scratch = b
	p.res.warn(WarnNonFinite, p.line, string(b))
}
