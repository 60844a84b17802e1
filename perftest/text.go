package perftest

import (
	"bytes"
	"fmt"
	"strings"
)

// tableKind is the kind of the table header last seen.
type tableKind int

const (
	tableNone tableKind = iota
	tableBW
	tableLat
	tableLatDur
	tableOther // a "#bytes" header whose columns name no known table
)

// sections of --report-both.
const (
	sectionMain = iota
	sectionLocal
	sectionRemote
)

// minRowLen bounds the length of a result row from below: the shortest
// row format, REPORT_FMT_LAT_DUR, prints at least 40 characters.
const minRowLen = 40

// textParser is the line machine behind Parse and Stream.
type textParser struct {
	collector
	keepRows bool      // append rows to the Result (Parse) or not (Stream)
	rowHint  int       // how many rows the input can hold at most, or 0
	onRow    func(Row) // called for every row of the main section, if set

	line      int
	table     tableKind
	layout    tableLayout // the columns of the table header
	target    []column    // the column order rows are built in
	plain     bool        // the header has the columns in target order
	cutRow    *ParseError // a row with too few fields, the last row-like line so far
	tableLine int
	tableText string
	tableRows int
	section   int

	sawTitle, sawHeader, sawAddr bool
	sawDashes                    bool
	lastAddr                     *Address
	addrKey                      string   // the key whose value a wrapped address line left for the next line
	addrFor                      *Address // the address addrKey belongs to

	inDump    bool
	dumpStart int
	dumpCount int

	peakWarned, percentileWarned bool

	scratch []byte // reused to build warning texts
}

func newTextParser(keepRows bool) *textParser {
	return &textParser{
		collector: collector{res: &Result{Header: newHeader()}},
		keepRows:  keepRows,
	}
}

// feedAll feeds every line of data. It first bounds the number of rows,
// so that the row slices are allocated once: there are no more rows than
// lines, and no row is shorter than minRowLen.
func (p *textParser) feedAll(data []byte) {
	p.rowHint = min(bytes.Count(data, []byte{'\n'})+1, len(data)/minRowLen+1)
	for len(data) > 0 {
		var line []byte
		line, data = nextLine(data)
		p.feed(line)
	}
}

// feed handles one line.
func (p *textParser) feed(raw []byte) {
	p.line++
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return
	}
	if isDumpSample(t) {
		p.sample()
		return
	}
	p.endDump()
	if p.cutRow != nil {
		// Something follows the short row: it was garbled, not cut off by
		// the end of the output.
		p.cutRow.Err = ErrParse
		p.setErr(p.cutRow)
		p.cutRow = nil
	}
	if p.addrKey != "" && p.addrValue(t) {
		return
	}
	if c := t[0]; c >= '0' && c <= '9' {
		p.row(t)
		return
	}
	if isTableHeader(t) {
		p.tableHeader(t)
		return
	}
	switch t[0] {
	case '-':
		if isDashes(t) {
			p.sawDashes = true
			return
		}
	case '*':
		if bytes.Contains(t, []byte("Waiting for client to connect")) {
			p.res.Server = true
		}
		if len(bytes.Trim(t, "* ")) == 0 || bytes.Contains(t, []byte("Waiting for client")) {
			return
		}
	}
	s := string(t)
	cl, ok := p.noise(p.line, raw, s)
	if ok {
		p.marker(cl, s)
		return
	}
	if p.addressLine(s) {
		return
	}
	if !p.sawTitle && !p.sawAddr && p.table == tableNone && !strings.Contains(s, ":") {
		if kind, ok := p.res.Header.setTitle(s); ok {
			p.sawTitle = true
			p.res.Test = strings.Join(strings.Fields(s), " ")
			p.setKind(kind)
			return
		}
	}
	if (p.sawTitle || p.sawDashes) && !p.sawAddr && p.table == tableNone && strings.Contains(s, ":") && p.res.Header.addPairs(s) {
		p.sawHeader = true
		return
	}
	p.res.warn(WarnUnknownLine, p.line, clip(s))
}

// clip cuts the text of an unknown line for its warning.
func clip(s string) string {
	if len(s) > maxWarningText {
		return s[:maxWarningText] + "..."
	}
	return s
}

// marker handles the lines that change the parser's state.
func (p *textParser) marker(cl lineClass, s string) {
	switch cl {
	case classServer:
		p.res.Server = true
	case classDumpStart:
		p.inDump, p.dumpStart, p.dumpCount = true, p.line, 0
	case classLocalResults, classRemoteResults:
		if p.res.ReportBoth == nil {
			p.res.ReportBoth = &ReportBoth{}
			p.res.warn(WarnReportBoth, p.line, "--report-both: local and remote rows are in ReportBoth, the sum in BW")
		}
		p.section = sectionLocal
		if cl == classRemoteResults {
			p.section = sectionRemote
		}
	case classEvents:
		ev := strings.TrimSpace(strings.TrimPrefix(s, "Test with events."))
		p.res.Header.Events = strings.TrimSpace(strings.TrimPrefix(ev, "Using"))
		p.sawHeader = true
	case classMulticast:
		p.res.Header.Multicast = true
		p.sawHeader = true
	}
}

