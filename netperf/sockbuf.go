package netperf

import "strconv"

// SocketBuffer is a socket buffer netperf asked for (-s, -S) against what
// the kernel gave, from the omni selectors X_SIZE_REQ and X_SIZE_END.
//
// Linux doubles the SO_SNDBUF/SO_RCVBUF value it is given (half of the
// buffer is its bookkeeping) and caps the value at net.core.wmem_max or
// net.core.rmem_max first (212992 by default), so an unclamped request of
// N reads back as 2N, and a clamped one as twice the cap: asking 2M with
// the default cap gives 425984.
//
// Similar to: netperf -t UDP_STREAM -- -S 2M -k RSR_SIZE_REQ,RSR_SIZE_END; sysctl net.core.rmem_max
type SocketBuffer struct {
	// Side is "local send", "local recv" (netperf's host, -s) or "remote
	// send", "remote recv" (netserver's host, -S).
	Side string
	// AskedBytes is the size asked for; GotBytes the size the socket had
	// at the end of the test.
	AskedBytes, GotBytes int
	// Clamped is set when the kernel gave less than an unclamped request
	// gets (twice AskedBytes).
	Clamped bool
	// CapBytes is the limit that clamped it (GotBytes/2, the sysctl's
	// value); 0 when not clamped.
	CapBytes int
}

// Sysctl names the limit that caps this buffer: net.core.wmem_max for
// send sockets, net.core.rmem_max for receive sockets.
func (b SocketBuffer) Sysctl() string {
	if b.Side == "local send" || b.Side == "remote send" {
		return "net.core.wmem_max"
	}
	return "net.core.rmem_max"
}

// Host says on which host the buffer's sysctl applies.
func (b SocketBuffer) Host() string {
	if b.Side == "local send" || b.Side == "local recv" {
		return "netperf's host"
	}
	return "netserver's host"
}

// socketBufferSelectors pairs each side with its selectors.
var socketBufferSelectors = []struct{ side, req, end string }{
	{"local send", "LSS_SIZE_REQ", "LSS_SIZE_END"},
	{"local recv", "LSR_SIZE_REQ", "LSR_SIZE_END"},
	{"remote send", "RSS_SIZE_REQ", "RSS_SIZE_END"},
	{"remote recv", "RSR_SIZE_REQ", "RSR_SIZE_END"},
}

// socketBuffers compares the requested and final sizes the selectors
// hold; a side that was not asked for (REQ -1 or absent) is left out.
func socketBuffers(f *frame, o *Omni) []SocketBuffer {
	m := o.Map()
	lines := map[string]int{} // the line each selector is on, the first kept
	for _, s := range o.Selectors {
		if _, dup := lines[s.Name]; !dup {
			lines[s.Name] = s.Line
		}
	}
	var out []SocketBuffer
	for _, s := range socketBufferSelectors {
		req, err1 := strconv.Atoi(m[s.req])
		end, err2 := strconv.Atoi(m[s.end])
		if err1 != nil || err2 != nil || req <= 0 || end < 0 {
			continue
		}
		b := SocketBuffer{Side: s.side, AskedBytes: req, GotBytes: end}
		if end < 2*req {
			b.Clamped, b.CapBytes = true, end/2
			// The line of what the kernel gave; "got" is read back doubled,
			// so it is said against twice the request.
			f.warnf(lines[s.end], "%s socket buffer clamped: asked %d bytes, got %d where a granted buffer reads back %d (twice the request): %s is %d on %s",
				s.side, req, end, 2*req, b.Sysctl(), b.CapBytes, b.Host())
		}
		out = append(out, b)
	}
	return out
}
