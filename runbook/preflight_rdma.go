package runbook

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rxe"
)

// RDMAAsk is what Sides.PreflightRDMA checks the ends for.
type RDMAAsk struct {
	// Near and Far are PrepareRXE's results: the RDMA device, the chosen
	// GID (whose address the other end must reach) and the netdev MTU. A
	// zero one finds the device by its parent netdev and takes the
	// netdev's IPv4 address.
	Near, Far RXE
	// Port is perftest's exchange port (-p); 0 is its default, 18515.
	Port int
	// Tools are the programs the coming tests run (a missing one is
	// critical, another only a warning); nil is every report.RDMATools.
	Tools []string
	// Hardware says the ends are RoCE NICs, not rdma_rxe: no UDP 4791
	// socket is looked for (the NIC terminates RoCE v2 itself).
	Hardware bool
	// NoProbe skips the echoes between the two addresses.
	NoProbe bool
}

// PreflightRDMA is the soft-RoCE runbook's troubleshooting run on both
// ends (once in loopback) before the first pair, judged with
// report.CheckRDMAPreflight: the tools present (ib_send_bw, ib_send_lat,
// rdma, netperf/netserver; each missing one with its package on
// Debian/Ubuntu and RHEL), a firewall rule in the way of perftest's
// exchange port (TCP 18515 or ask.Port) or RoCE v2 (UDP 4791), quoted,
// rdma_rxe's UDP 4791 socket bound in each end's namespace, each port
// ACTIVE, and each end's chosen GID address answering the other's
// don't-fragment echo of its netdev MTU, searching down for the MTU the
// path carries when it does not come back (nic.Handle.ProbeMTU on a Local
// and on a Peer's agent, ping -M do over the side's runner elsewhere). Call it after
// PrepareRXE, with its results in ask. What cannot be read is said in the
// facts and findings; the error is for ends that cannot be reached.
//
// Similar to: the runbook's "Troubleshooting": which ib_send_bw; ss -ulnp | grep 4791; nft list ruleset; rdma link show; ping PEER
func (s *Sides) PreflightRDMA(ctx context.Context, ask RDMAAsk) ([]report.RDMAFacts, []report.Finding, error) {
	nearSide, farSide, err := s.ends()
	if err != nil {
		return nil, nil, err
	}
	type end struct {
		role   string
		side   Side
		netdev string
		info   RXE
		mtu    int
	}
	ends := []*end{{role: "near", side: nearSide, netdev: s.NearNetdev, info: ask.Near}}
	if s.Mode != Loopback && farSide != nearSide {
		ends = append(ends, &end{role: "far", side: farSide, netdev: s.FarNetdev, info: ask.Far})
	} else if ends[0].info.Device == "" {
		ends[0].info = ask.Far // loopback: PrepareRXE's one result is "far"
	}
	port := ask.Port
	if port == 0 {
		port = report.PerftestPort
	}
	ports := []Port{{"tcp", port}, {"udp", report.RoCEv2Port}}
	var facts []report.RDMAFacts
	for _, e := range ends {
		h, err := e.side.Host(ctx)
		if err != nil {
			return facts, nil, fmt.Errorf("RDMA preflight on %s: %w", e.side.Name(), err)
		}
		f := report.RDMAFacts{Role: e.role, Host: h.Hostname, Netns: sideNetns(e.side), Netdev: e.netdev, Tools: h.Tools,
			FirewallBlocks: firewallBlocks(h.Firewall, ports), RoCEv2Bound: h.RoCEv2Bound, RoCEv2BoundHost: h.RoCEv2BoundHost,
			RoCEv2Known: h.RoCEv2Known, SoftRoCE: !ask.Hardware}
		f.Warnings = append(f.Warnings, h.Warnings...)
		if e.role == "far" || len(ends) == 1 { // where perftest's server runs
			f.ServerPort = port
			if socks, err := e.side.Runner().TCPSockets(ctx); err == nil {
				f.ServerPortBusy = host.ListeningOn(socks, uint16(port))
			} else {
				f.Warnings = append(f.Warnings, fmt.Errorf("TCP sockets: %w", err))
			}
		}
		e.mtu = e.info.NetdevMTU
		if e.info.Addr == "" || e.mtu == 0 {
			n, err := e.side.Netdev(ctx, e.netdev)
			if err != nil {
				return facts, nil, fmt.Errorf("RDMA preflight on %s: %w", e.side.Name(), err)
			}
			if e.info.Addr == "" {
				e.info.Addr = n.Addr
			}
			if e.mtu == 0 {
				e.mtu = n.Snapshot.MTU
			}
		}
		if d, ok := rdmaDevice(h.RDMADevices, e.info.Device, e.netdev); ok {
			f.Device = d.Name
			// A device without a parent netdev is a NIC's own: it
			// terminates RoCE v2 itself, no rxe socket to look for.
			f.SoftRoCE = f.SoftRoCE && d.Parent != ""
			for _, p := range d.Ports {
				if p.Port == 1 {
					f.PortState, f.PortActive = p.State.String()+" "+p.PhysState.String(), p.Active()
				}
			}
		}
		f.Addr = e.info.Addr
		if e.info.GID.Entry.Device != "" {
			g := e.info.GID.Entry
			f.GID = fmt.Sprintf("%s/%d index %d %s %s", g.Device, g.Port, g.Index, g.GID, g.Type)
			if ip, ok := g.IPv4(); ok {
				f.Addr = ip.String()
			}
		}
		facts = append(facts, f)
	}
	if len(ends) == 2 && !ask.NoProbe {
		for i, e := range ends {
			other := ends[1-i]
			facts[i].Reach = append(facts[i].Reach, probeFrom(ctx, e.side, other.role, facts[1-i].Addr, e.mtu))
		}
	}
	return facts, report.CheckRDMAPreflight(facts, ask.Tools), nil
}

