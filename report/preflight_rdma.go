package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocekit/rocekit/internal/warnjson"
)

// RDMAFacts is what the soft-RoCE preflight read on one end of a pair
// before the first test (runbook.Sides.PreflightRDMA).
type RDMAFacts struct {
	Role   string `json:"role"` // "near", "far"
	Host   string `json:"host"` // hostname
	Netns  string `json:"netns,omitempty"`
	Netdev string `json:"netdev"`
	// Tools maps each program the tests run to its path on the end; ""
	// is missing.
	Tools map[string]string `json:"tools"`
	// FirewallBlocks quote the rules that stop perftest's exchange port or
	// RoCE v2, each with its port ("udp/4791: inet filter input: udp dport
	// 4791 drop (line 4)").
	FirewallBlocks []string `json:"firewall_blocks,omitempty"`
	// ServerPort is the exchange port the end's perftest server will
	// listen on (0: the end runs no server); ServerPortBusy says a socket
	// already listens there (a server left running from an earlier test).
	ServerPort     int  `json:"server_port,omitempty"`
	ServerPortBusy bool `json:"server_port_busy,omitempty"`
	// SoftRoCE says the end's RDMA device is rdma_rxe (a parent netdev in
	// sysfs, or asked so): only then is UDP 4791 a socket to look for.
	SoftRoCE bool `json:"soft_roce"`
	// RoCEv2Bound lists the UDP 4791 sockets of the end's namespace
	// (rdma_rxe's), RoCEv2BoundHost those of the host's initial namespace
	// when the end is in another one (kernels whose rxe keeps its socket
	// there); RoCEv2Known is false when they could not be read.
	RoCEv2Bound     []string `json:"rocev2_bound,omitempty"`
	RoCEv2BoundHost []string `json:"rocev2_bound_host,omitempty"`
	RoCEv2Known     bool     `json:"rocev2_known"`
	// Device is the RDMA device on the netdev ("" when there is none);
	// PortState its port 1 as `rdma link show` prints it ("ACTIVE
	// LINK_UP"), "" when not read.
	Device     string `json:"device,omitempty"`
	PortState  string `json:"port_state,omitempty"`
	PortActive bool   `json:"port_active"`
	// GID is the chosen GID entry as show_gids prints it, Addr the
	// address the other end is sent to.
	GID  string `json:"gid,omitempty"`
	Addr string `json:"addr,omitempty"`
	// Reach are this end's probes of the other end's address.
	Reach []Reach `json:"reach,omitempty"`
	// Warnings say what could not be read: errors in Go, strings in
	// JSON.
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// Reach is one probe from an end to the other's address: a don't-fragment
// echo of the netdev's MTU (nic.Handle.ProbeMTU, or ping -M do).
type Reach struct {
	To   string `json:"to"`   // the other end's role
	Addr string `json:"addr"` // its address
	// Answered says an echo came back; Carried that one of MTU bytes did.
	Answered bool   `json:"answered"`
	MTU      int    `json:"mtu,omitempty"`
	Carried  bool   `json:"carried"`
	Largest  int    `json:"largest,omitempty"` // the largest size that came back, when not MTU
	Why      string `json:"why,omitempty"`     // what failed, in the probe's words
	Unknown  bool   `json:"unknown,omitempty"` // the probe could not run (no ping, no raw socket)
	Method   string `json:"method,omitempty"`  // "ProbeMTU", "ping"
}

// RDMATool is a program the soft-RoCE and UDP runbooks run, with the
// package that ships it.
type RDMATool struct {
	Name   string
	Debian string // Debian and Ubuntu package
	RHEL   string // RHEL, Rocky, Alma, Fedora package
	Note   string // where the package lives when not in the base repository
}

// RDMATools are the programs the runbooks run on both ends (the
// soft-RoCE runbook's `apt install rdma-core perftest iproute2`, and
// netperf for the UDP one).
var RDMATools = []RDMATool{
	{"ib_send_bw", "perftest", "perftest", ""},
	{"ib_send_lat", "perftest", "perftest", ""},
	{"rdma", "iproute2", "iproute", ""},
	{"netperf", "netperf", "netperf", "Debian's non-free, Ubuntu's multiverse, EPEL on RHEL"},
	{"netserver", "netperf", "netperf", "Debian's non-free, Ubuntu's multiverse, EPEL on RHEL"},
}

// RDMAPorts are the ports the preflight checks the firewall for:
// perftest's out-of-band exchange (TCP 18515 unless -p) and RoCE v2 (UDP
// 4791).
const (
	PerftestPort = 18515
	RoCEv2Port   = 4791
)

// Rules of the soft-RoCE preflight's findings.
const (
	RuleRDMAToolMissing    = "preflight_rdma_tool_missing"
	RuleRDMAFirewall       = "preflight_rdma_firewall_blocks"
	RuleRoCEv2Unbound      = "preflight_rocev2_port_unbound"
	RuleRoCEv2HostNetns    = "preflight_rocev2_port_host_netns"
	RuleRDMAPortNotActive  = "preflight_rdma_port_not_active"
	RuleRDMANoDevice       = "preflight_rdma_no_device"
	RuleGIDUnreachable     = "preflight_gid_unreachable"
	RuleGIDPathMTU         = "preflight_gid_path_mtu"
	RuleGIDReachUnknown    = "preflight_gid_reach_unknown"
	RuleRDMAPreflightReady = "preflight_rdma_ready"
	RuleRDMANotRead        = "preflight_rdma_not_read"
	RulePerftestPortBusy   = "preflight_perftest_port_in_use"
)

// CheckRDMAPreflight runs the soft-RoCE runbook's troubleshooting on both
// ends before the first pair, so that "stuck at Waiting for client" (which
// the runbook blames on the firewall nine times in ten) is named before it
// happens: the tools present (each missing one with its package on
// Debian/Ubuntu and RHEL), a firewall rule stopping perftest's exchange
// port or RoCE v2 (quoted), rdma_rxe's UDP 4791 socket bound, the RDMA
// port ACTIVE, and each end's chosen GID address answering the other's
// don't-fragment echo at the MTU. need names the tools the coming tests
// run (nil: every RDMATools entry); a missing tool outside it is a warning.
// When nothing is found, one info finding says what was checked.
//
// Similar to: which ib_send_bw; nft list ruleset; ss -ulnp | grep 4791; rdma link show; ping -M do -s 8972 PEER
func CheckRDMAPreflight(ends []RDMAFacts, need []string) []Finding {
	var fs []Finding
	for _, e := range ends {
		fs = append(fs, checkRDMAEnd(e, need)...)
	}
	if len(fs) == 0 && len(ends) > 0 {
		var roles []string
		for _, e := range ends {
			roles = append(roles, e.Role)
		}
		fs = append(fs, Finding{Rule: RuleRDMAPreflightReady, Severity: SeverityInfo,
			Summary: strings.Join(roles, " and ") + ": tools present, no firewall rule in the way of TCP 18515 or UDP 4791, RoCE v2 socket bound, ports ACTIVE, addresses answer each other"})
	}
	SortFindings(fs)
	return fs
}

func checkRDMAEnd(e RDMAFacts, need []string) []Finding {
	where := e.Role
	if e.Host != "" {
		where += " (" + e.Host + ")"
	}
	var fs []Finding
	add := func(rule string, sev Severity, evs []Evidence, action, format string, args ...any) {
		fs = append(fs, Finding{Rule: rule, Severity: sev, Summary: where + ": " + fmt.Sprintf(format, args...), Evidence: evs, Action: action})
	}
	ipcmd := "ip"
	if e.Netns != "" {
		ipcmd = "ip -n " + e.Netns
	}

	var missing []RDMATool
	for _, t := range RDMATools {
		if p, ok := e.Tools[t.Name]; ok && p == "" {
			missing = append(missing, t)
		}
	}
	for _, t := range missing {
		sev := SeverityCritical
		if need != nil && !slices.Contains(need, t.Name) {
			sev = SeverityWarning
		}
		action := fmt.Sprintf("install it: apt install %s (Debian/Ubuntu) or dnf install %s (RHEL)", t.Debian, t.RHEL)
		if t.Note != "" {
			action += "; the package is in " + t.Note
		}
		add(RuleRDMAToolMissing, sev, nil, action, "%s is not installed (not in PATH)", t.Name)
	}

	for _, b := range e.FirewallBlocks {
		why := "perftest's client cannot exchange QP numbers with the server: it stops at \"Couldn't connect\" and the server at \"Waiting for client\""
		action := "allow TCP 18515 (or the -p port) on this host: nft add rule inet filter input tcp dport 18515 accept; firewall-cmd --add-port=18515/tcp; or stop the firewall for the test"
		if strings.HasPrefix(b, fmt.Sprintf("udp/%d", RoCEv2Port)) {
			why = "RoCE v2 packets are dropped: the QPs connect, then the test hangs or ends in retry-exceeded completions"
			action = "allow UDP 4791 on this host: nft add rule inet filter input udp dport 4791 accept; firewall-cmd --add-port=4791/udp; or stop the firewall for the test"
		}
		add(RuleRDMAFirewall, SeverityCritical, nil, action, "the firewall stops %s: %s", b, why)
	}

	if e.ServerPortBusy {
		add(RulePerftestPortBusy, SeverityCritical, []Evidence{ev("port", float64(e.ServerPort), "port")},
			fmt.Sprintf("find what holds it (ss -tlnp 'sport = :%d'), end it, or give perftest another port (-p)", e.ServerPort),
			"TCP %d already has a listener: perftest's server will fail with \"Couldn't listen to port %d\" (a server left running from an earlier test?)", e.ServerPort, e.ServerPort)
	}
	if e.SoftRoCE && e.RoCEv2Known && len(e.RoCEv2Bound) == 0 {
		if len(e.RoCEv2BoundHost) > 0 {
			add(RuleRoCEv2HostNetns, SeverityInfo, nil, "if pairs fail with retry-exceeded completions, put this end in the host's namespace or use a kernel whose rdma_rxe binds its socket per namespace",
				"UDP %d is bound in the host's initial namespace (%s), not in namespace %s: this kernel's rdma_rxe keeps its RoCE v2 socket there", RoCEv2Port, strings.Join(e.RoCEv2BoundHost, ", "), e.Netns)
		} else {
			add(RuleRoCEv2Unbound, SeverityCritical, nil, fmt.Sprintf("create the rxe link (rdma link add rxe0 type rxe netdev %s) and check with ss -ulnp | grep 4791; a socket that stays unbound means rdma_rxe failed to load (dmesg)", e.Netdev),
				"nothing is bound to UDP %d: rdma_rxe listens there while it has a link, so no RoCE v2 packet will be received", RoCEv2Port)
		}
	}

	switch {
	case e.Device == "":
		add(RuleRDMANoDevice, SeverityCritical, nil, fmt.Sprintf("create one: modprobe rdma_rxe; rdma link add rxe0 type rxe netdev %s (runbook.Sides.PrepareRXE)", e.Netdev),
			"no RDMA device on %s", e.Netdev)
	case e.PortState != "" && !e.PortActive:
		add(RuleRDMAPortNotActive, SeverityCritical, nil, fmt.Sprintf("bring the netdev up (%s link set %s up) and check rdma link show %s/1", ipcmd, e.Netdev, e.Device),
			"%s port 1 is %s, not ACTIVE LINK_UP", e.Device, e.PortState)
	}

	for _, r := range e.Reach {
		evs := []Evidence{ev("mtu", float64(r.MTU), "bytes")}
		switch {
		case r.Unknown:
			add(RuleGIDReachUnknown, SeverityWarning, nil, fmt.Sprintf("check by hand: ping -c 3 -M do -s %d %s", max(r.MTU-28, 56), r.Addr),
				"could not probe %s's address %s: %s", r.To, r.Addr, r.Why)
		case !r.Answered:
			add(RuleGIDUnreachable, SeverityCritical, evs, fmt.Sprintf("ping %s first: check both ends' addresses (%s -4 addr show %s), the route (ip route get %s) and a firewall dropping ICMP; RDMA cannot pass where ping does not", r.Addr, ipcmd, e.Netdev, r.Addr),
				"%s's GID address %s does not answer an echo from here (%s)", r.To, r.Addr, r.Why)
		case !r.Carried:
			if r.Largest > 0 {
				evs = append(evs, ev("largest_mtu", float64(r.Largest), "bytes"))
			}
			action := fmt.Sprintf("set the same MTU on both ends and every switch port between them, or run at the MTU the path carries (ping -M do -s %d %s)", r.Largest-28, r.Addr)
			if r.Largest <= 0 {
				action = fmt.Sprintf("set the same MTU on both ends and every switch port between them; find what the path carries with ping -M do -s SIZE %s, SIZE lowered from %d", r.Addr, r.MTU-28)
			}
			add(RuleGIDPathMTU, SeverityWarning, evs, action,
				"%s's address %s answers, but not a %d-byte don't-fragment echo (%s)%s", r.To, r.Addr, r.MTU, r.Why, largestText(r.Largest))
		}
	}
	for _, w := range e.Warnings {
		add(RuleRDMANotRead, SeverityInfo, nil, "", "not checked: %s", w)
	}
	return fs
}

func largestText(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("; the path carries %d", n)
}
