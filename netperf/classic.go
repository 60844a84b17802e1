package netperf

import (
	"io"
	"strings"
)

// Table names the classic table a run printed.
type Table string

// The classic tables.
const (
	// TableStream: TCP_STREAM and TCP_MAERTS (Recv/Send socket sizes,
	// message size, elapsed time, throughput).
	TableStream Table = "stream"
	// TableRR: TCP_RR, UDP_RR and TCP_CRR (socket sizes, request and
	// response sizes, elapsed time, transaction rate), two data lines.
	TableRR Table = "rr"
	// TableUDPStream: UDP_STREAM, a send line and a receive line.
	TableUDPStream Table = "udp_stream"
	// TableTerse: the single number of -v 0.
	TableTerse Table = "terse"
)

// Classic is a classic (non-omni) netperf table. Exactly one of Stream,
// RR, UDPSend/UDPRecv and Terse is set, as Table says.
type Classic struct {
	// Table says which table was printed.
	Table Table
	// Titles is true when the column titles were printed (-P 1, the
	// default); with -P 0 only data lines are printed.
	Titles bool
	// Unit is the unit of the throughput column: from the titles
	// ("10^6bits/sec", "KBytes/sec"; "Trans/sec" for the RR transaction
	// rate), or netperf's default when there were no titles (see
	// UnitAssumed).
	Unit Unit
	// UnitAssumed is true when no titles were printed and Unit is
	// netperf's default (see Rate.Assumed).
	UnitAssumed bool
	// ServiceDemandUnit is "us/KB" (streams) or "us/Tr" (RR) with -c/-C.
	ServiceDemandUnit string
	// Brand is the -B tag netperf appends to data lines with -P 0.
	Brand string

	// The data lines, by table: Stream for TableStream, RR for TableRR,
	// UDPSend and UDPRecv for TableUDPStream, Terse for TableTerse.
	Stream  *StreamRow
	RR      *RRRow
	UDPSend *UDPSendRow
	UDPRecv *UDPRecvRow
	Terse   *Terse

	// StreamDetail and RRDetail are the -v 2 blocks of the stream and
	// TCP_RR tables; nil without -v 2.
	StreamDetail *StreamDetail
	RRDetail     *RRDetail
}

// ParseClassic parses the output of a classic netperf test: the banner,
// the optional "!!!" confidence block and demo-mode interim lines, and the
// table of TCP_STREAM, TCP_MAERTS, UDP_STREAM (both lines), TCP_RR,
// UDP_RR or TCP_CRR, with or without -c/-C columns, with -P 0 (no titles,
// -B brand), -v 0 (one number) and -v 2 (alignment and MSS blocks),
// under the banner of any netperf version (see Banner).
//
// Similar to: netperf -H HOST -t TCP_STREAM -l 10 | tail -1 | awk '{print $5}'
//
// When the input is netperf's failure message it returns a Result with
// Form FormError and an *Error. A truncated or garbled table gives a
// *ParseError naming the line; what parsed before it is kept.
func ParseClassic(r io.Reader) (*Result, error) {
	in, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return parseClassicInput(in)
}

func parseClassic(s string) (*Result, error) { return parseClassicInput(readString(s)) }

func parseClassicInput(in *input) (*Result, error) {
	f := newFrame(in, FormClassic)
	p := &classicParser{f: f}
	p.run()
	return f.finish(p.rows)
}

type classicParser struct {
	f    *frame
	c    *Classic
	rows bool // a table's data line parsed
}

// Normalised first title lines of the classic tables.
const (
	titleStream = "Recv Send Send"
	titleRR     = "Local /Remote"
	titleUDP    = "Socket Message Elapsed Messages"
	titleAlign  = "Alignment Offset"
	titleMSS    = "Maximum"
)

