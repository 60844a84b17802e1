package report

import (
	"strconv"
	"strings"
)

// sockbufSides are the socket buffers FromNetperf records, with the
// sysctl that caps each and the host it applies on.
var sockbufSides = []struct{ side, sysctl, host string }{
	{"local_send", "net.core.wmem_max", "netperf's host"},
	{"local_recv", "net.core.rmem_max", "netperf's host"},
	{"remote_send", "net.core.wmem_max", "netserver's host"},
	{"remote_recv", "net.core.rmem_max", "netserver's host"},
}

// clamp is a socket buffer the kernel gave less than asked.
type clamp struct {
	side, sysctl, host string
	asked, got         int
}

// capBytes is the sysctl's value: Linux doubles what it grants.
func (c clamp) capBytes() int { return c.got / 2 }

// flag is netperf's test-specific option that asked for the buffer.
func (c clamp) flag() string {
	if strings.HasPrefix(c.side, "local") {
		return "-s"
	}
	return "-S"
}

// readBack says what was asked, what a granted buffer reads back
// (twice that) and what this one read back, so that "asked 8 MiB, got
// 8 MiB" cannot read as granted.
func (c clamp) readBack() string {
	opt := "SO_RCVBUF"
	if strings.HasSuffix(c.side, "send") {
		opt = "SO_SNDBUF"
	}
	return sprintf("%s asked %s, which the kernel doubles to %s when it grants it (%s reads back twice the request), but it read back %s",
		c.flag(), byteSize(c.asked), byteSize(2*c.asked), opt, byteSize(c.got))
}

// clamps reads the round's sockbuf_*_asked/_got parameters and returns
// the buffers that got less than twice the request (Linux doubles an
// unclamped SO_SNDBUF/SO_RCVBUF).
func clamps(r Round) []clamp {
	var out []clamp
	for _, s := range sockbufSides {
		a, ok1 := r.Param(ParamSockbufPrefix + s.side + "_asked")
		g, ok2 := r.Param(ParamSockbufPrefix + s.side + "_got")
		asked, err1 := strconv.Atoi(a)
		got, err2 := strconv.Atoi(g)
		if !ok1 || !ok2 || err1 != nil || err2 != nil || asked <= 0 || got >= 2*asked {
			continue
		}
		out = append(out, clamp{strings.ReplaceAll(s.side, "_", " "), s.sysctl, s.host, asked, got})
	}
	return out
}

// CheckSocketBuffers reports each socket buffer a netperf round asked for
// (-s, -S) and did not get: Linux caps SO_RCVBUF at net.core.rmem_max
// (212992 by default) and SO_SNDBUF at net.core.wmem_max, so "-S 2M"
// asks for a buffer that never exists, and a larger -S cannot help until
// the sysctl is raised on that host.
//
// Similar to: netperf ... -- -S 2M -k RSR_SIZE_REQ,RSR_SIZE_END; sysctl net.core.rmem_max
func CheckSocketBuffers(r Round) []Finding {
	var fs []Finding
	for _, c := range clamps(r) {
		fs = append(fs, Finding{Rule: RuleBufferClamped, Severity: SeverityWarning,
			Summary: sprintf("%s socket buffer clamped: %s: twice %s, which is %d on %s",
				c.side, c.readBack(), c.sysctl, c.capBytes(), c.host),
			Evidence: []Evidence{ev("sockbuf_"+strings.ReplaceAll(c.side, " ", "_")+"_asked", float64(c.asked), "bytes"),
				ev("sockbuf_"+strings.ReplaceAll(c.side, " ", "_")+"_got", float64(c.got), "bytes")},
			Action: sprintf("raise %s to at least %d on %s (sysctl -w %s=%d; tune.Sysctl journals and restores it), then rerun", c.sysctl, c.asked, c.host, c.sysctl, c.asked)})
	}
	return fs
}

// byteSize prints a byte count as netperf's -s takes it: "2 MiB", "416 KiB".
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', -1, 64) + " KiB"
	}
	return strconv.Itoa(n) + " B"
}
