package rocekittest

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/rocekit/rocekit/host"
)

// FitsNetperfRun reports, as nil or an error wrapping ErrNotKeyVal or
// ErrWrongTool, whether netperf.Run can read the case's client output:
// Run always asks for omni -k key=value lines, so only the captures run
// with -k fit (bookworm and trixie: udp-stream-k, tcp-stream-k-all,
// tcp-rr-k-latency, tcp-stream-confidence-k), and the failures, whose
// message on stderr does not depend on the output form (noserver,
// bad-test). A classic table (udp-stream, udp-stream-loss, ...) does not
// fit; UDPStreamFromClassic turns its numbers into a synthetic -k case.
//
// Similar to: grep -- '-k' testdata/*/netperf/*/case.json
func (c *Case) FitsNetperfRun() error {
	if c == nil || c.Tool != "netperf" {
		return fmt.Errorf("%w: not a netperf case", ErrWrongTool)
	}
	cli, ok := c.Side("client")
	if !ok {
		return fmt.Errorf("%w: %s has no netperf client", ErrNotKeyVal, c.ID)
	}
	if cli.Exit != 0 || slices.Contains(cli.Argv, "-k") || bytes.Contains(cli.Stdout, []byte("\nTHROUGHPUT=")) ||
		bytes.HasPrefix(cli.Stdout, []byte("THROUGHPUT=")) {
		return nil
	}
	return fmt.Errorf("%w: %s printed a classic table (%s)", ErrNotKeyVal, c.ID, cli.Command)
}

// FakeNetperf returns a runner that plays a netperf case for
// netperf.StartNetserver and netperf.Run: "netperf" prints the case's
// client output and exits as it did; "netserver" (when the case has one)
// listens on the -p port of the command it is given (12865 without -p)
// until it is stopped; a case without a netserver (noserver) has none, so
// StartNetserver fails with exec.ErrNotFound and netperf with the
// captured "establish control" message. Both are found through taskset
// and stdbuf prefixes (Program). A case whose output netperf.Run cannot
// read fails with ErrNotKeyVal (FitsNetperfRun).
//
// Similar to: netserver -D & netperf -H HOST -t UDP_STREAM -- -k ..., replayed.
func FakeNetperf(c *Case) (*host.Fake, error) {
	if err := c.FitsNetperfRun(); err != nil {
		return nil, err
	}
	return &host.Fake{Name: "netperf-host", Respond: func(cmd host.Cmd) host.FakeScript {
		prog, args := Program(cmd.Argv)
		switch prog {
		case "netperf":
			cli, _ := c.Side("client")
			return script(cli, 0)
		case "netserver":
			srv, ok := c.Side("server")
			if !ok {
				return notFound(prog)
			}
			s := script(srv, 0)
			s.Hang, s.ExitCode, s.Signal = true, 0, 0
			s.Listen = []uint16{port(args, "-p", netperfPort)}
			return s
		}
		return notFound(prog)
	}}, nil
}
