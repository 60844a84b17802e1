package rocekittest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/netperf"
)

// UDPStreamNumbers are the numbers of a UDP_STREAM run, for
// SyntheticUDPStream.
type UDPStreamNumbers struct {
	// Sent and Received are messages: netperf's successful sends
	// (LOCAL_SEND_CALLS) and netserver's receives (REMOTE_RECV_CALLS).
	Sent, Received uint64
	// MessageSize is the bytes of each message (-m); 0 means 1400.
	MessageSize int
	// SendMbps and RecvMbps are the two sides' throughputs in 10^6 bit/s;
	// 0 computes them from the counts, the size and Elapsed.
	SendMbps, RecvMbps float64
	// Elapsed is the test length; 0 means 10 s.
	Elapsed time.Duration
}

// SyntheticUDPStream builds a netperf case that no lab run produced: a
// UDP_STREAM run whose client prints the omni -k key=value lines
// netperf.Run reads, with the given numbers (THROUGHPUT is the receive
// side's, as netperf reports it), and a netserver that listens. The case
// is marked Synthetic, Suite "synthetic". Use it where no capture has the
// numbers a test needs (a given loss, a given rate).
//
// Similar to: netperf -t UDP_STREAM -- -m 1400 -k THROUGHPUT,... printing what you choose.
func SyntheticUDPStream(n UDPStreamNumbers) *Case {
	if n.MessageSize <= 0 {
		n.MessageSize = 1400
	}
	if n.Elapsed <= 0 {
		n.Elapsed = 10 * time.Second
	}
	mbps := func(msgs uint64) float64 {
		return float64(msgs) * float64(n.MessageSize) * 8 / n.Elapsed.Seconds() / 1e6
	}
	if n.SendMbps == 0 {
		n.SendMbps = mbps(n.Sent)
	}
	if n.RecvMbps == 0 {
		n.RecvMbps = mbps(n.Received)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	u := strconv.FormatUint
	var b strings.Builder
	for _, kv := range [][2]string{
		{"THROUGHPUT", f(n.RecvMbps)}, {"THROUGHPUT_UNITS", "10^6bits/s"},
		{"ELAPSED_TIME", f(n.Elapsed.Seconds())}, {"PROTOCOL", "UDP"},
		{"LOCAL_SEND_CALLS", u(n.Sent, 10)}, {"REMOTE_RECV_CALLS", u(n.Received, 10)},
		{"LOCAL_BYTES_SENT", u(n.Sent*uint64(n.MessageSize), 10)},
		{"REMOTE_BYTES_RECVD", u(n.Received*uint64(n.MessageSize), 10)},
		{"LOCAL_SEND_THROUGHPUT", f(n.SendMbps)}, {"REMOTE_RECV_THROUGHPUT", f(n.RecvMbps)},
		{"LOCAL_SEND_SIZE", strconv.Itoa(n.MessageSize)},
	} {
		b.WriteString(kv[0] + "=" + kv[1] + "\n")
	}
	cmd := "netperf -t UDP_STREAM -l " + strconv.Itoa(int(n.Elapsed.Seconds())) + " -- -m " + strconv.Itoa(n.MessageSize) + " -k THROUGHPUT,..."
	return &Case{ID: "synthetic/netperf/udp-stream", Suite: "synthetic", Group: "netperf", Tool: "netperf", Name: "udp-stream",
		Note: "synthetic UDP_STREAM -k output built by SyntheticUDPStream", Expect: "ok", Synthetic: true,
		Sides: []Side{
			{Role: "server", Command: "netserver -D", Argv: []string{"netserver", "-D"}, Exit: -1, Signal: "SIGTERM", Stopped: true},
			{Role: "client", Command: cmd, Argv: strings.Fields(cmd), Stdout: []byte(b.String())},
		}}
}

// UDPStreamFromClassic builds a synthetic -k case (SyntheticUDPStream)
// from the numbers of a captured classic UDP_STREAM table (udp-stream,
// udp-stream-loss): the messages sent and received, both throughputs, the
// message size and the elapsed time. The output is not what netperf
// printed; the case says so (Synthetic, Source is the capture's ID).
//
// Similar to: reading the two lines of netperf's UDP table into -k form.
func UDPStreamFromClassic(c *Case) (*Case, error) {
	if c == nil || c.Tool != "netperf" {
		return nil, fmt.Errorf("%w: not a netperf case", ErrWrongTool)
	}
	cli, ok := c.Side("client")
	if !ok {
		return nil, fmt.Errorf("%w: %s has no client", ErrNotKeyVal, c.ID)
	}
	res, err := netperf.ParseClassic(bytes.NewReader(cli.Stdout))
	if err != nil {
		return nil, fmt.Errorf("rocekittest: %s: %w", c.ID, err)
	}
	if res.UDP == nil || res.UDP.SendMbps == nil || res.UDP.RecvMbps == nil || res.Classic == nil ||
		res.Classic.UDPSend == nil {
		return nil, fmt.Errorf("%w: %s is not a classic UDP_STREAM table", ErrNotKeyVal, c.ID)
	}
	row := res.Classic.UDPSend
	s := SyntheticUDPStream(UDPStreamNumbers{Sent: res.UDP.Sent, Received: res.UDP.Received,
		MessageSize: row.MessageBytes, SendMbps: *res.UDP.SendMbps, RecvMbps: *res.UDP.RecvMbps,
		Elapsed: time.Duration(row.ElapsedSec * float64(time.Second))})
	s.ID, s.Name, s.Source = "synthetic/netperf/"+c.Name, c.Name, c.ID
	s.Note = "synthetic -k form of the classic table of " + c.ID
	s.Kernel, s.ToolVersion = c.Kernel, c.ToolVersion
	return s, nil
}
