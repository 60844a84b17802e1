package topo

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/netperf"
)

func exists(ns string) bool {
	_, err := os.Stat(filepath.Join(host.NetnsDir, ns))
	return err == nil
}

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates network namespaces")
	}
}

// TestRootPairNetperf: a pair carries a real UDP_STREAM between its
// namespaces at the MTU asked, and Close leaves no namespace behind.
func TestRootPairNetperf(t *testing.T) {
	needRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := fmt.Sprintf("tp%d", os.Getpid()%100000)
	p, err := NewPair(ctx, filepath.Join(t.TempDir(), "j"), PairSpec{Name: name, MTU: 9000, Subnet: netip.MustParsePrefix("198.18.101.0/24")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if p.A.Addr.String() != "198.18.101.1" || p.B.Addr.String() != "198.18.101.2" || !exists(p.A.Netns) || !exists(p.B.Netns) {
		t.Fatalf("pair %+v", p)
	}
	out, err := host.Run(ctx, p.A.Runner(), host.Cmd{Argv: []string{"ip", "-o", "link", "show", p.A.Netdev}})
	if err != nil || !strings.Contains(out.Stdout().String(), "mtu 9000") {
		t.Fatalf("ip link show: %v %q", err, out.Stdout().String())
	}
	ns, err := netperf.StartNetserver(ctx, p.B.Runner(), netperf.ServerOptions{Port: 12901})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Stop(ctx)
	res, err := netperf.Run(ctx, p.A.Runner(), netperf.Options{Test: netperf.TestUDPStream, Host: p.B.Addr.String(),
		Port: 12901, Length: time.Second, MessageSize: 1400})
	if err != nil {
		t.Fatal(err)
	}
	if res.UDP == nil || res.UDP.Sent == 0 || res.UDP.Received == 0 {
		t.Fatalf("UDP %+v", res.UDP)
	}
	t.Logf("UDP_STREAM across the veth: sent %d received %d, %.0f Mbit/s", res.UDP.Sent, res.UDP.Received, *res.ThroughputMbps)
	ns.Stop(ctx)
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if exists(p.A.Netns) || exists(p.B.Netns) {
		t.Errorf("after Close: %s %v, %s %v", p.A.Netns, exists(p.A.Netns), p.B.Netns, exists(p.B.Netns))
	}
	if err := p.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestRootPairFailedSetup: a setup that fails halfway (an rxe link where
// the kernel has no rdma_rxe, or a namespace name that is taken) removes
// what it made before returning the error.
func TestRootPairFailedSetup(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	name := fmt.Sprintf("tf%d", os.Getpid()%100000)
	// B's namespace exists already: A is made, then B fails.
	if err := os.MkdirAll(host.NetnsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := host.Run(ctx, host.Local{}, host.Cmd{Argv: []string{"ip", "netns", "add", name + "-b"}}); err != nil {
		t.Fatal(err)
	}
	defer host.Run(ctx, host.Local{}, host.Cmd{Argv: []string{"ip", "netns", "del", name + "-b"}})
	_, err := NewPair(ctx, filepath.Join(t.TempDir(), "j"), PairSpec{Name: name})
	if err == nil {
		t.Fatal("NewPair over a taken namespace succeeded")
	}
	if exists(name+"-a") || !exists(name+"-b") {
		t.Errorf("after the failure: %s-a exists %v (want false), %s-b %v (want true, not ours)", name, exists(name+"-a"), name, exists(name+"-b"))
	}

	name = fmt.Sprintf("tr%d", os.Getpid()%100000)
	p, err := NewPair(ctx, filepath.Join(t.TempDir(), "j2"), PairSpec{Name: name, RXE: true})
	if err == nil {
		t.Logf("this kernel has rdma_rxe: %s made", p.RXE)
		if err := p.Close(ctx); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("rxe step failed as expected here: %v", err)
	}
	if exists(name+"-a") || exists(name+"-b") {
		t.Errorf("namespaces left after the rxe setup: %v %v", exists(name+"-a"), exists(name+"-b"))
	}
}

// TestPlan: specs outside the test range or with long names are refused.
func TestPlan(t *testing.T) {
	for _, s := range []PairSpec{
		{},
		{Name: "thirteen-long"},
		{Name: "x", Subnet: netip.MustParsePrefix("10.0.0.0/24")},
		{Name: "x", Subnet: netip.MustParsePrefix("198.18.0.0/31")},
		{Name: "x", Subnet: netip.MustParsePrefix("2001:db8::/64")},
		{Name: "a/b"},
	} {
		if _, err := plan(s); !errors.Is(err, ErrInvalidSpec) {
			t.Errorf("%+v: %v, want ErrInvalidSpec", s, err)
		}
	}
	p, err := plan(PairSpec{Name: "x"})
	if err != nil || p.A.Addr.String() != "198.18.100.1" || p.B.Netdev != "x-b0" || p.Subnet.Bits() != 24 {
		t.Errorf("default plan %+v, %v", p, err)
	}
}
