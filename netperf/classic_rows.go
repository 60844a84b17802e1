package netperf

import (
	"strings"
)

// CPU is one side's -c/-C columns: utilisation and service demand.
type CPU struct {
	// UtilPercent is the CPU utilisation in percent of all CPUs.
	UtilPercent float64
	// ServiceDemand is CPU time per unit of work, in
	// Classic.ServiceDemandUnit (us/KB for streams, us/Tr for RR).
	ServiceDemand float64
	// Method is the measurement method letter from the titles ("S" for
	// /proc/stat); "" when not printed (TCP_CRR, -P 0).
	Method string
}

// StreamRow is the data line of TCP_STREAM and TCP_MAERTS:
//
//	131072  16384  16384    2.29      134.34
//
// For TCP_STREAM the sockets are the remote receive and local send
// sockets; for TCP_MAERTS the local receive and remote send sockets.
type StreamRow struct {
	RecvSocketBytes  int     // "Recv Socket Size bytes"
	SendSocketBytes  int     // "Send Socket Size bytes"
	SendMessageBytes int     // "Send Message Size bytes" (-m)
	ElapsedSec       float64 // "Elapsed Time secs."
	// Throughput is in Classic.Unit.
	Throughput float64
	// LocalCPU and RemoteCPU are set with -c/-C.
	LocalCPU, RemoteCPU *CPU
}

// RRRow is the two data lines of TCP_RR, UDP_RR and TCP_CRR:
//
//	16384  131072 1        1       2.02      371.75
//	16384  131072
type RRRow struct {
	LocalSendSocketBytes int     // "Local Socket Size Send bytes"
	LocalRecvSocketBytes int     // "Local Socket Size Recv Bytes"
	RequestBytes         int     // "Request Size bytes" (-r)
	ResponseBytes        int     // "Resp. Size bytes" (-r)
	ElapsedSec           float64 // "Elapsed Time secs."
	// Rate is the transaction rate when Classic.Unit is Trans/sec (the
	// default), else the throughput in Classic.Unit (-f m and the like).
	Rate float64
	// RemoteSendSocketBytes and RemoteRecvSocketBytes are the second
	// line, the remote socket sizes; -1 when the line is missing.
	RemoteSendSocketBytes int
	RemoteRecvSocketBytes int
	// LocalCPU and RemoteCPU are set with -c/-C.
	LocalCPU, RemoteCPU *CPU
}

// UDPSendRow is UDP_STREAM's first data line, netperf's send side:
//
//	425984    1400   2.00        15995      0      89.50
type UDPSendRow struct {
	SocketBytes  int     // the local send socket size
	MessageBytes int     // the message size (-m)
	ElapsedSec   float64 // the elapsed time
	// Messages is the number of messages sent ("Okay").
	Messages uint64
	// Errors counts sends that failed with ENOBUFS or ENOMEM.
	Errors uint64
	// Throughput is in Classic.Unit.
	Throughput float64
	// CPU is the local side's -c columns.
	CPU *CPU
}

// UDPRecvRow is UDP_STREAM's second data line, netserver's receive side:
//
//	425984           2.00        14860             83.15
type UDPRecvRow struct {
	SocketBytes int     // netserver's receive socket size
	ElapsedSec  float64 // the elapsed time
	// Messages is the number of messages netserver received.
	Messages uint64
	// Throughput is in Classic.Unit.
	Throughput float64
	// CPU is the remote side's -C columns.
	CPU *CPU
}

// Terse is the single number of -v 0: the throughput (for UDP_STREAM the
// send side), the transaction rate, or with -c/-C the service demand. No
// unit is printed.
type Terse struct {
	// Value is the number as printed.
	Value float64
	// Method is the CPU method letter that follows a service demand
	// (" 1.302 S "); "" when the number is a throughput or rate. (A
	// one-letter upper-case -B brand would be taken for it.)
	Method string
}

