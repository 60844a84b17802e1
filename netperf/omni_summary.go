package netperf

import (
	"fmt"
	"strings"
)

// finishOmni fills the typed fields and the Result's summary fields from
// the selectors, and returns whether there was a result.
func finishOmni(f *frame, o *Omni) bool {
	if len(o.Selectors) == 0 {
		return false
	}
	f.res.Omni = o
	o.fill(f)
	res := f.res
	first := o.Selectors[0].Line

	for _, s := range o.Selectors {
		if s.Name == "THROUGHPUT" || s.Name == "TRANSACTION_RATE" || strings.HasSuffix(s.Name, "_THROUGHPUT") {
			if v, special, ok := parseNumber(s.Value); ok && !special && v < 0 {
				f.setErr(line{n: s.Line, text: s.Name + "=" + s.Value}, fmt.Sprintf("%s %v is negative: not a measurement", s.Name, v))
			}
		}
	}
	if o.Throughput != nil {
		r := &Rate{Value: *o.Throughput, Unit: o.ThroughputUnits}
		if r.Unit == "" {
			switch familyOf(res.Test) {
			case familyRR:
				r.Unit, r.Assumed = "Trans/s", true
			case familyStream:
				r.Unit, r.Assumed = "10^6bits/s", true
			}
			if r.Assumed {
				f.warnf(first, "THROUGHPUT without THROUGHPUT_UNITS: assumed %s, netperf's default for %s; wrong if -f was given", r.Unit, res.Test)
			} else {
				f.warnf(first, "THROUGHPUT without THROUGHPUT_UNITS and without a banner: its unit is unknown")
			}
		}
		res.Throughput = r
		if v, ok := r.Mbps(); ok {
			res.ThroughputMbps = float64p(v)
		}
	}

	rr := omniIsRR(res.Test, o)
	if rr {
		switch {
		case o.TransactionRate != nil:
			res.TransPerSec = float64p(*o.TransactionRate)
		case o.Throughput != nil && res.Throughput.Unit.IsTransactions():
			res.TransPerSec = float64p(*o.Throughput)
		}
	}
	if !rr && o.LocalSendCalls != nil && o.RemoteRecvCalls != nil && omniIsUDP(res.Test, o) {
		u := newUDPStream(*o.LocalSendCalls, *o.RemoteRecvCalls)
		if o.LocalSendThroughput != nil {
			if v, ok := res.unit(o).Mbps(*o.LocalSendThroughput); ok {
				u.SendMbps = float64p(v)
			}
		}
		recv := o.RemoteRecvThroughput
		if recv == nil {
			recv = o.Throughput
		}
		if recv != nil {
			if v, ok := res.unit(o).Mbps(*recv); ok {
				u.RecvMbps = float64p(v)
			}
		}
		res.UDP = u
		f.checkLoss(first, u)
	}
	res.SocketBuffers = socketBuffers(f, o)
	omniConfidence(f, o)
	return true
}

// unit is the unit of the omni throughput selectors: THROUGHPUT_UNITS, or
// the one assumed for THROUGHPUT.
func (res *Result) unit(o *Omni) Unit {
	if o.ThroughputUnits != "" {
		return o.ThroughputUnits
	}
	if res.Throughput != nil {
		return res.Throughput.Unit
	}
	return ""
}

// omniIsRR tells a request/response test: by the banner's test, the
// Trans/s unit, the Send|Recv direction, or a real RT_LATENCY.
func omniIsRR(test string, o *Omni) bool {
	return familyOf(test) == familyRR ||
		o.ThroughputUnits.IsTransactions() ||
		strings.Contains(o.Direction, "|") ||
		o.RTLatencyMicros != nil
}

// omniIsUDP tells a UDP stream test: the banner says UDP_STREAM (or OMNI
// with PROTOCOL UDP), or, without a banner, nothing says TCP (PROTOCOL,
// SOCKET_TYPE, a transport retransmission count of 0 or more).
func omniIsUDP(test string, o *Omni) bool {
	switch {
	case test == "UDP_STREAM":
		return true
	case test == "OMNI":
		return o.Protocol == "UDP"
	case test != "":
		return false
	}
	if o.Protocol != "" {
		return o.Protocol == "UDP"
	}
	if o.SocketType == "Stream" {
		return false
	}
	if v, ok := o.Value("LOCAL_TRANSPORT_RETRANS"); ok {
		if n, ok := parseInt(v); ok && n >= 0 {
			return false
		}
	}
	return true
}

// omniConfidence reads the CONFIDENCE_* and *_CONFID selectors. netperf
// prints CONFIDENCE_LEVEL 0 and -1 widths when -I was not given.
func omniConfidence(f *frame, o *Omni) {
	get := func(name string) (float64, bool) {
		v, ok := o.Value(name)
		if !ok {
			return 0, false
		}
		x, _, ok := parseNumber(v)
		return x, ok
	}
	level, hasLevel := get("CONFIDENCE_LEVEL")
	target, hasTarget := get("CONFIDENCE_INTERVAL")
	iter, hasIter := get("CONFIDENCE_ITERATION")
	widths := []struct {
		name string
		v    float64
		ok   bool
	}{{name: "THROUGHPUT_CONFID"}, {name: "LOCAL_CPU_CONFID"}, {name: "REMOTE_CPU_CONFID"}}
	requested := hasLevel && level > 0
	for i := range widths {
		widths[i].v, widths[i].ok = get(widths[i].name)
		widths[i].ok = widths[i].ok && widths[i].v >= 0
		requested = requested || widths[i].ok
	}
	if !requested {
		return
	}
	c := f.confidence()
	if hasLevel && level > 0 {
		c.LevelPercent = int(level)
	}
	if hasTarget && target > 0 {
		c.TargetWidthPercent = target
	}
	if hasIter {
		c.Iterations = int(iter)
	}
	ptrs := []**float64{&c.ThroughputWidthPercent, &c.LocalCPUWidthPercent, &c.RemoteCPUWidthPercent}
	var missed []string
	for i, w := range widths {
		if !w.ok {
			continue
		}
		*ptrs[i] = float64p(w.v)
		if c.TargetWidthPercent > 0 && w.v > c.TargetWidthPercent {
			missed = append(missed, fmt.Sprintf("%s %.3f%%", w.name, w.v))
		}
	}
	if len(missed) > 0 {
		c.Achieved = false
		f.warnf(o.Selectors[0].Line, "desired confidence was not achieved: %s wider than the %.3f%% wanted (CONFIDENCE_INTERVAL)",
			strings.Join(missed, ", "), c.TargetWidthPercent)
	}
}
