package runbook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/vishvananda/netlink"
)

// TestPeerOverSSH drives a Peer through a real sshd on 127.0.0.1 and the
// rocekit-peer agent built from this tree, on a veth in a namespace of this
// host's kernel: the far side of two-host mode, minus the second host. It
// runs once with one agent for all calls (a session, DialPeer's default)
// and once with an agent per call.
func TestPeerOverSSH(t *testing.T) {
	d := labtest.StartSSHD(t)
	agent := buildAgent(t)
	for _, perCall := range []bool{false, true} {
		name := map[bool]string{false: "session", true: "per-call"}[perCall]
		t.Run(name, func(t *testing.T) { testPeerOverSSH(t, d, agent, name[:1], perCall) })
	}
}

func testPeerOverSSH(t *testing.T, d *labtest.SSHD, agent, tag string, perCall bool) {
	ns := fmt.Sprintf("rbpeer%s-%d", tag, os.Getpid())
	nl := netnsVeth(t, ns, "rbp0", "rbp1", "198.18.96.1/24")
	mtu := func() int {
		l, err := nl.LinkByName("rbp0")
		if err != nil {
			t.Fatal(err)
		}
		return l.Attrs().MTU
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	journals := t.TempDir()
	p, err := DialPeer(ctx, PeerConfig{Target: "root@" + d.Addr, Identity: d.KeyFile, KnownHosts: d.KnownHosts,
		Agent: agent, JournalDir: journals, Netns: ns, AgentPerCall: perCall})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.KeepAgent == perCall {
		t.Fatalf("KeepAgent %v with AgentPerCall %v", p.KeepAgent, perCall)
	}
	if p.Name() != "ssh root@"+d.Addr {
		t.Errorf("peer name %q", p.Name())
	}

	if err := p.SetMTU(ctx, "rbp0", 4200); err != nil {
		t.Fatal(err)
	}
	if got := mtu(); got != 4200 {
		t.Fatalf("MTU %d after SetMTU, want 4200", got)
	}
	info, err := p.Netdev(ctx, "rbp0")
	if err != nil {
		t.Fatal(err)
	}
	if info.Addr != "198.18.96.1" || info.Snapshot.MTU != 4200 || info.Snapshot.Netns != ns {
		t.Errorf("Netdev: addr %q MTU %d netns %q", info.Addr, info.Snapshot.MTU, info.Snapshot.Netns)
	}
	// The agent reads its calls' changes back: the MTU holds, then one
	// set by hand behind its back is drift, named with both values.
	if d, err := p.Verify(ctx); err != nil || len(d) != 0 {
		t.Errorf("Verify right after SetMTU: %v, %v", d, err)
	}
	if l, err := nl.LinkByName("rbp0"); err != nil || nl.LinkSetMTU(l, 2000) != nil {
		t.Fatal("set the MTU by hand", err)
	}
	if d, err := p.Verify(ctx); err != nil || len(d) != 1 || d[0].String() != "#1 mtu netdev rbp0 in netns "+ns+": set mtu 4200, now mtu 2000" {
		t.Errorf("Verify after the MTU changed by hand: %v, %v", d, err)
	}
	if l, err := nl.LinkByName("rbp0"); err != nil || nl.LinkSetMTU(l, 4200) != nil {
		t.Fatal("set the MTU back by hand", err)
	}
	if pids, err := p.PauseIRQBalance(ctx); err != nil || len(pids) != 0 {
		t.Errorf("PauseIRQBalance with no irqbalance running: %v, %v", pids, err)
	}
	c, err := p.Counters(ctx, "rbp0")
	if err != nil {
		t.Fatal(err)
	}
	if c.Stats.Netdev != "rbp0" || len(c.Interrupts.Lines) == 0 {
		t.Errorf("Counters: %+v", c.Stats)
	}
	// The peer's runner works in its namespace: the address, and sockets.
	if pr, err := host.Run(ctx, p.Runner(), host.Cmd{Argv: []string{"ip", "-4", "-o", "addr", "show", "dev", "rbp0"}}); err != nil || !strings.Contains(pr.Stdout().String(), " 198.18.96.1/24 ") {
		t.Errorf("ip addr through the peer's runner: %v", err)
	}
	if _, err := p.Runner().TCPSockets(ctx); err != nil {
		t.Errorf("TCPSockets in the peer's namespace: %v", err)
	}
	// The agent probes the path from its end and searches down: rbp1,
	// moved to a namespace of its own at MTU 1500, drops rbp0's 4200-byte
	// frames (a 1500-byte switch port in the middle). veth lets a VLAN
	// tag's 4 bytes through beyond its MTU (is_skb_forwardable), so the
	// largest that comes back is 1504 on the kernels tried.
	farNs := fmt.Sprintf("rbfar%s-%d", tag, os.Getpid())
	nsFar, nlFar := labtest.Netns(t, farNs)
	if l, err := nl.LinkByName("rbp1"); err != nil {
		t.Fatal(err)
	} else if err := nl.LinkSetNsFd(l, int(nsFar)); err != nil {
		t.Fatal(err)
	}
	if l, err := nlFar.LinkByName("rbp1"); err != nil {
		t.Fatal(err)
	} else {
		ad, _ := netlink.ParseAddr("198.18.96.2/24")
		if err := nlFar.AddrAdd(l, ad); err != nil {
			t.Fatal(err)
		}
		if err := nlFar.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
	reach, err := p.ProbeReach(ctx, ReachAsk{To: "far", Addr: "198.18.96.2", MTU: 4200})
	if err != nil || reach.Method != "ProbeMTU" || !reach.Answered || reach.Carried || reach.Largest < 1500 || reach.Largest > 1504 || reach.Why == "" {
		t.Errorf("ProbeReach over SSH: %+v, %v; want answered, not carried, largest 1500..1504 with the evidence", reach, err)
	}
	if reach, err := p.ProbeReach(ctx, ReachAsk{To: "far", Addr: "198.18.96.2", MTU: 1500}); err != nil || !reach.Carried {
		t.Errorf("ProbeReach of 1500 over SSH: %+v, %v", reach, err)
	}
	// An agent error comes back typed, with the agent's message.
	_, err = p.SpreadIRQs(ctx, "rbp0")
	var pe *PeerError
	if !errors.As(err, &pe) || pe.Op != "spread-irqs" || pe.Msg == "" {
		t.Errorf("SpreadIRQs on a veth: %v, want a *PeerError with the agent's message", err)
	}
	// ... and matches the sentinel the far error matched there.
	if !errors.Is(err, irq.ErrNoDevice) {
		t.Errorf("SpreadIRQs on a veth: %v (kind %q), want errors.Is irq.ErrNoDevice as on this host", err, pe.Kind)
	}
	if err := p.SetMTU(ctx, "nosuchdev0", 1500); !errors.Is(err, nic.ErrNetdevNotFound) {
		t.Errorf("SetMTU of a missing netdev over SSH: %v, want errors.Is nic.ErrNetdevNotFound", err)
	}

	// The agent watches a process's UDP sockets on its host (a child's
	// overflowed receiver) in one call that answers once they closed;
	// it says it is ready, before its reply, once its first reading is
	// taken: the process ends only then, so without that line the watch
	// would run to its Max and fail the test.
	pid, end := udpOverflow(t)
	readyAt := make(chan time.Time, 1)
	during := make(chan error, 1)
	ready := func() {
		readyAt <- time.Now()
		go func() {
			// Another call while the watch lasts: a session serves both.
			_, err := p.Counters(ctx, "rbp0")
			during <- err
			time.Sleep(300 * time.Millisecond) // a few readings with the sockets open
			end()
		}()
	}
	w, err := p.WatchUDPSockets(ctx, UDPWatchAsk{PID: pid, Every: 20 * time.Millisecond, Max: 30 * time.Second, Ready: ready})
	replied := time.Now()
	if err != nil || !w.Closed || len(w.Last) != 2 || w.Last[0].Drops+w.Last[1].Drops == 0 || w.Counters == nil {
		t.Errorf("WatchUDPSockets over SSH: %+v, %v; want closed, 2 sockets with drops", w, err)
	}
	select {
	case at := <-readyAt:
		if !at.Before(replied) {
			t.Errorf("ready at %v, not before the reply at %v", at, replied)
		}
	default:
		t.Error("the agent never said it was ready")
	}
	if w.CPU <= 0 {
		t.Errorf("watch CPU %v: want the agent's own CPU time over the watch", w.CPU)
	}
	if err := <-during; err != nil {
		t.Errorf("Counters during the watch: %v", err)
	}
	if !perCall {
		// One agent served every call so far; once it is gone (a lost
		// link), the next call starts another.
		s := p.sess
		if s == nil {
			t.Fatal("no session kept")
		}
		if err := s.proc.Kill(); err != nil {
			t.Fatal(err)
		}
		<-s.ended
		if _, err := p.Counters(ctx, "rbp0"); err != nil || p.sess == s {
			t.Errorf("Counters after the session's agent was killed: %v (a new session: %v)", err, p.sess != s)
		}
	}
	if err := p.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if got := mtu(); got != 1500 {
		t.Errorf("MTU %d after Restore, want 1500", got)
	}
	if js, _ := filepath.Glob(filepath.Join(journals, "*.jsonl")); len(js) != 0 {
		t.Errorf("journals left: %v", js)
	}
	// A missing agent is a clear error, not a hang.
	missing := &Peer{SSH: p.SSH, Agent: "/nonexistent/rocekit-peer", JournalDir: journals}
	if err := missing.Restore(ctx); !errors.As(err, &pe) || !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("missing agent: %v, want a *PeerError wrapping exec.ErrNotFound", err)
	}
}

// buildAgent builds cmd/rocekit-peer from this tree.
func buildAgent(t *testing.T) string {
	t.Helper()
	agent := filepath.Join(t.TempDir(), "rocekit-peer")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	build := exec.Command(goBin, "build", "-o", agent, "../cmd/rocekit-peer")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build rocekit-peer: %v\n%s", err, out)
	}
	return agent
}