// StreamDetail is the -v 2 block of the stream tests: buffer alignment and
// offsets, bytes transferred, sends and receives, and the MSS block.
type StreamDetail struct {
	LocalSendAlign, RemoteRecvAlign   int     // buffer alignment (-a, -A)
	LocalSendOffset, RemoteRecvOffset int     // buffer offsets (-o, -O)
	BytesXfered                       uint64  // "Bytes Xfered"
	BytesPerSend                      float64 // "Bytes Per Send (avg)"
	Sends                             uint64  // number of send calls
	BytesPerRecv                      float64 // "Bytes Per Recv (avg)"
	Recvs                             uint64  // number of receive calls
	// MSS is the "Maximum Segment Size (bytes)"; 0 when not printed.
	MSS int
}

// RRDetail is TCP_RR's -v 2 block: alignment, offsets, round-trip
// latency, transaction rate, and outbound and inbound throughput.
type RRDetail struct {
	LocalSendAlign, RemoteRecvAlign   int // buffer alignment (-a, -A)
	LocalSendOffset, RemoteRecvOffset int // buffer offsets (-o, -O)
	// Rates is true when the block has the latency and rate columns
	// ("RoundTrip Trans Throughput"); netperf before 2.4 printed the
	// alignment and offsets only, and the fields below are then zero.
	Rates                  bool
	RoundTripLatencyMicros float64 // "RoundTrip Latency usec/Tran"
	TransPerSec            float64 // "Trans Rate per sec", 3 decimals
	// Outbound and Inbound are the throughputs each way, in Unit
	// ("10^6bits/s").
	Outbound, Inbound float64
	Unit              Unit
}

// fields is a data line cut into numbers, with the rest (the -B brand)
// kept whole.
type fields struct {
	f   *frame
	l   line
	fs  []string
	bad bool
}

func newFields(f *frame, l line) *fields {
	return &fields{f: f, l: l, fs: strings.Fields(l.text)}
}

// field returns field i; a line without it fails as truncated.
func (x *fields) field(i int, what string) (string, bool) {
	if i >= len(x.fs) {
		x.fail("truncated: no " + what)
		return "", false
	}
	return x.fs[i], true
}

// float returns field i as a number, flagging inf/nan.
func (x *fields) float(i int, what string) float64 {
	s, ok := x.field(i, what)
	if !ok {
		return 0
	}
	v, special, ok := parseNumber(s)
	if !ok {
		x.fail(notNumber(what, s))
		return 0
	}
	if special {
		x.f.warnSpecial(x.l.n, what, v)
	}
	return v
}

func (x *fields) int(i int, what string) int {
	return wholeField(x, i, what, parseInt, " is not an integer")
}

func (x *fields) count(i int, what string) uint64 {
	return wholeField(x, i, what, parseCount, " is not a count")
}

// wholeField reads field i with parse; a field it refuses fails the line
// with what+refused.
func wholeField[T int | uint64](x *fields, i int, what string, parse func(string) (T, bool), refused string) T {
	s, ok := x.field(i, what)
	if !ok {
		return 0
	}
	n, ok := parse(s)
	if !ok {
		x.fail(what + refused)
	}
	return n
}

// lastNumber checks the line's last field, a number netperf prints with
// decimals digits after the point (%7.2f, %6.3f): when the output ends
// inside this line without its "\n" and the number has fewer digits, the
// output was cut inside it ("158.6" of "158.60") and the value is wrong.
func (x *fields) lastNumber(i, decimals int) {
	if x.bad || i != len(x.fs)-1 || x.l.n != x.f.nlines || !x.f.in.unterminated {
		return
	}
	_, frac, _ := strings.Cut(x.fs[i], ".")
	if len(frac) != decimals {
		x.fail("truncated: the output ends inside its last number")
	}
}

// rest joins the fields from i on: the brand.
func (x *fields) rest(i int) string {
	if i >= len(x.fs) {
		return ""
	}
	return strings.Join(x.fs[i:], " ")
}

// fail records the first problem of a line that looks like a result
// row: a warning with its line number (the row is not kept) and the
// parse error the Result is returned with.
func (x *fields) fail(msg string) {
	if !x.bad {
		x.bad = true
		x.f.warnf(x.l.n, "result row not parsed (%s): %q", msg, clip(x.l.text))
		x.f.setErr(x.l, msg)
	}
}

func (x *fields) cpu(i int, method, side string) *CPU {
	return x.cpuAt(i, i+2, method, side)
}

