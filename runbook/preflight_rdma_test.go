package runbook

import (
	"context"
	"encoding/json"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rxe"
)

// fakeRDMASide is a far end that is not a Local (as a Peer is not): its
// facts are given, its echoes go through ping on its runner.
type fakeRDMASide struct {
	Side // nil: only the methods below are called
	host Host
	addr string
	run  host.Runner
}

func (f *fakeRDMASide) Name() string                       { return "fake peer" }
func (f *fakeRDMASide) Runner() host.Runner                { return f.run }
func (f *fakeRDMASide) Host(context.Context) (Host, error) { return f.host, nil }
func (f *fakeRDMASide) Netdev(context.Context, string) (Netdev, error) {
	return Netdev{Addr: f.addr, Snapshot: nic.Snapshot{MTU: 9000}}, nil
}

// TestPreflightRDMAFakes: two ends that are not Locals. One's port is
// DOWN, its rxe socket bound; the other's ping answers a plain echo but
// not the 9000-byte DF one (exit 1 with ping's words): the path MTU is
// named, with the ping command; the device is found by its parent netdev
// and the GID's address is the one probed.
func TestPreflightRDMAFakes(t *testing.T) {
	tools := map[string]string{}
	for _, tl := range report.RDMATools {
		tools[tl.Name] = "/usr/bin/" + tl.Name
	}
	dev := func(name, parent string, st rxe.PortState, ph rxe.PhysState) []rxe.Device {
		return []rxe.Device{{Name: name, Parent: parent, Ports: []rxe.Port{{Device: name, Port: 1, State: st, PhysState: ph}}}}
	}
	nearRun := &host.Fake{Respond: func(c host.Cmd) host.FakeScript {
		if strings.Contains(strings.Join(c.Argv, " "), "-M do") {
			return host.FakeScript{ExitCode: 1, Stdout: "ping: local error: message too long, mtu=1500\n\n--- 198.18.7.2 ping statistics ---\n2 packets transmitted, 0 received, +2 errors, 100% packet loss, time 1001ms\n"}
		}
		return host.FakeScript{Stdout: "2 packets transmitted, 2 received, 0% packet loss, time 1001ms\n"}
	}}
	farRun := &host.Fake{Sockets: []host.TCPSocket{{Local: netip.MustParseAddrPort("0.0.0.0:18515"), State: host.TCPListen}}}
	near := &fakeRDMASide{run: nearRun, addr: "198.18.7.1", host: Host{Hostname: "a", Tools: tools, RoCEv2Known: true,
		RoCEv2Bound: []string{"0.0.0.0:4791"}, RDMADevices: dev("rxe0", "eth0", rxe.PortActive, rxe.PhysLinkUp)}}
	far := &fakeRDMASide{run: farRun, addr: "198.18.7.2", host: Host{Hostname: "b", Tools: tools, RoCEv2Known: true,
		RoCEv2Bound: []string{"0.0.0.0:4791"}, RDMADevices: dev("rxe0", "eth1", rxe.PortDown, rxe.PhysDisabled)}}
	s := &Sides{Mode: TwoHosts, Near: near, Far: far, NearNetdev: "eth0", FarNetdev: "eth1"}
	facts, fs, err := s.PreflightRDMA(context.Background(), RDMAAsk{})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 2 || facts[0].Device != "rxe0" || !facts[0].PortActive || facts[1].PortState != "DOWN DISABLED" {
		t.Fatalf("facts %+v", facts)
	}
	r := facts[0].Reach
	if len(r) != 1 || r[0].Method != "ping" || !r[0].Answered || r[0].Carried || r[0].Addr != "198.18.7.2" ||
		!strings.Contains(r[0].Why, "ping -n -c 2 -W 1 -s 8972 -M do 198.18.7.2") || !strings.Contains(r[0].Why, "100% packet loss") {
		t.Errorf("near's reach %+v", r)
	}
	if r := facts[1].Reach; len(r) != 1 || !r[0].Carried {
		t.Errorf("far's reach %+v", r)
	}
	var rules []string
	for _, f := range fs {
		rules = append(rules, f.Rule)
	}
	if strings.Join(rules, ",") != report.RulePerftestPortBusy+","+report.RuleRDMAPortNotActive+","+report.RuleGIDPathMTU {
		t.Fatalf("rules %v: %+v", rules, fs)
	}
	if !strings.HasPrefix(fs[0].Summary, "far (b): TCP 18515 already has a listener") || facts[0].ServerPort != 0 || facts[1].ServerPort != 18515 {
		t.Errorf("port in use: %+v", fs[0])
	}
	if a := fs[2].Action; !strings.HasSuffix(a, "find what the path carries with ping -M do -s SIZE 198.18.7.2, SIZE lowered from 8972") {
		t.Errorf("path MTU action %q", a)
	}
	// The far end has no ping: unknown, not unreachable.
	farRun.Strict = true
	_, fs, err = s.PreflightRDMA(context.Background(), RDMAAsk{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range fs {
		found = found || f.Rule == report.RuleGIDReachUnknown && strings.Contains(f.Summary, "could not probe near's address 198.18.7.1")
	}
	if !found {
		t.Errorf("no unknown-reach finding: %+v", fs)
	}
}

// TestHostInfoRDMAJSON: what PreflightRDMA reads of a far end crosses
// the peer protocol's JSON whole (the port states included).
func TestHostInfoRDMAJSON(t *testing.T) {
	in := Host{Hostname: "b", Tools: map[string]string{"ib_send_bw": "/usr/bin/ib_send_bw", "netperf": ""}, RoCEv2Known: true,
		RoCEv2Bound: []string{"0.0.0.0:4791", "[::]:4791"}, RDMADevices: []rxe.Device{{Name: "rxe0", Parent: "eth1",
			Ports: []rxe.Port{{Device: "rxe0", Port: 1, State: rxe.PortDown, PhysState: rxe.PhysDisabled}}}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Host
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n%+v\n%+v", in, out)
	}
}

// TestPingSearchesDown: a far end reached with ping whose path carries
// 1500-byte packets but not 9000: the DF echo of 8972 bytes fails with
// ping's own words, a plain one answers, and the search down names 1500
// as the largest MTU that comes back (what the finding's action cites).
func TestPingSearchesDown(t *testing.T) {
	var sizes []string
	run := &host.Fake{Respond: func(c host.Cmd) host.FakeScript {
		argv := strings.Join(c.Argv, " ")
		size := 0
		for i, a := range c.Argv {
			if a == "-s" && i+1 < len(c.Argv) {
				size, _ = strconv.Atoi(c.Argv[i+1])
			}
		}
		if strings.Contains(argv, "-M do") {
			sizes = append(sizes, c.Argv[7])
			if size > 1472 {
				return host.FakeScript{ExitCode: 1, Stdout: "--- 198.18.7.2 ping statistics ---\n2 packets transmitted, 0 received, 100% packet loss, time 1017ms\n"}
			}
		}
		return host.FakeScript{Stdout: "2 packets transmitted, 2 received, 0% packet loss, time 1001ms\n"}
	}}
	r, dst, ok := reachStart(ReachAsk{To: "far", Addr: "198.18.7.2", MTU: 9000})
	if !ok {
		t.Fatal(r)
	}
	r = pingFrom(context.Background(), run, r, dst)
	if !r.Answered || r.Carried || r.Largest != 1500 || !strings.Contains(r.Why, "100% packet loss") {
		t.Errorf("reach %+v", r)
	}
	if got := strings.Join(sizes, ","); got != "8972,8164,4172,4068,2020,1472" {
		t.Errorf("DF sizes tried %s", got)
	}
}