func (p *classicParser) run() {
	body := p.f.body
	for i := 0; i < len(body); {
		l := body[i]
		t := l.text
		switch {
		case firstWord(t) == "":
			i++
		case wordsPrefix(t, titleStream):
			i = p.titled(body, i, TableStream)
		case wordsEqual(t, titleRR):
			i = p.titled(body, i, TableRR)
		case wordsPrefix(t, titleUDP):
			i = p.titled(body, i, TableUDPStream)
		case wordsPrefix(t, titleAlign):
			i = p.alignment(body, i)
		case wordsEqual(t, titleMSS):
			i = p.mss(body, i)
		case isDataLine(l.text):
			i = p.untitled(body, i)
		default:
			p.f.warnf(l.n, "unrecognised line ignored: %q", clip(l.text))
			i++
		}
	}
	p.summarise()
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// isDataLine reports whether a line starts with a number.
func isDataLine(s string) bool {
	return isNumber(firstWord(s))
}

// classic returns the table, creating it; a second table is refused.
func (p *classicParser) classic(l line, table Table) *Classic {
	if p.c != nil {
		p.f.warnf(l.n, "a second %s table: only the first is parsed", table)
		return nil
	}
	p.c = &Classic{Table: table}
	p.f.res.Classic = p.c
	return p.c
}

// titled reads a titled table starting at body[i]: its title lines, a
// blank line, and its data lines. It returns the index after the table.
func (p *classicParser) titled(body []line, i int, table Table) int {
	start := i
	var titles []string
	for ; i < len(body) && strings.TrimSpace(body[i].text) != "" && !isDataLine(body[i].text); i++ {
		titles = append(titles, body[i].text)
	}
	for i < len(body) && strings.TrimSpace(body[i].text) == "" {
		i++
	}
	c := p.classic(body[start], table)
	if c == nil {
		return i
	}
	c.Titles = true
	cpu := titlesHaveCPU(titles)
	c.Unit = titleUnit(titles, table)
	if cpu {
		c.ServiceDemandUnit = serviceDemandUnit(titles)
	}
	local, remote := cpuMethods(titles)
	if i >= len(body) || !isDataLine(body[i].text) {
		p.f.setErr(p.lineAt(body, i), "truncated: "+string(table)+" titles without a data line")
		return i
	}
	return p.rowsFrom(body, i, cpu, local, remote)
}

// untitled reads the data lines of a table printed without titles (-P 0),
// or the single number of -v 0, telling the table by its shape.
func (p *classicParser) untitled(body []line, i int) int {
	first := strings.Fields(body[i].text)
	if len(first) == 1 || !isNumber(first[1]) {
		return p.terse(body, i, first)
	}
	table := TableStream
	if i+1 < len(body) && isDataLine(body[i+1].text) {
		switch n := wordCount(body[i+1].text); n {
		case 2:
			table = TableRR
		case 4, 6:
			table = TableUDPStream
		}
	}
	c := p.classic(body[i], table)
	if c == nil {
		return i + 1
	}
	c.UnitAssumed = true
	c.Unit = UnitMbitsPerSec
	if table == TableRR {
		c.Unit = UnitTransPerSec
	}
	if u := p.f.in.unit; u != "" {
		// -D: the interim lines name the unit of the table's rate.
		c.Unit, c.UnitAssumed = u, false
		p.f.warnf(body[i].n, "no titles (-P 0): unit %s taken from the interim results", u)
	}
	cpu := numericPrefix(first) >= cpuFieldCount(table)
	if cpu {
		c.ServiceDemandUnit = "us/KB"
		if table == TableRR {
			c.ServiceDemandUnit = "us/Tr"
		}
	}
	return p.rowsFrom(body, i, cpu, "", "")
}

// numericPrefix counts the leading fields that are numbers.
func numericPrefix(fs []string) int {
	n := 0
	for n < len(fs) && isNumber(fs[n]) {
		n++
	}
	return n
}

// cpuFieldCount is how many numbers the first data line has with -c/-C.
func cpuFieldCount(t Table) int {
	switch t {
	case TableRR:
		return 10
	case TableUDPStream:
		return 8
	}
	return 9
}

// rowsFrom parses the data lines of p.c's table starting at body[i].
func (p *classicParser) rowsFrom(body []line, i int, cpu bool, local, remote string) int {
	switch p.c.Table {
	case TableStream:
		p.streamRow(body[i], cpu, local, remote)
		return i + 1
	case TableRR:
		p.rrRow(body[i], cpu, local, remote)
		i++
		if i < len(body) && isDataLine(body[i].text) && wordCount(body[i].text) == 2 {
			p.rrRemote(body[i])
			i++
		}
		return i
	case TableUDPStream:
		p.udpSendRow(body[i], cpu, local)
		i++
		if i >= len(body) || !isDataLine(body[i].text) {
			p.f.setErr(p.lineAt(body, i), "truncated: UDP_STREAM send line without its receive line")
			return i
		}
		p.udpRecvRow(body[i], cpu, remote)
		return i + 1
	}
	return i + 1
}

// lineAt is body[i], or the line after the input's end.
func (p *classicParser) lineAt(body []line, i int) line {
	if i < len(body) {
		return body[i]
	}
	return line{n: p.f.nlines + 1}
}

// titlesHaveCPU reports whether the titles have the -c/-C columns.
func titlesHaveCPU(titles []string) bool {
	for _, t := range titles {
		if strings.Contains(t, "us/KB") || strings.Contains(t, "us/Tr") || strings.Contains(t, "S.dem") {
			return true
		}
	}
	return false
}

func serviceDemandUnit(titles []string) string {
	for _, t := range titles {
		for _, u := range []string{"us/KB", "us/Tr"} {
			if strings.Contains(t, u) {
				return u
			}
		}
	}
	return ""
}

// titleUnit finds the throughput unit in the titles: "10^6bits/sec", or
// "10^6bits/s" (cut to 8 characters by %-8.8s) in the CPU titles. The RR
// transaction rate ("Trans. Rate per sec") is Trans/sec.
//
// netperf pads the prefix to eight characters before "/s", so -f M, K, G
// with -c/-C print "MBytes  /s": a prefix followed by a lone "/s" is
// joined back into one unit ("MBytes/s").
func titleUnit(titles []string, table Table) Unit {
	for j := len(titles) - 1; j >= 0; j-- {
		fs := strings.Fields(titles[j])
		for k, fld := range fs {
			if isUnitToken(fld) {
				return Unit(fld)
			}
			if k+1 < len(fs) && (fs[k+1] == "/s" || fs[k+1] == "/sec") && isUnitToken(fld+fs[k+1]) {
				return Unit(fld + fs[k+1])
			}
		}
	}
	if table == TableRR {
		for _, t := range titles {
			if strings.Contains(t, "Trans.") {
				return UnitTransPerSec
			}
		}
	}
	return ""
}

// cpuMethods reads the CPU measurement method letters from the last title
// line: "% S      % S" (local, remote) or UDP_STREAM's "% SS".
func cpuMethods(titles []string) (local, remote string) {
	if len(titles) == 0 {
		return "", ""
	}
	fs := strings.Fields(titles[len(titles)-1])
	var letters []string
	for j := 0; j+1 < len(fs); j++ {
		if fs[j] == "%" && isMethod(fs[j+1]) {
			letters = append(letters, fs[j+1])
		}
	}
	switch {
	case len(letters) == 1 && len(letters[0]) == 2:
		return letters[0][:1], letters[0][1:]
	case len(letters) == 1:
		return letters[0], ""
	case len(letters) >= 2:
		return letters[0], letters[1]
	}
	return "", ""
}

// isMethod reports whether s is one or two CPU method letters (S for
// /proc/stat, U unknown, ...).
func isMethod(s string) bool {
	if len(s) == 0 || len(s) > 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