// rowEnd checks a stream or RR row's last column, field i-1, and with
// cpu reads the -c/-C columns that follow it (local and remote
// utilisation, then service demand). It returns them and the field the
// brand starts at.
func (x *fields) rowEnd(i int, cpu bool, local, remote string) (l, r *CPU, brand int) {
	x.lastNumber(i-1, 2)
	if !cpu {
		return nil, nil, i
	}
	l, r = x.cpu(i, local, "local"), x.cpu(i+1, remote, "remote")
	x.lastNumber(i+3, 3)
	return l, r, i + 4
}

// keep notes whether the row parsed and, when it did, takes the brand
// from field brand on; it reports whether to keep the row.
func (p *classicParser) keep(x *fields, brand int) bool {
	p.rows = !x.bad
	if p.rows {
		p.c.Brand = x.rest(brand)
	}
	return p.rows
}

// cpuAt reads a side's utilisation and service demand from fields u and
// sd. A negative utilisation (seen when -c/-C were given a wrong CPU rate)
// is kept as printed and flagged.
func (x *fields) cpuAt(u, sd int, method, side string) *CPU {
	c := &CPU{
		UtilPercent:   x.float(u, "CPU utilisation"),
		ServiceDemand: x.float(sd, "service demand"),
		Method:        method,
	}
	if c.UtilPercent < 0 {
		x.f.warnf(x.l.n, "%s CPU utilisation %v%% is negative: the CPU rate netperf used is wrong (a -c/-C RATE argument?)", side, c.UtilPercent)
	}
	return c
}

func (p *classicParser) streamRow(l line, cpu bool, local, remote string) {
	x := newFields(p.f, l)
	r := &StreamRow{
		RecvSocketBytes:  x.int(0, "receive socket size"),
		SendSocketBytes:  x.int(1, "send socket size"),
		SendMessageBytes: x.int(2, "message size"),
		ElapsedSec:       x.float(3, "elapsed time"),
		Throughput:       x.float(4, "throughput"),
	}
	var brand int
	r.LocalCPU, r.RemoteCPU, brand = x.rowEnd(5, cpu, local, remote)
	if p.keep(x, brand) {
		p.c.Stream = r
	}
}

func (p *classicParser) rrRow(l line, cpu bool, local, remote string) {
	x := newFields(p.f, l)
	r := &RRRow{
		LocalSendSocketBytes:  x.int(0, "local send socket size"),
		LocalRecvSocketBytes:  x.int(1, "local receive socket size"),
		RequestBytes:          x.int(2, "request size"),
		ResponseBytes:         x.int(3, "response size"),
		ElapsedSec:            x.float(4, "elapsed time"),
		Rate:                  x.float(5, "transaction rate"),
		RemoteSendSocketBytes: -1,
		RemoteRecvSocketBytes: -1,
	}
	var brand int
	r.LocalCPU, r.RemoteCPU, brand = x.rowEnd(6, cpu, local, remote)
	if p.keep(x, brand) {
		p.c.RR = r
	}
}

func (p *classicParser) rrRemote(l line) {
	x := newFields(p.f, l)
	send, recv := x.int(0, "remote send socket size"), x.int(1, "remote receive socket size")
	if p.c.RR != nil && !x.bad {
		p.c.RR.RemoteSendSocketBytes, p.c.RR.RemoteRecvSocketBytes = send, recv
	}
}

func (p *classicParser) udpSendRow(l line, cpu bool, method string) {
	x := newFields(p.f, l)
	r := &UDPSendRow{
		SocketBytes:  x.int(0, "send socket size"),
		MessageBytes: x.int(1, "message size"),
		ElapsedSec:   x.float(2, "elapsed time"),
		Messages:     x.count(3, "messages sent"),
		Errors:       x.count(4, "send errors"),
		Throughput:   x.float(5, "send throughput"),
	}
	if cpu {
		r.CPU = x.cpuAt(6, 7, method, "local")
	}
	p.rows = !x.bad
	if p.rows {
		p.c.UDPSend = r
	}
}

