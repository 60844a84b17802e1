package perftest

import (
	"bytes"
	"fmt"
	"net/netip"
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
	keepRows bool              // append rows to the Result (Parse) or not (Stream)
	rowHint  int               // how many rows the input can hold at most, or 0
	texts    map[string]string // warning texts already made (intern)
	onRow    func(Row)         // called for every row of the main section, if set

	line      int
	table     tableKind
	layout    tableLayout // the columns of the table header
	target    []column    // the column order rows are built in
	plain     bool        // the header has the columns in target order
	cutRow    *ParseError // a row with too few fields, the last row-like line so far
	held      Row         // a row whose last number may be cut, kept until a line follows it
	heldText  []byte      // the held or cut row as printed, trimmed
	heldLine  int
	pendRaw   []byte // the cut or held row untrimmed, to join with a wrapped rest
	hdrRaw    []byte // the table header just read, untrimmed, to join with a wrapped rest
	closed    bool   // the main table ended (dashes after its rows)
	after     int    // the first line after the closed table, or 0
	afterText []byte
	done      bool   // a second test started: the rest is not this result's
	raw       []byte // the line being fed, untrimmed
	sepLast   int    // this line, if it is dashes or stars, else 0
	sepBefore int    // the line before this one, if it was dashes or stars, else 0
	dashLine  int    // the last line of dashes
	delivered int    // rows of the main section (Stream keeps none in the Result)
	tableLine int
	tableText string
	tableRows int
	section   int

	sawTitle, sawHeader, sawAddr bool
	sawDashes                    bool
	awaitGID                     []addrRef // addresses whose GID line has not come yet, oldest first
	gidSeen                      netip.Addr
	gidsDiffer                   bool     // two interleaved addresses took different GIDs
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
	for line := range lines(data) {
		p.feed(line)
	}
}

// feed handles one line.
func (p *textParser) feed(raw []byte) {
	p.line++
	p.raw = raw
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return
	}
	if p.done {
		return
	}
	if isDashes(t) || len(bytes.Trim(t, "* ")) == 0 {
		p.sepBefore, p.sepLast = 0, p.line
		if isDashes(t) {
			p.dashLine = p.line
		}
	} else {
		if len(bytes.Trim(t, "-")) == 0 && p.dashLine == p.line-1 {
			// The rest of a line of dashes that a terminal narrower
			// than perftest's 87 columns wrapped.
			p.dashLine = p.line
			return
		}
		p.sepBefore, p.sepLast = p.sepLast, 0
	}
	if isDumpSample(t) {
		p.sample()
		return
	}
	if p.hdrRaw != nil && p.joinHeader(raw) {
		return
	}
	p.hdrRaw = nil
	if (p.cutRow != nil || p.held != nil) && p.joinRow(raw) {
		return
	}
	p.settle()
	p.endDump()
	if p.addrKey != "" && p.addrValue(t) {
		return
	}
	if p.closed && p.after == 0 && !isDashes(t) {
		p.after, p.afterText = p.line, append(p.afterText[:0], t...)
	}
	if c := t[0]; c >= '0' && c <= '9' {
		if p.closed && p.section == sectionMain && looksLikeRow(t) {
			p.concat(p.after, p.afterText, "a row after the end of the table: another output follows")
			return
		}
		p.row(t)
		return
	}
	if isTableHeader(t) {
		if p.section == sectionMain && p.tableRows > 0 {
			p.concat(p.line, t, "a second table header after the rows of the first")
			return
		}
		p.tableHeader(t, raw)
		return
	}
	switch t[0] {
	case '-':
		if isDashes(t) {
			p.sawDashes = true
			if p.tableRows > 0 && p.section == sectionMain {
				p.closed = true
			}
			return
		}
	case '*':
		if bytes.Contains(t, []byte("Waiting for client to connect")) {
			if p.table != tableNone {
				p.concat(p.line, t, "a server banner after the table of the first test")
				return
			}
			p.res.Server = true
		}
		if len(bytes.Trim(t, "* ")) == 0 || bytes.Contains(t, []byte("Waiting for client")) {
			return
		}
	}
	s := string(t)
	cl, ok := p.noise(p.line, raw, s)
	if ok {
		if cl == classServer && p.table != tableNone {
			p.concat(p.line, t, "a server banner after the table of the first test")
			return
		}
		p.marker(cl, s)
		return
	}
	if p.addressLine(s) {
		return
	}
	if !strings.Contains(s, ":") {
		var h Header
		if _, ok := h.setTitle(s); ok && p.table != tableNone {
			p.concat(p.line, t, "a second test title")
			return
		} else if ok && p.sawTitle {
			p.setErr(newParseError(ErrInterleaved, p.line, t, "a second title before the first test's table: two processes printed into one terminal"))
			p.done = true
			return
		}
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
	if p.table != tableNone && isHeaderPairs(s) {
		p.concat(p.line, t, "a second header block after the table of the first test")
		return
	}
	if p.table != tableNone && (strings.HasPrefix(s, "MIGRATED ") || strings.Contains(s, " TEST from ")) {
		// netperf's banner ("MIGRATED TCP STREAM TEST from ..."): its
		// data line would read as a row.
		p.setErr(newParseError(ErrConcatenated, p.line, t, "netperf's banner after the table"))
		p.done = true
		return
	}
	p.res.warn(WarnUnknownLine, p.line, clip(s))
}