// rdmaDevice picks the end's device: the one PrepareRXE named, else the
// only one whose parent is the netdev.
func rdmaDevice(devs []rxe.Device, name, netdev string) (rxe.Device, bool) {
	var match []rxe.Device
	for _, d := range devs {
		if name != "" && d.Name == name {
			return d, true
		}
		if name == "" && d.Parent == netdev {
			match = append(match, d)
		}
	}
	if len(match) == 1 {
		return match[0], true
	}
	return rxe.Device{}, false
}

// sideNetns is a Local side's namespace name, for the findings' commands.
func sideNetns(s Side) string {
	if l, ok := s.(*Local); ok {
		return l.Netns
	}
	return ""
}

// ReachAsk is what Local.ProbeReach probes: the other end's role and
// address, and the MTU (bytes of IP packet) the path should carry.
type ReachAsk struct {
	To   string `json:"to"`
	Addr string `json:"addr"`
	MTU  int    `json:"mtu"`
}

// ProbeReach sends don't-fragment echoes of a.MTU bytes to a.Addr from
// this end (nic.Handle.ProbeMTU, in Local's namespace) and, when they do
// not come back, searches down for the largest size that does: the MTU
// the path carries. A probe that cannot run is a Reach with Unknown set,
// not an error.
func (l *Local) ProbeReach(ctx context.Context, a ReachAsk) (report.Reach, error) {
	r, dst, ok := reachStart(a)
	if !ok {
		return r, nil
	}
	r.Method = "ProbeMTU"
	h, err := l.openNIC()
	if err != nil {
		r.Unknown, r.Why = true, err.Error()
		return r, nil
	}
	defer h.Close()
	p, err := h.ProbeMTU(ctx, dst, r.MTU, nic.MTUProbeOptions{})
	switch {
	case err != nil && strings.Contains(err.Error(), "does not answer ICMP echo"): // ProbeMTU's words for no reply at all
		r.Why = err.Error()
	case err != nil:
		r.Unknown, r.Why = true, err.Error()
	default:
		r.Answered, r.Carried = true, p.Carried
		if !p.Carried {
			r.Largest, r.Why = p.LargestMTU, strings.Join(p.Evidence, "; ")
		}
	}
	return r, nil
}