func (p *classicParser) udpRecvRow(l line, cpu bool, method string) {
	x := newFields(p.f, l)
	r := &UDPRecvRow{
		SocketBytes: x.int(0, "receive socket size"),
		ElapsedSec:  x.float(1, "elapsed time"),
		Messages:    x.count(2, "messages received"),
		Throughput:  x.float(3, "receive throughput"),
	}
	x.lastNumber(3, 2)
	if cpu {
		r.CPU = x.cpuAt(4, 5, method, "remote")
		x.lastNumber(5, 3)
	}
	if !x.bad {
		p.c.UDPRecv = r
	}
	p.rows = p.rows && !x.bad
}

// terse reads -v 0's "%7.2f %s" (number, brand) or, with -c/-C, "%6.3f %c
// %s" (service demand, method letter, brand).
func (p *classicParser) terse(body []line, i int, fs []string) int {
	c := p.classic(body[i], TableTerse)
	if c == nil {
		return i + 1
	}
	x := newFields(p.f, body[i])
	t := &Terse{Value: x.float(0, "value")}
	x.lastNumber(0, 2)
	next := 1
	if len(fs) > 1 && len(fs[1]) == 1 && isMethod(fs[1]) {
		t.Method = fs[1]
		next = 2
	}
	if p.keep(x, next) {
		c.Terse = t
	}
	return i + 1
}

// alignment reads the -v 2 block that starts "Alignment      Offset":
// three title lines and a data line.
func (p *classicParser) alignment(body []line, i int) int {
	rr := strings.Contains(body[i].text, "RoundTrip")
	var titles []string
	for ; i < len(body) && strings.TrimSpace(body[i].text) != "" && !isDataLine(body[i].text); i++ {
		titles = append(titles, body[i].text)
	}
	if i >= len(body) || !isDataLine(body[i].text) {
		p.f.setErr(line{n: p.f.nlines + 1}, "truncated: -v 2 alignment titles without a data line")
		return i
	}
	x := newFields(p.f, body[i])
	if p.c == nil {
		p.f.warnf(body[i].n, "a -v 2 block without a table")
		return i + 1
	}
	// Every form starts with the alignment and offset columns.
	a := RRDetail{
		LocalSendAlign: x.int(0, "local send alignment"), RemoteRecvAlign: x.int(1, "remote receive alignment"),
		LocalSendOffset: x.int(2, "local send offset"), RemoteRecvOffset: x.int(3, "remote receive offset"),
	}
	if !rr && p.c.Table == TableRR {
		// Before the omni migration (2.4) TCP_RR -v 2 printed only the
		// alignment and offset lines.
		p.c.RRDetail = &a
		return i + 1
	}
	if rr {
		a.Rates = true
		a.RoundTripLatencyMicros = x.float(4, "round-trip latency")
		a.TransPerSec = x.float(5, "transaction rate")
		a.Outbound = x.float(6, "outbound throughput")
		a.Inbound = x.float(7, "inbound throughput")
		a.Unit = titleUnit(titles, TableStream)
		p.c.RRDetail = &a
		return i + 1
	}
	d := p.streamDetail()
	d.LocalSendAlign, d.RemoteRecvAlign = a.LocalSendAlign, a.RemoteRecvAlign
	d.LocalSendOffset, d.RemoteRecvOffset = a.LocalSendOffset, a.RemoteRecvOffset
	d.BytesXfered = x.count(4, "bytes transferred")
	d.BytesPerSend = x.float(5, "bytes per send")
	d.Sends = x.count(6, "sends")
	d.BytesPerRecv = x.float(7, "bytes per receive")
	d.Recvs = x.count(8, "receives")
	return i + 1
}

func (p *classicParser) streamDetail() *StreamDetail {
	if p.c.StreamDetail == nil {
		p.c.StreamDetail = &StreamDetail{}
	}
	return p.c.StreamDetail
}

// mss reads the -v 2 "Maximum / Segment / Size (bytes)" block.
func (p *classicParser) mss(body []line, i int) int {
	for ; i < len(body) && strings.TrimSpace(body[i].text) != "" && !isDataLine(body[i].text); i++ {
	}
	if i >= len(body) || !isDataLine(body[i].text) {
		p.f.setErr(line{n: p.f.nlines + 1}, "truncated: MSS title without a value")
		return i
	}
	if p.c == nil {
		p.f.warnf(body[i].n, "an MSS block without a table")
		return i + 1
	}
	x := newFields(p.f, body[i])
	p.streamDetail().MSS = x.int(0, "MSS")
	return i + 1
}
