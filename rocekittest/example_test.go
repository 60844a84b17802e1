package rocekittest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rocekittest"
)

// A case is looked up by suite, tool and name; its sides carry the exact
// commands and exit codes of the lab run.
func ExampleLookup() {
	c, _ := rocekittest.Lookup("bookworm/perftest/send-bw-noserver")
	cli, _ := c.Side("client")
	fmt.Println(c.ToolVersion)
	fmt.Println(cli.Command, "exit", cli.Exit)
	// Output:
	// 4.5+0.17-1 (Version: 6.06)
	// ib_send_bw -d rxe0 -x 1 -F -n 300 -p 18547 198.18.0.1 exit 1
}

// Cases picks the captures of one tool release.
func ExampleCases() {
	cs, _ := rocekittest.Cases("netperf", "2.7.0-0.1")
	fmt.Println(len(cs) > 20, cs[0].Suite, cs[0].ToolVersion)
	// Output: true bookworm 2.7.0-0.1 (Netperf version 2.7.0)
}

// FakePair plays a captured pair to perftest.RunPair: the server listens
// on the port RunPair gives it and the client prints what it printed.
func ExampleFakePair() {
	c, _ := rocekittest.Lookup("trixie/perftest/send-bw-gbits")
	srv, cli, _ := rocekittest.FakePair(c)
	pr, err := perftest.RunPair(context.Background(), srv, cli, "198.18.0.1",
		perftest.Options{Test: perftest.SendBW, ReportGbits: true, Port: 18600})
	fmt.Println(err, pr.Client.Result.BW[0].Bytes, pr.Server.Outcome())
	// Output: <nil> 65536 exit status 0
}

// One PerftestFake serves both sides when server and client share a host,
// each by the role its command line shows.
func ExamplePerftestFake() {
	c, _ := rocekittest.Lookup("trixie/perftest/send-bw-size-mismatch")
	f := rocekittest.PerftestFake(c, "loopback")
	pr, err := perftest.RunPair(context.Background(), f, f, "127.0.0.1", perftest.Options{Test: perftest.SendBW})
	fmt.Println(errors.Is(err, perftest.ErrHeaderMismatch), pr.Mismatches)
	// Output: true [size: server 65536, client 4096]
}

// FakeNetperf plays a -k capture to netperf.StartNetserver and Run.
func ExampleFakeNetperf() {
	c, _ := rocekittest.Lookup("trixie/netperf/udp-stream-k")
	f, _ := rocekittest.FakeNetperf(c)
	ctx := context.Background()
	ns, _ := netperf.StartNetserver(ctx, f, netperf.ServerOptions{})
	defer ns.Stop(ctx)
	res, err := netperf.Run(ctx, f, netperf.Options{Test: netperf.TestUDPStream, Port: ns.Port()})
	fmt.Println(err, res.UDP.Sent, res.UDP.Received)
	// Output: <nil> 40409 31017
}

// Classic captures do not fit netperf.Run, and say so.
func ExampleCase_FitsNetperfRun() {
	c, _ := rocekittest.Lookup("trixie/netperf/udp-stream-loss")
	fmt.Println(errors.Is(c.FitsNetperfRun(), rocekittest.ErrNotKeyVal))
	// Output: true
}

// SyntheticUDPStream makes the loss a test needs, marked as synthetic.
func ExampleSyntheticUDPStream() {
	c := rocekittest.SyntheticUDPStream(rocekittest.UDPStreamNumbers{Sent: 1000, Received: 750})
	f, _ := rocekittest.FakeNetperf(c)
	res, _ := netperf.Run(context.Background(), f, netperf.Options{Test: netperf.TestUDPStream})
	fmt.Println(c.Synthetic, res.UDP.LossRatio)
	// Output: true 0.25
}

// UDPStreamFromClassic carries a classic capture's numbers into -k form.
func ExampleUDPStreamFromClassic() {
	c, _ := rocekittest.Lookup("trixie/netperf/udp-stream-loss")
	s, _ := rocekittest.UDPStreamFromClassic(c)
	cli, _ := s.Side("client")
	fmt.Println(s.Synthetic, s.Source)
	fmt.Println(strings.Split(string(cli.Stdout), "\n")[4:6])
	// Output:
	// true trixie/netperf/udp-stream-loss
	// [LOCAL_SEND_CALLS=6270 REMOTE_RECV_CALLS=1838]
}

// Program sees through the wrappers a framework puts in front of a tool.
func ExampleProgram() {
	prog, args := rocekittest.Program(strings.Fields("taskset -c 2 stdbuf -oL -eL ib_send_bw -d rxe0 198.18.0.1"))
	fmt.Println(prog, rocekittest.PerftestRole(args))
	// Output: ib_send_bw client
}

// IDs lists every embedded case.
func ExampleIDs() {
	ids := rocekittest.IDs()
	fmt.Println(ids[0])
	// Output: bookworm/ethtool/nic-a-channels
}

// SyntheticBW keeps a capture's real header and fills its table with the
// numbers a test needs, here a 100 Gb/s-class pair at 9.5 Gb/s.
func ExampleSyntheticBW() {
	tmpl, _ := rocekittest.Lookup("trixie/perftest/send-bw-gbits")
	c, _ := rocekittest.SyntheticBW(tmpl, []perftest.BWRow{{Bytes: 65536, Iterations: 5000, BWAvgGbps: 9.5, MsgRateMpps: 0.018119}})
	srv, cli, _ := rocekittest.FakePair(c)
	pr, err := perftest.RunPair(context.Background(), srv, cli, "198.18.0.1",
		perftest.Options{Test: perftest.SendBW, ReportGbits: true, Port: 18600})
	fmt.Println(err, c.Synthetic, c.Source, pr.Client.Result.BW[0].BWAvgGbps)
	// Output: <nil> true trixie/perftest/send-bw-gbits 9.5
}