// concat ends the result at a line where a second test starts: the rest
// of the input is not read (see ErrConcatenated). The line of dashes or
// stars right before that line is the second test's.
func (p *textParser) concat(line int, text []byte, why string) {
	if line == p.line && p.sepBefore > 0 {
		line = p.sepBefore
	}
	p.setErr(newParseError(ErrConcatenated, line, text, why))
	p.done = true
}

// isHeaderPairs reports whether a trimmed line is a line of perftest's
// header block: it starts with a key Header.set knows and a colon.
func isHeaderPairs(s string) bool {
	seps := pairSeparators(s)
	return len(seps) > 0 && knownKey(strings.TrimSpace(s[:seps[0]]))
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
func (p *textParser) tableHeader(t, raw []byte) {
	s := string(t)
	p.hdrRaw = append(p.hdrRaw[:0], raw...)
	l := parseLayout(s)
	k := l.kind()
	if k == tableOther {
		p.res.warn(WarnUnknownLine, p.line, clip(s))
	}
	p.table, p.tableLine, p.tableText, p.tableRows = k, p.line, s, 0
	p.closed, p.after = false, 0
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
			return true
		}
		list := &h.Local
		if side == "remote address:" {
			list = &h.Remote
		}
		*list = append(*list, a)
		if key != "" {
			p.addrKey, p.addrFor = key, &(*list)[len(*list)-1]
		}
		p.awaitGID = append(p.awaitGID, addrRef{remote: side == "remote address:", i: len(*list) - 1})
		return true
	}
	for _, prefix := range [...]string{"GID:", "MGID:"} {
		rest, ok := strings.CutPrefix(s, prefix)
		if !ok {
			continue
		}
		gid, ok := parseGID([]byte(rest))
		if !ok || len(p.awaitGID) == 0 {
			p.setErr(newParseError(ErrParse, p.line, []byte(s), "bad GID line"))
			return true
		}
		// Two processes in one terminal print "local address" twice
		// before their GID lines: each GID goes to the oldest address
		// without one. That is unambiguous while their GIDs are equal
		// (one host, one device); finish reports it when they are not.
		if len(p.awaitGID) > 1 && !p.gidSeen.IsValid() {
			p.gidSeen = gid // the first GID of interleaved address lines
		}
		if p.gidSeen.IsValid() && p.gidSeen != gid {
			p.gidsDiffer = true
		}
		ref := p.awaitGID[0]
		p.awaitGID = p.awaitGID[1:]
		if len(p.awaitGID) == 0 {
			p.gidSeen = netip.Addr{}
		}
		list := h.Local
		if ref.remote {
			list = h.Remote
		}
		list[ref.i].GID, list[ref.i].MGID = gid, prefix == "MGID:"
		return true
	}
	return false
}

// finish checks the end of the input and returns the error of Parse.
func (p *textParser) finish() error {
	p.endDump()
	p.endPending()
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
			trunc = &ParseError{Err: ErrTruncated, Line: p.line, Msg: fmt.Sprintf("a header and no result table (%d lines)", p.line)}
		}
	case !recognized:
		trunc = &ParseError{Err: ErrUnrecognized, Msg: fmt.Sprintf("no title, header or table in %d lines", p.line)}
	}
	if p.gidsDiffer {
		p.setErr(newParseError(ErrInterleaved, 0, nil, "address lines of two processes interleaved, with different GIDs: which GID is whose cannot be told"))
	}
	if p.res.Test == "" && p.table != tableNone && p.table != tableOther {
		// No title (a paste that starts at the header or the table): the
		// table header's columns name the kind of test, not its verb.
		p.res.Test = map[tableKind]string{tableBW: "BW Test", tableLat: "Latency Test", tableLatDur: "Latency Test"}[p.table]
	}
	err := p.firstErr
	if err == nil {
		err = trunc
	}
	return p.result(markNoResult(err, p.res, p.delivered))
}

