package rocekittest_test

import (
	"context"
	"errors"
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rocekittest"
)

func ctx(t *testing.T) context.Context { return labtest.Context(t, 30*time.Second) }

func lookup(t *testing.T, id string) *rocekittest.Case {
	t.Helper()
	c, err := rocekittest.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCatalog: both suites are embedded with their metadata, every case
// loads, and bad IDs fail with ErrNoCase.
func TestCatalog(t *testing.T) {
	ids := rocekittest.IDs()
	if len(ids) < 120 {
		t.Fatalf("%d cases, want the two suites' perftest and netperf captures (>120)", len(ids))
	}
	for _, id := range ids {
		c := lookup(t, id)
		if c.Suite == rocekittest.RealworldSuite {
			if c.Source == "" || len(c.Files) == 0 || c.Group == "" {
				t.Errorf("%s: source %q, %d files", id, c.Source, len(c.Files))
			}
			continue // its command is as the source wrote it, shell and all
		}
		if c.Suite == "" || c.ToolVersion == "" || len(c.Sides) == 0 {
			t.Errorf("%s: suite %q version %q sides %d", id, c.Suite, c.ToolVersion, len(c.Sides))
		}
		for _, s := range c.Sides {
			if strings.ContainsAny(s.Command, `'"`) {
				t.Errorf("%s: quoted command %q split on blanks", id, s.Command)
			}
		}
	}
	c := lookup(t, "trixie/perftest/send-bw-gbits")
	cli, _ := c.Side("client")
	if c.ToolVersion != "25.01.0+0.80-1 (Version: 6.24)" || cli.Exit != 0 || cli.Argv[0] != "ib_send_bw" ||
		cli.Argv[len(cli.Argv)-1] != "198.18.0.1" || !strings.Contains(string(cli.Stdout), "Gb/sec") {
		t.Errorf("send-bw-gbits: %q %+v", c.ToolVersion, cli)
	}
	old, err := rocekittest.Cases("perftest", "4.5")
	if err != nil || len(old) < 30 || old[0].Suite != "bookworm" {
		t.Errorf("perftest 4.5 cases: %d, err %v", len(old), err)
	}
	for _, id := range []string{"", "trixie/perftest/none", "../x/y", "trixie/perftest", "a/b/c/d"} {
		if _, err := rocekittest.Lookup(id); !errors.Is(err, rocekittest.ErrNoCase) {
			t.Errorf("Lookup(%q): %v, want ErrNoCase", id, err)
		}
	}
}

// TestProgram: wrappers are seen through, and the perftest role is read
// from the arguments.
func TestProgram(t *testing.T) {
	for _, c := range []struct {
		argv       string
		prog, role string
	}{
		{"ib_send_bw -d rxe0 -p 18515", "ib_send_bw", "server"},
		{"taskset -c 2,3 ib_send_bw -d rxe0 198.18.0.1", "ib_send_bw", "client"},
		{"stdbuf -oL -eL taskset 0x3 /usr/bin/ib_write_bw -F", "ib_write_bw", "server"},
		{"env A=1 nice -n 5 stdbuf -o L ib_read_lat -x 1 h", "ib_read_lat", "client"},
		{"taskset", "", "server"},
	} {
		prog, args := rocekittest.Program(strings.Fields(c.argv))
		if role := rocekittest.PerftestRole(args); prog != c.prog || role != c.role {
			t.Errorf("%q: %q %q, want %q %q", c.argv, prog, role, c.prog, c.role)
		}
	}
}

// TestFakePairTrials: the pair trials of issue 16 on real captures.
func TestFakePairTrials(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		srv, cli, err := rocekittest.FakePair(lookup(t, "trixie/perftest/send-bw"))
		if err != nil {
			t.Fatal(err)
		}
		pr, err := perftest.RunPair(ctx(t), srv, cli, "198.18.0.1", perftest.Options{Test: perftest.SendBW, Port: 18600, Client: perftest.End{CPUs: []int{2}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(pr.Client.Result.BW) != 1 || pr.Client.Result.BW[0].Bytes != 65536 || pr.Server.Outcome() != "exit status 0" {
			t.Errorf("client rows %+v, server %s", pr.Client.Result.BW, pr.Server.Outcome())
		}
		if c := cli.Calls()[0]; !slices.Equal(c.CPUs, []int{2}) {
			t.Errorf("client CPUs %v", c.CPUs)
		}
	})
	t.Run("connect failure", func(t *testing.T) {
		srv, cli, _ := rocekittest.FakePair(lookup(t, "trixie/perftest/send-bw-noserver"))
		_, err := perftest.RunPair(ctx(t), srv, cli, "198.18.0.1", perftest.Options{Test: perftest.SendBW})
		var pe *perftest.Error
		if !errors.As(err, &pe) || pe.Kind != perftest.KindConnectFailed {
			t.Errorf("err %v, want KindConnectFailed", err)
		}
	})
	t.Run("header mismatch", func(t *testing.T) {
		srv, cli, _ := rocekittest.FakePair(lookup(t, "trixie/perftest/send-bw-size-mismatch"))
		pr, err := perftest.RunPair(ctx(t), srv, cli, "198.18.0.1", perftest.Options{Test: perftest.SendBW})
		if !errors.Is(err, perftest.ErrHeaderMismatch) || len(pr.Mismatches) == 0 || pr.Mismatches[0].Field != "size" {
			t.Errorf("err %v, mismatches %v, want a size mismatch", err, pr.Mismatches)
		}
	})
	t.Run("no such device", func(t *testing.T) {
		srv, cli, _ := rocekittest.FakePair(lookup(t, "bookworm/perftest/send-bw-nosuchdev"))
		pr, err := perftest.RunPair(ctx(t), srv, cli, "h", perftest.Options{Test: perftest.SendBW})
		var pe *perftest.Error
		if !errors.As(err, &pe) || pe.Kind != perftest.KindDeviceNotFound || pr.Client.Outcome() != "not started" {
			t.Errorf("err %v, client %s, want KindDeviceNotFound and a client not started", err, pr.Client.Outcome())
		}
	})
	t.Run("one-sided case refused", func(t *testing.T) {
		// "ib_send_bw --version" ran on one side only: no pair to play,
		// where a fake would answer an empty server and client that exit 0.
		for _, id := range []string{"trixie/perftest/version", "bookworm/perftest/version"} {
			srv, cli, err := rocekittest.FakePair(lookup(t, id))
			if !errors.Is(err, rocekittest.ErrNotPair) || srv != nil || cli != nil || !strings.Contains(err.Error(), id) {
				t.Errorf("FakePair(%s) = %v, %v, %v; want ErrNotPair naming the case", id, srv, cli, err)
			}
		}
	})
	t.Run("wrong program", func(t *testing.T) {
		srv, cli, _ := rocekittest.FakePair(lookup(t, "trixie/perftest/send-bw"))
		_, err := perftest.RunPair(ctx(t), srv, cli, "h", perftest.Options{Test: perftest.WriteBW})
		if !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("err %v, want exec.ErrNotFound", err)
		}
	})
}

// TestFakeNetperfTrials: netserver and netperf on -k captures, a missing
// netserver, classic captures refused, UDP loss through the builders.
func TestFakeNetperfTrials(t *testing.T) {
	f, err := rocekittest.FakeNetperf(lookup(t, "trixie/netperf/udp-stream-k"))
	if err != nil {
		t.Fatal(err)
	}
	ns, err := netperf.StartNetserver(ctx(t), f, netperf.ServerOptions{Port: 13000})
	if err != nil {
		t.Fatal(err)
	}
	res, err := netperf.Run(ctx(t), f, netperf.Options{Test: netperf.TestUDPStream, Port: ns.Port(), Host: "198.18.0.2"})
	if err != nil || res.UDP == nil || res.UDP.Sent != 40409 || res.UDP.Received != 31017 {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if err := ns.Stop(ctx(t)); err != nil {
		t.Error(err)
	}

	f, _ = rocekittest.FakeNetperf(lookup(t, "trixie/netperf/noserver"))
	if _, err := netperf.StartNetserver(ctx(t), f, netperf.ServerOptions{}); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("netserver: %v, want exec.ErrNotFound", err)
	}
	var ne *netperf.Error
	if _, err := netperf.Run(ctx(t), f, netperf.Options{Test: netperf.TestTCPStream}); !errors.As(err, &ne) || ne.Kind != netperf.KindNoServer {
		t.Errorf("netperf: %v, want KindNoServer", err)
	}

	loss := lookup(t, "trixie/netperf/udp-stream-loss")
	if _, err := rocekittest.FakeNetperf(loss); !errors.Is(err, rocekittest.ErrNotKeyVal) {
		t.Errorf("classic capture: %v, want ErrNotKeyVal", err)
	}
	syn, err := rocekittest.UDPStreamFromClassic(loss)
	if err != nil || !syn.Synthetic || syn.Source != "trixie/netperf/udp-stream-loss" {
		t.Fatalf("synthetic %+v, err %v", syn, err)
	}
	f, _ = rocekittest.FakeNetperf(syn)
	res, err = netperf.Run(ctx(t), f, netperf.Options{Test: netperf.TestUDPStream, MessageSize: 8000})
	if err != nil || res.UDP.Sent != 6270 || res.UDP.Received != 1838 || math.Abs(res.UDP.LossRatio-(1-1838.0/6270)) > 1e-9 {
		t.Fatalf("loss run %+v, err %v", res.UDP, err)
	}

	f, _ = rocekittest.FakeNetperf(rocekittest.SyntheticUDPStream(rocekittest.UDPStreamNumbers{Sent: 1000, Received: 900, Elapsed: time.Second}))
	res, err = netperf.Run(ctx(t), f, netperf.Options{Test: netperf.TestUDPStream})
	if err != nil || *res.ThroughputMbps != 10.08 || *res.UDP.SendMbps != 11.2 || res.UDP.LossRatio < 0.0999 || res.UDP.LossRatio > 0.1001 {
		t.Fatalf("synthetic run %+v %v, err %v", res.UDP, res.ThroughputMbps, err)
	}
}
