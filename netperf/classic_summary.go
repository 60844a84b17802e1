package netperf

import "fmt"

// summarise fills the Result's summary fields (Throughput,
// ThroughputMbps, TransPerSec, UDP) from the classic table.
func (p *classicParser) summarise() {
	c, res := p.c, p.f.res
	if c == nil || !p.rows {
		return
	}
	if c.UnitAssumed && c.Table != TableTerse {
		p.f.warnf(p.firstDataLine(), "no unit printed (-P 0): assumed %s, netperf's default; wrong if -f was given", c.Unit)
	}
	switch c.Table {
	case TableStream:
		p.setThroughput(c.Stream.Throughput, c.Unit, c.UnitAssumed)
	case TableRR:
		p.setThroughput(c.RR.Rate, c.Unit, c.UnitAssumed)
		switch {
		case c.Unit.IsTransactions():
			res.TransPerSec = float64p(c.RR.Rate)
		case c.RRDetail != nil && c.RRDetail.Rates:
			// -f m and the like print a bit rate in the table; the -v 2
			// block still has the transaction rate.
			res.TransPerSec = float64p(c.RRDetail.TransPerSec)
		}
	case TableUDPStream:
		if c.UDPRecv == nil {
			return
		}
		if v := c.UDPSend.Throughput; v < 0 {
			n := p.firstDataLine()
			p.f.setErr(line{n: n, text: p.f.lineText(n)}, fmt.Sprintf("send throughput %v is negative: not a measurement", v))
		}
		p.setThroughput(c.UDPRecv.Throughput, c.Unit, c.UnitAssumed)
		u := newUDPStream(c.UDPSend.Messages, c.UDPRecv.Messages)
		u.SendErrors = uint64p(c.UDPSend.Errors)
		if v, ok := c.Unit.Mbps(c.UDPSend.Throughput); ok {
			u.SendMbps = float64p(v)
		}
		if v, ok := c.Unit.Mbps(c.UDPRecv.Throughput); ok {
			u.RecvMbps = float64p(v)
		}
		res.UDP = u
		p.f.checkLoss(p.firstDataLine(), u)
	case TableTerse:
		p.summariseTerse()
	}
}

// summariseTerse interprets -v 0's number by the banner's test, since
// netperf prints no unit with it.
func (p *classicParser) summariseTerse() {
	c, res := p.c, p.f.res
	n := p.firstDataLine()
	switch u := p.f.in.unit; {
	case c.Terse.Method != "":
		p.f.warnf(n, "-v 0 with -c/-C prints the service demand (%v, method %s), not the throughput", c.Terse.Value, c.Terse.Method)
	case res.Test == "" && u != "":
		// -D: the interim lines carry the unit, and netperf prints the
		// last number in the same one (format_units() of -f).
		c.Unit, c.UnitAssumed = u, false
		p.f.warnf(n, "-v 0 without a banner: unit %s taken from the interim results", u)
		p.setThroughput(c.Terse.Value, u, false)
		if u.IsTransactions() {
			res.TransPerSec = float64p(c.Terse.Value)
		}
	case res.Test == "":
		p.f.warnf(n, "-v 0 without a banner: the test, and so the meaning and unit of %v, are unknown", c.Terse.Value)
	case res.Test == "UDP_STREAM":
		p.f.warnf(n, "UDP_STREAM -v 0 prints the send-side throughput; the receive side (and loss) is not printed")
	case familyOf(res.Test) == familyRR:
		c.Unit, c.UnitAssumed = UnitTransPerSec, true
		p.f.warnf(n, "no unit printed (-v 0): assumed %s, netperf's default; wrong if -f was given", c.Unit)
		p.setThroughput(c.Terse.Value, c.Unit, true)
		res.TransPerSec = float64p(c.Terse.Value)
	case familyOf(res.Test) == familyStream:
		c.Unit, c.UnitAssumed = UnitMbitsPerSec, true
		p.f.warnf(n, "no unit printed (-v 0): assumed %s, netperf's default; wrong if -f was given", c.Unit)
		p.setThroughput(c.Terse.Value, c.Unit, true)
	}
}

func (p *classicParser) setThroughput(v float64, u Unit, assumed bool) {
	res := p.f.res
	if v < 0 {
		n := p.firstDataLine()
		p.f.setErr(line{n: n, text: p.f.lineText(n)}, fmt.Sprintf("throughput %v is negative: not a measurement", v))
	}
	res.Throughput = &Rate{Value: v, Unit: u, Assumed: assumed}
	if mbps, ok := u.Mbps(v); ok {
		res.ThroughputMbps = float64p(mbps)
	}
}

// firstDataLine is the line number of the table's first data line, for
// warnings.
func (p *classicParser) firstDataLine() int {
	for _, l := range p.f.body {
		if isDataLine(l.text) {
			return l.n
		}
	}
	return 0
}

// checkLoss warns about loss figures that need a second look.
func (f *frame) checkLoss(n int, u *UDPStream) {
	switch {
	case u.Sent == 0:
		f.warnf(n, "UDP_STREAM sent no messages: loss ratio undefined")
	case u.Received > u.Sent:
		f.warnf(n, "netserver received %d messages but netperf sent %d", u.Received, u.Sent)
	}
}