// joinHeader joins a table header that a terminal or a page wrapped
// ("... t_stdev[usec]   99" then "% percentile[usec]   99.9% percentile[usec]")
// with the line after it. It reports whether the line was the header's
// rest: the joined header has more columns than the first part, and every
// one of them is a column perftest prints.
func (p *textParser) joinHeader(raw []byte) bool {
	first := p.hdrRaw
	p.hdrRaw = nil
	for _, j := range joins(first, raw) {
		t := bytes.TrimSpace(j)
		l := parseLayout(string(t))
		if l.n <= p.layout.n || l.n > maxFields || l.kind() == tableOther || l.hasAt(colUnknown) {
			continue
		}
		line := p.line
		p.line = p.tableLine
		p.tableHeader(t, nil)
		p.hdrRaw, p.line = nil, line
		return true
	}
	return false
}

// hasAt reports whether the layout has column c at some position; unlike
// has, it finds colUnknown (a name this parser does not know).
func (l *tableLayout) hasAt(c column) bool {
	for i := 0; i < min(l.n, maxFields); i++ {
		if l.at[i] == c {
			return true
		}
	}
	return false
}

// joins returns the ways a line wrapped at a terminal's width joins with
// its rest: as it is when a blank is at the break, else both without and
// with a blank (a copy may have dropped the blank before the break).
func joins(first, rest []byte) [][]byte {
	a := append(append([]byte(nil), first...), rest...)
	if len(first) == 0 || len(rest) == 0 || first[len(first)-1] == ' ' || first[len(first)-1] == '\t' || rest[0] == ' ' || rest[0] == '\t' {
		return [][]byte{a}
	}
	b := append(append(append([]byte(nil), first...), ' '), rest...)
	return [][]byte{a, b}
}

// joinRow joins a row cut short, or one whose last number has too few
// decimals, with the line after it, when a terminal or a page wrapped it.
// It reports whether the line was the row's rest: the joined row has
// exactly the columns of the table header and its last number is whole.
func (p *textParser) joinRow(raw []byte) bool {
	for _, j := range joins(p.pendRaw, raw) {
		t := bytes.TrimSpace(j)
		var u [2]uint64
		var v [maxFields]float64
		n, good := scanRow(t, &u, &v)
		if !good || n > p.layout.n {
			continue
		}
		if n < p.layout.n && p.cutRow != nil {
			// Still short: a row wrapped twice.
			p.pendRaw = append(p.pendRaw[:0], j...)
			p.heldText = append(p.heldText[:0], t...)
			p.cutRow = newParseError(ErrTruncated, p.heldLine, t, p.cutRow.Msg)
			return true
		}
		if n != p.layout.n || p.cutNumber(t, n) {
			continue
		}
		line := p.line
		p.line = p.heldLine
		p.cutRow, p.held, p.pendRaw = nil, nil, nil
		p.raw = j
		p.row(t)
		p.line = line
		return true
	}
	return false
}

// settle decides a pending row once a line follows that is not its rest:
// a row cut short was garbled (ErrParse), a row whose last number has few
// decimals is what was printed.
func (p *textParser) settle() {
	switch {
	case p.cutRow != nil:
		p.cutRow.Err = ErrParse
		p.res.warn(WarnBadRow, p.heldLine, clip(p.cutRow.Msg+": "+string(p.heldText)))
		p.setErr(p.cutRow)
	case p.held != nil:
		p.emit(p.held)
	}
	p.cutRow, p.held, p.pendRaw = nil, nil, nil
}

// endPending decides a pending row at the end of the input: a row cut
// short, or cut inside its last number ("0." read as 0), is dropped with
// a WarnBadRow warning, and the output is truncated (ErrTruncated).
func (p *textParser) endPending() {
	switch {
	case p.cutRow != nil:
		p.res.warn(WarnBadRow, p.heldLine, clip(p.cutRow.Msg+": "+string(p.heldText)))
		p.setErr(p.cutRow)
	case p.held != nil:
		msg := "the last number of the last row has fewer decimals than perftest prints: the output was cut inside it"
		p.res.warn(WarnBadRow, p.heldLine, clip(msg+": "+string(p.heldText)))
		p.setErr(newParseError(ErrTruncated, p.heldLine, p.heldText, msg))
	}
	p.cutRow, p.held, p.pendRaw = nil, nil, nil
}

// addrRef names an address line of the header: Local[i] or Remote[i].
type addrRef struct {
	remote bool
	i      int
}
