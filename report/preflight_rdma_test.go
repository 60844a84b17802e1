package report

import (
	"strings"
	"testing"
)

// TestCheckRDMAPreflight: each check on made-up facts (the readers are
// tested on real namespaces in runbook): a missing tool named with its
// packages, firewall rules on 18515 and 4791 quoted with what they cause,
// no RoCE v2 socket, a port not ACTIVE, an address that does not answer
// and one that does not carry the MTU; a clean pair gives one info.
func TestCheckRDMAPreflight(t *testing.T) {
	all := map[string]string{"ib_send_bw": "/usr/bin/ib_send_bw", "ib_send_lat": "/usr/bin/ib_send_lat", "rdma": "/usr/bin/rdma", "netperf": "/usr/bin/netperf", "netserver": "/usr/bin/netserver"}
	good := func(role string) RDMAFacts {
		tools := map[string]string{}
		for k, v := range all {
			tools[k] = v
		}
		return RDMAFacts{Role: role, Host: "h-" + role, Netdev: "eth0", Tools: tools, SoftRoCE: true, RoCEv2Known: true,
			RoCEv2Bound: []string{"0.0.0.0:4791"}, Device: "rxe0", PortState: "ACTIVE LINK_UP", PortActive: true, Addr: "198.18.0.1",
			Reach: []Reach{{To: "other", Addr: "198.18.0.2", Answered: true, MTU: 9000, Carried: true}}}
	}
	fs := CheckRDMAPreflight([]RDMAFacts{good("near"), good("far")}, nil)
	if len(fs) != 1 || fs[0].Rule != RuleRDMAPreflightReady || fs[0].Severity != SeverityInfo || !strings.HasPrefix(fs[0].Summary, "near and far: ") {
		t.Fatalf("clean pair: %+v", fs)
	}

	near, far := good("near"), good("far")
	near.Tools["ib_send_lat"], near.Tools["netserver"] = "", ""
	far.FirewallBlocks = []string{"tcp/18515: inet filter input: tcp dport 18515 drop (line 4)", "udp/4791: inet filter input: udp dport 4791 drop (line 5)"}
	far.RoCEv2Bound = nil
	far.PortState, far.PortActive = "DOWN DISABLED", false
	far.Netns = "nsb"
	near.Reach = []Reach{{To: "far", Addr: "198.18.0.2", MTU: 9000, Why: "no reply"}}
	far.Reach = []Reach{{To: "near", Addr: "198.18.0.1", Answered: true, MTU: 9000, Largest: 1500, Why: "no reply to a 9000-byte DF echo"}}
	fs = CheckRDMAPreflight([]RDMAFacts{near, far}, []string{"ib_send_bw", "ib_send_lat"})
	got := map[string][]Finding{}
	for _, f := range fs {
		got[f.Rule] = append(got[f.Rule], f)
	}
	if m := got[RuleRDMAToolMissing]; len(m) != 2 || m[0].Severity != SeverityCritical || m[0].Summary != "near (h-near): ib_send_lat is not installed (not in PATH)" ||
		m[0].Action != "install it: apt install perftest (Debian/Ubuntu) or dnf install perftest (RHEL)" ||
		m[1].Severity != SeverityWarning || !strings.Contains(m[1].Action, "apt install netperf") || !strings.Contains(m[1].Action, "EPEL") {
		t.Errorf("tools: %+v", m)
	}
	if m := got[RuleRDMAFirewall]; len(m) != 2 || !strings.Contains(m[0].Summary, "tcp dport 18515 drop (line 4)") || !strings.Contains(m[0].Summary, "Waiting for client") ||
		!strings.Contains(m[1].Summary, "udp dport 4791 drop") || !strings.Contains(m[1].Action, "udp dport 4791 accept") {
		t.Errorf("firewall: %+v", m)
	}
	if m := got[RuleRoCEv2Unbound]; len(m) != 1 || !strings.HasPrefix(m[0].Summary, "far (h-far): nothing is bound to UDP 4791") {
		t.Errorf("4791: %+v", m)
	}
	if m := got[RuleRDMAPortNotActive]; len(m) != 1 || m[0].Summary != "far (h-far): rxe0 port 1 is DOWN DISABLED, not ACTIVE LINK_UP" || !strings.Contains(m[0].Action, "ip -n nsb link set eth0 up") {
		t.Errorf("port: %+v", m)
	}
	if m := got[RuleGIDUnreachable]; len(m) != 1 || m[0].Severity != SeverityCritical || m[0].Summary != "near (h-near): far's GID address 198.18.0.2 does not answer an echo from here (no reply)" {
		t.Errorf("unreachable: %+v", m)
	}
	if m := got[RuleGIDPathMTU]; len(m) != 1 || !strings.Contains(m[0].Summary, "not a 9000-byte don't-fragment echo") || !strings.Contains(m[0].Summary, "the path carries 1500") ||
		!strings.Contains(m[0].Action, "ping -M do -s 1472 198.18.0.1") {
		t.Errorf("path MTU: %+v", m)
	}
	if len(got[RuleRDMAPreflightReady]) != 0 || fs[0].Severity != SeverityCritical {
		t.Errorf("sorted / ready: %+v", fs)
	}

	// A socket only in the host's namespace is said, not called broken;
	// hardware RoCE looks for none; no device at all is critical.
	far = good("far")
	far.Netns, far.RoCEv2Bound, far.RoCEv2BoundHost = "nsb", nil, []string{"0.0.0.0:4791"}
	hw := good("near")
	hw.SoftRoCE, hw.RoCEv2Bound, hw.Device = false, nil, ""
	fs = CheckRDMAPreflight([]RDMAFacts{hw, far}, nil)
	if len(fs) != 2 || fs[0].Rule != RuleRDMANoDevice || fs[1].Rule != RuleRoCEv2HostNetns || !strings.Contains(fs[1].Summary, "not in namespace nsb") {
		t.Errorf("%+v", fs)
	}
}
