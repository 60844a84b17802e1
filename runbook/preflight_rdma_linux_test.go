package runbook

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report"
	"github.com/vishvananda/netns"
)

// TestPreflightRDMAInNetns runs the soft-RoCE preflight on two Local
// sides in namespaces joined by a veth: PATH holds only ib_send_bw and
// rdma; the far end's nft drops TCP 18515, UDP 4791 and ICMP echo
// requests; only the near end has a UDP 4791 socket (rdma_rxe's stand-in:
// this kernel has no RDMA). Each is found, with the rule quoted, and the
// echo probes tell the direction that fails from the one that works.
func TestPreflightRDMAInNetns(t *testing.T) { testPreflightRDMA(t) }

// testPreflightRDMA is the test's body, also run in the lab's guests.
func testPreflightRDMA(t *testing.T) {
	if _, err := exec.LookPath("nft"); err != nil {
		t.Skip("nft not installed (apt-get install nftables)")
	}
	nftPath, _ := exec.LookPath("nft")
	ipPath, _ := exec.LookPath("ip")
	near, far := fmt.Sprintf("prn-%d", os.Getpid()), fmt.Sprintf("prf-%d", os.Getpid())
	nsNear, nsFar := labtest.NetnsPair(t, near, far, "pr0", "pr1", "198.18.96.1/24", "198.18.96.2/24")
	nft := exec.Command(ipPath, "netns", "exec", far, nftPath, "-f", "-")
	nft.Stdin = strings.NewReader("table inet filter {\n\tchain input {\n\t\ttype filter hook input priority 0; policy accept;\n" +
		"\t\ttcp dport 18515 drop\n\t\tudp dport 4791 drop\n\t\ticmp type echo-request drop\n\t}\n}\n")
	if out, err := nft.CombinedOutput(); err != nil {
		t.Fatalf("nft: %v: %s", err, out)
	}
	// rdma_rxe's socket on the near end only; a stale perftest server's
	// listener on TCP 18515 on the far end.
	c := inNetns(t, nsNear, func() (io.Closer, error) { return net.ListenUDP("udp4", &net.UDPAddr{Port: 4791}) })
	defer c.Close()
	l := inNetns(t, nsFar, func() (io.Closer, error) { return net.Listen("tcp4", ":18515") })
	defer l.Close()
	// PATH with only ib_send_bw and rdma (and what the sides run: ip, nft).
	bin := t.TempDir()
	for _, name := range []string{"ib_send_bw", "rdma"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{ipPath, nftPath} {
		if err := os.Symlink(p, filepath.Join(bin, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := &Sides{Mode: TwoNetns, Near: &Local{Netns: near}, Far: &Local{Netns: far}, NearNetdev: "pr0", FarNetdev: "pr1"}
	facts, fs, err := s.PreflightRDMA(ctx, RDMAAsk{Tools: []string{"ib_send_bw", "ib_send_lat"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 2 || facts[0].Addr != "198.18.96.1" || facts[1].Addr != "198.18.96.2" || facts[1].Netns != far {
		t.Fatalf("facts %+v", facts)
	}
	if facts[0].Tools["ib_send_bw"] != filepath.Join(bin, "ib_send_bw") || facts[0].Tools["ib_send_lat"] != "" {
		t.Errorf("tools %v", facts[0].Tools)
	}
	by := map[string][]string{}
	for _, f := range fs {
		by[f.Rule] = append(by[f.Rule], string(f.Severity)+" "+f.Summary)
	}
	t.Logf("findings: %q", by)
	check := func(rule string, n int, wants ...string) {
		t.Helper()
		got := by[rule]
		if len(got) != n {
			t.Errorf("%s: %d findings, want %d: %q", rule, len(got), n, got)
			return
		}
		joined := strings.Join(got, "\n")
		for _, w := range wants {
			if !strings.Contains(joined, w) {
				t.Errorf("%s lacks %q: %q", rule, w, got)
			}
		}
	}
	// ib_send_lat, netperf and netserver on each end; ib_send_lat critical.
	check(report.RuleRDMAToolMissing, 6, "critical near", "ib_send_lat is not installed", "warning far", "netserver is not installed")
	check(report.RuleRDMAFirewall, 2, "critical far", "tcp/18515: inet filter input: tcp dport 18515 drop", "udp/4791: inet filter input: udp dport 4791 drop")
	if len(facts[1].RoCEv2BoundHost) > 0 {
		// A kernel with rdma_rxe loaded binds 4791 in the initial
		// namespace (the lab's guests): said, not called broken.
		check(report.RuleRoCEv2HostNetns, 1, "info far", "not in namespace "+far)
	} else {
		check(report.RuleRoCEv2Unbound, 1, "critical far", "nothing is bound to UDP 4791")
	}
	check(report.RuleRDMANoDevice, 2, "no RDMA device on pr0", "no RDMA device on pr1")
	check(report.RulePerftestPortBusy, 1, "critical far", "TCP 18515 already has a listener")
	check(report.RuleGIDUnreachable, 1, "critical near", "far's GID address 198.18.96.2 does not answer an echo from here")
	if len(facts[1].Reach) != 1 || !facts[1].Reach[0].Answered || !facts[1].Reach[0].Carried || facts[1].Reach[0].MTU != 1500 {
		t.Errorf("far to near: %+v", facts[1].Reach)
	}
	if len(facts[0].RoCEv2Bound) != 1 || facts[0].RoCEv2Bound[0] != "0.0.0.0:4791" || !facts[1].RoCEv2Known || facts[1].RoCEv2Bound != nil {
		t.Errorf("4791: near %v, far %v", facts[0].RoCEv2Bound, facts[1].RoCEv2Bound)
	}
}

// inNetns makes a socket on a thread in ns and returns it; the thread goes
// back to its namespace (or is dropped by Go, left locked).
func inNetns(t *testing.T, ns netns.NsHandle, mk func() (io.Closer, error)) io.Closer {
	t.Helper()
	type res struct {
		c   io.Closer
		err error
	}
	ch := make(chan res, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			ch <- res{nil, err}
			return
		}
		defer orig.Close()
		if err := netns.Set(ns); err != nil {
			ch <- res{nil, err}
			return
		}
		c, err := mk()
		if netns.Set(orig) == nil {
			runtime.UnlockOSThread()
		}
		ch <- res{c, err}
	}()
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.c
}