func (p *textParser) setKind(k ResultKind) {
	if p.res.Kind == ResultUnknown || k == ResultLatDuration {
		p.res.Kind = k
	}
	h := &p.res.Header
	p.res.FullRTT = p.res.Kind != ResultBW && (h.Verb == "RDMA_Read" || h.Verb == "Atomic")
}

func (p *textParser) sample() {
	if !p.inDump {
		p.inDump, p.dumpStart, p.dumpCount = true, p.line, 0
	}
	p.dumpCount++
}

func (p *textParser) endDump() {
	if !p.inDump {
		return
	}
	p.inDump = false
	p.res.warn(WarnSamplesSkipped, p.dumpStart,
		fmt.Sprintf("skipped a -U/-H dump of %d latency samples (lines %d-%d)", p.dumpCount, p.dumpStart, p.line-1))
}

// tableHeader handles a " #bytes ..." line: the table's kind, unit and
// column layout come from its column names.
func (p *textParser) tableHeader(t []byte) {
	s := string(t)
	l := parseLayout(s)
	k := l.kind()
	if k == tableOther {
		p.res.warn(WarnUnknownLine, p.line, clip(s))
	}
	p.table, p.tableLine, p.tableText, p.tableRows = k, p.line, s, 0
	p.setLayout(l)
	switch k {
	case tableBW:
		label := unitLabel(s)
		p.res.Header.BWUnitLabel = label
		p.res.Header.BWUnit = parseBWUnit(label)
		p.setKind(ResultBW)
	case tableLat:
		p.setKind(ResultLat)
	case tableLatDur:
		p.setKind(ResultLatDuration)
	}
}

// addrValue takes the value a wrapped address line left for the next
// line ("... RKey 0x002d00 VAddr" then " 0x002aaaaaae1000", as a page
// that wraps at 80 columns shows it). It reports false, and forgets the
// key, when the line is not a lone hex number.
func (p *textParser) addrValue(t []byte) bool {
	key, a := p.addrKey, p.addrFor
	p.addrKey, p.addrFor = "", nil
	if len(t) < 3 || t[0] != '0' || t[1] != 'x' || bytes.ContainsAny(t, " \t") {
		return false
	}
	v, ok := parseHex(t)
	if !ok || !a.set(key, v) {
		return false
	}
	return true
}

// addressLine handles "local address: ...", "remote address: ...",
// "GID: ..." and "MGID: ...". It reports false for other lines.
func (p *textParser) addressLine(s string) bool {
	h := &p.res.Header
	for _, side := range [...]string{"local address:", "remote address:"} {
		rest, ok := strings.CutPrefix(s, side)
		if !ok {
			continue
		}
		p.sawAddr = true
		a, key, ok := parseAddress([]byte(rest))
		if !ok {
			p.setErr(newParseError(ErrParse, p.line, []byte(s), "bad address line"))
			p.lastAddr = nil
			return true
		}
		list := &h.Local
		if side == "remote address:" {
			list = &h.Remote
		}
		*list = append(*list, a)
		p.lastAddr = &(*list)[len(*list)-1]
		if key != "" {
			p.addrKey, p.addrFor = key, p.lastAddr
		}
		return true
	}
	for _, prefix := range [...]string{"GID:", "MGID:"} {
		rest, ok := strings.CutPrefix(s, prefix)
		if !ok {
			continue
		}
		gid, ok := parseGID([]byte(rest))
		if !ok || p.lastAddr == nil {
			p.setErr(newParseError(ErrParse, p.line, []byte(s), "bad GID line"))
			return true
		}
		p.lastAddr.GID, p.lastAddr.MGID = gid, prefix == "MGID:"
		p.lastAddr = nil
		return true
	}
	return false
}

// finish checks the end of the input and returns the error of Parse.
func (p *textParser) finish() error {
	p.endDump()
	if p.cutRow != nil {
		p.setErr(p.cutRow)
		p.cutRow = nil
	}
	recognized := p.sawTitle || p.sawHeader || p.sawAddr || p.table != tableNone
	var trunc error
	switch {
	case p.table == tableOther:
		trunc = newParseError(ErrParse, p.tableLine, []byte(p.tableText), "a table header whose columns this parser does not know")
	case p.table != tableNone && p.tableRows == 0:
		trunc = newParseError(ErrTruncated, p.tableLine, []byte(p.tableText), "table header with no rows under it")
	case recognized && p.table == tableNone:
		h := &p.res.Header
		if p.res.Server && p.res.Kind == ResultLat && (h.Verb == "RDMA_Read" || h.Verb == "Atomic") {
			p.res.warn(WarnNoTable, 0, "no result table: the server of ib_read_lat and ib_atomic_lat prints none; parse the client")
		} else {
			trunc = fmt.Errorf("%w: a header and no result table (%d lines)", ErrTruncated, p.line)
		}
	}
	err := p.firstErr
	if err == nil {
		err = trunc
	}
	if err == nil && !recognized {
		err = fmt.Errorf("%w: no title, header or table in %d lines", ErrUnrecognized, p.line)
	}
	return p.result(err)
}
