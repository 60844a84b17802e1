package nic

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
)

func setMTU(t *testing.T, tn *testNetns, name string, mtu int) {
	t.Helper()
	l, err := tn.NL.LinkByName(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := tn.NL.LinkSetMTU(l, mtu); err != nil {
		t.Fatalf("%s mtu %d: %v", name, mtu, err)
	}
}

func probeFrom(t *testing.T, tn *testNetns, dst string, mtu int) MTUProbe {
	t.Helper()
	h, err := Open(Options{Netns: tn.Name})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := h.ProbeMTU(ctx, netip.MustParseAddr(dst), mtu, MTUProbeOptions{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatalf("probe %s at %d: %v (%+v)", dst, mtu, err, res)
	}
	t.Logf("%s; %d probes; evidence %q", res, res.Probes, res.Evidence)
	return res
}

// Jumbo on both hosts, a 1500-byte bridge port between them: the frames
// vanish without a word, and the search finds 1500.
func TestProbeMTUSwitchInTheMiddle(t *testing.T) {
	a, s, b := newNetns(t, "pma"), newNetns(t, "pms"), newNetns(t, "pmb")
	vethPair(t, a, "a0", "198.18.40.1/24", s, "sa", "")
	vethPair(t, s, "sb", "", b, "b0", "198.18.40.2/24")
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: "br0"}}
	if err := s.NL.LinkAdd(br); err != nil {
		t.Fatal(err)
	}
	for _, port := range []string{"sa", "sb"} {
		l, _ := s.NL.LinkByName(port)
		if err := s.NL.LinkSetMaster(l, br); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.NL.LinkSetUp(br); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		tn   *testNetns
		name string
		mtu  int
	}{{a, "a0", 9000}, {s, "sa", 9000}, {s, "sb", 1500}, {b, "b0", 9000}} {
		setMTU(t, e.tn, e.name, e.mtu)
	}
	res := probeFrom(t, a, "198.18.40.2", 9000)
	if res.Carried || res.LargestMTU != 1500 {
		t.Fatalf("got %+v, want not carried, largest 1500", res)
	}
	if !strings.Contains(res.Evidence[0], "9000 B: no reply") {
		t.Errorf("evidence %q", res.Evidence)
	}
	// Once the port carries jumbo frames, so does the path.
	setMTU(t, s, "sb", 9000)
	if res := probeFrom(t, a, "198.18.40.2", 9000); !res.Carried || res.LargestMTU != 9000 || res.Probes > 4 {
		t.Errorf("jumbo path: %+v", res)
	}
}

// A router whose next hop has MTU 1500 says so (fragmentation needed).
func TestProbeMTURouterSaysFragNeeded(t *testing.T) {
	a, r, b := newNetns(t, "pra"), newNetns(t, "prr"), newNetns(t, "prb")
	vethPair(t, a, "a0", "198.18.41.1/24", r, "r0", "198.18.41.254/24")
	vethPair(t, r, "r1", "198.18.42.254/24", b, "b0", "198.18.42.1/24")
	setMTU(t, a, "a0", 9000)
	setMTU(t, r, "r0", 9000)
	r.Run(t, func() {
		if err := os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1"), 0o644); err != nil {
			t.Error(err)
		}
	})
	for _, e := range []struct {
		tn        *testNetns
		dst, via  string
		ifaceName string
	}{{a, "198.18.42.0/24", "198.18.41.254", "a0"}, {b, "198.18.41.0/24", "198.18.42.254", "b0"}} {
		l, _ := e.tn.NL.LinkByName(e.ifaceName)
		_, dst, _ := net.ParseCIDR(e.dst)
		if err := e.tn.NL.RouteAdd(&netlink.Route{LinkIndex: l.Attrs().Index, Dst: dst, Gw: net.ParseIP(e.via)}); err != nil {
			t.Fatal(err)
		}
	}
	res := probeFrom(t, a, "198.18.42.1", 9000)
	if res.Carried || res.LargestMTU != 1500 {
		t.Fatalf("got %+v, want not carried, largest 1500", res)
	}
	if !strings.Contains(res.Evidence[0], "198.18.41.254 says fragmentation needed, next-hop MTU 1500") {
		t.Errorf("evidence %q", res.Evidence)
	}
}

// This host's own netdev MTU is smaller: the kernel refuses the send.
func TestProbeMTULocalNetdevSmaller(t *testing.T) {
	a, b := newNetns(t, "pla"), newNetns(t, "plb")
	vethPair(t, a, "a0", "198.18.43.1/24", b, "b0", "198.18.43.2/24")
	setMTU(t, a, "a0", 4200)
	setMTU(t, b, "b0", 9000)
	res := probeFrom(t, a, "198.18.43.2", 9000)
	if res.Carried || res.LargestMTU != 4200 || !strings.Contains(res.Evidence[0], "EMSGSIZE") {
		t.Errorf("got %+v, want largest 4200 after EMSGSIZE", res)
	}
	h, err := Open(Options{Netns: a.Name})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.ProbeMTU(context.Background(), netip.MustParseAddr("2001:db8::1"), 1500, MTUProbeOptions{}); err == nil {
		t.Error("IPv6 accepted")
	}
	if _, err := h.ProbeMTU(context.Background(), netip.MustParseAddr("198.18.43.2"), 70000, MTUProbeOptions{}); err == nil {
		t.Error("MTU 70000 accepted")
	}
}
