package perftest

import (
	"bytes"
	"strings"
)

// column is one column of a result table, named by its table header.
type column uint8

const (
	colUnknown column = iota
	colBytes
	colIters
	colBWPeak
	colBWAvg
	colMsgRate
	colBWPort1
	colRatePort1
	colBWPort2
	colRatePort2
	colTMin
	colTMax
	colTTypical
	colTAvg
	colTStdev
	colP99
	colP999
	colTPS
	colCPU
	numColumns
)

// columnNames are the column names of every table header perftest has
// printed, longest first where one is the start of another ("MsgRate
// Port1" before "MsgRate"). A unit in brackets may follow a name.
var columnNames = [...]struct {
	name string
	col  column
}{
	{"#bytes", colBytes}, {"bytes", colBytes},
	{"#iterations", colIters}, {"iterations", colIters},
	{"BW peak", colBWPeak}, {"BW average", colBWAvg},
	{"MsgRate Port1", colRatePort1}, {"MsgRate Port2", colRatePort2}, {"MsgRate", colMsgRate},
	{"BW Port1", colBWPort1}, {"BW Port2", colBWPort2},
	{"t_min", colTMin}, {"t_max", colTMax}, {"t_typical", colTTypical},
	{"t_avg", colTAvg}, {"t_stdev", colTStdev},
	{"99.9% percentile", colP999}, {"99% percentile", colP99},
	{"tps average", colTPS}, {"CPU_Util", colCPU},
}

// tableLayout is what a table header says: which column is where. Rows
// are read through it, so that every layout perftest printed gives rows:
// the 5-column latency table of 2.x/3.x (no t_avg, t_stdev or
// percentiles), the BW table of 1.x/2.0 without MsgRate, the 9-column
// tables of 4.x and later, -D, --cpu_util and --report-per-port.
type tableLayout struct {
	n   int               // number of columns
	idx [numColumns]int8  // position of each column, -1 when absent
	at  [maxFields]column // the column at each position
}

// has reports whether the table has column c.
func (l *tableLayout) has(c column) bool { return l.idx[c] >= 0 }

// parseLayout reads the column names of a table header line (trimmed).
// Names it does not know count as one column each (up to the next blank)
// so that the positions of the known ones stay right.
func parseLayout(s string) tableLayout {
	var l tableLayout
	for i := range l.idx {
		l.idx[i] = -1
	}
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			break
		}
		c, end := matchColumn(s, i)
		if l.n < maxFields {
			l.at[l.n] = c
			if c != colUnknown && l.idx[c] < 0 {
				l.idx[c] = int8(l.n)
			}
		}
		l.n++
		i = end
	}
	return l
}

// matchColumn matches the column name at s[i:] and returns the column and
// the index after the name and its bracketed unit.
func matchColumn(s string, i int) (column, int) {
	rest := s[i:]
	for _, cn := range columnNames {
		if !strings.HasPrefix(rest, cn.name) {
			continue
		}
		end := i + len(cn.name)
		if end < len(s) && s[end] != ' ' && s[end] != '\t' && s[end] != '[' {
			continue
		}
		if end < len(s) && s[end] == '[' {
			if j := strings.IndexByte(s[end:], ']'); j >= 0 {
				end += j + 1
			}
		}
		return cn.col, end
	}
	end := i
	for end < len(s) && s[end] != ' ' && s[end] != '\t' {
		end++
	}
	return colUnknown, end
}

// kind tells which table the layout is: BW when it has a BW column,
// latency when it has t_min or t_typical, -D latency when it has t_avg or
// tps average only, tableOther when the header names none of them.
func (l *tableLayout) kind() tableKind {
	switch {
	case !l.has(colBytes):
		return tableOther
	case l.has(colBWAvg) || l.has(colBWPeak):
		return tableBW
	case l.has(colTMin) || l.has(colTTypical):
		return tableLat
	case l.has(colTAvg) || l.has(colTPS):
		return tableLatDur
	}
	return tableOther
}

// isTableHeader reports whether a trimmed line is the header of a result
// table: "#bytes ...", or "bytes iterations ..." as a web page that ate
// the '#' shows it.
func isTableHeader(t []byte) bool {
	if bytes.HasPrefix(t, []byte("#bytes")) {
		return true
	}
	rest, ok := bytes.CutPrefix(t, []byte("bytes"))
	if !ok || len(rest) == 0 || rest[0] != ' ' && rest[0] != '\t' {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t")
	return bytes.HasPrefix(rest, []byte("#iterations")) || bytes.HasPrefix(rest, []byte("iterations"))
}

// unitLabel returns the unit of the first BW column of a header:
// "MB/sec" from "BW peak[MB/sec]", or "".
func unitLabel(s string) string {
	i := strings.Index(s, "BW ")
	if i < 0 {
		return ""
	}
	label := s[i:]
	j := strings.IndexByte(label, '[')
	if j < 0 {
		return ""
	}
	label = label[j+1:]
	if k := strings.IndexByte(label, ']'); k >= 0 {
		label = label[:k]
	}
	return label
}

// looksLikeRow reports whether a trimmed line that starts with a digit
// reads as a result row: its first field an unsigned integer and at least
// one more field a number. Such a line that does not parse is reported,
// never dropped; other lines that start with a digit (a kernel message
// "489.244399] BUG: ...", a wrapped "0x002aaaaaae1000") are not rows.
func looksLikeRow(t []byte) bool {
	var f [maxFields][]byte
	n := min(splitFields(t, &f), maxFields)
	if n < 2 {
		return false
	}
	for _, c := range f[0] {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, x := range f[1:n] {
		if _, ok := parseFloat(x); ok {
			return true
		}
	}
	return false
}