// ProbeReach runs Local.ProbeReach on the peer. An agent without the
// operation (one from before it) gives ErrPeerNoOperation.
func (p *Peer) ProbeReach(ctx context.Context, a ReachAsk) (report.Reach, error) {
	r, err := callAs[report.Reach](ctx, p, "probe-reach", a)
	return r, noOperation(err)
}

// ErrPeerNoOperation is matched by the error of a Peer method whose agent
// is of an older build that lacks the operation.
var ErrPeerNoOperation = errors.New("runbook: the rocekit-peer agent lacks the operation")

// reachStart is the Reach a probe of a fills in, and the address it
// probes; !ok when there is none to probe (r says why).
func reachStart(a ReachAsk) (r report.Reach, dst netip.Addr, ok bool) {
	r = report.Reach{To: a.To, Addr: a.Addr, MTU: a.MTU}
	dst, err := netip.ParseAddr(a.Addr)
	if err != nil {
		r.Unknown, r.Why = true, fmt.Sprintf("no IPv4 address to probe (%q)", a.Addr)
		return r, dst, false
	}
	if r.MTU < 68 {
		r.MTU = 1500
	}
	return r, dst, true
}

// probeFrom sends don't-fragment echoes of mtu bytes from side to addr:
// with ProbeMTU on a Local and on a Peer's agent (both search down), with
// ping over the side's runner elsewhere, or when the agent is older.
func probeFrom(ctx context.Context, side Side, to, addr string, mtu int) report.Reach {
	a := ReachAsk{To: to, Addr: addr, MTU: mtu}
	switch s := side.(type) {
	case *Local:
		r, _ := s.ProbeReach(ctx, a)
		return r
	case *Peer:
		r, err := s.ProbeReach(ctx, a)
		if err == nil {
			return r
		}
		if !errors.Is(err, ErrPeerNoOperation) {
			r, _, _ = reachStart(a)
			r.Unknown, r.Why, r.Method = true, err.Error(), "ProbeMTU"
			return r
		}
	}
	r, dst, ok := reachStart(a)
	if !ok {
		return r
	}
	return pingFrom(ctx, side.Runner(), r, dst)
}

// pingFrom probes with ping over a runner (a Peer's): a DF echo of the
// MTU, then a plain one to tell "unreachable" from "too small a path".
func pingFrom(ctx context.Context, run host.Runner, r report.Reach, dst netip.Addr) report.Reach {
	r.Method = "ping"
	ping := func(size int, df bool) (bool, string, error) {
		argv := []string{"ping", "-n", "-c", "2", "-W", "1", "-s", strconv.Itoa(size)}
		if df {
			argv = append(argv, "-M", "do")
		}
		argv = append(argv, dst.String())
		p, err := host.Run(ctx, run, host.Cmd{Argv: argv})
		var ee *host.ExitError
		switch {
		case errors.As(err, &ee):
			out := ""
			if p != nil {
				out = lastLine(p.Stdout().String() + p.Stderr().String())
			}
			return false, fmt.Sprintf("%s: %s", host.QuoteCommand(argv), out), nil
		case err != nil:
			return false, "", err
		}
		return true, "", nil
	}
	ok, why, err := ping(r.MTU-28, true)
	if err != nil {
		r.Unknown, r.Why = true, err.Error()
		return r
	}
	if ok {
		r.Answered, r.Carried = true, true
		return r
	}
	r.Why = why
	if small, _, err := ping(56, false); err == nil && small {
		r.Answered = true
	} else {
		return r
	}
	// Search down over the MTUs paths are commonly set to: the largest
	// that comes back is what the path carries.
	for _, m := range pingSearchMTUs {
		if m >= r.MTU {
			continue
		}
		if ok, _, err := ping(m-28, true); err == nil && ok {
			r.Largest = m
			break
		}
	}
	return r
}

// pingSearchMTUs are the sizes ping's search down tries, largest first:
// jumbo variants, rdma_rxe's and RoCE's steps, Ethernet's default, IPv6's
// minimum and IPv4's.
var pingSearchMTUs = []int{9000, 8192, 4200, 4096, 2048, 1500, 1280, 576}

// lastLine is the last line of s that is not blank, trimmed.
func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(ls[len(ls)-1])
}
