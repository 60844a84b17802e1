package runbook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPeerAgentInNetns drives the agent's operations on a veth pair in a
// fresh namespace of this host's kernel: an MTU change journaled in a
// file of its own, the netdev and counters read, and restore undoing the
// change from the journals alone (as after a crash of the caller).
func TestPeerAgentInNetns(t *testing.T) {
	name := fmt.Sprintf("rbtest-%d", os.Getpid())
	nl := netnsVeth(t, name, "rbv0", "rbv1", "198.18.95.1/24")
	ctx := context.Background()
	dir := t.TempDir()
	call := func(op, arg string) []byte {
		t.Helper()
		var b bytes.Buffer
		if err := ServePeer(ctx, PeerProtocol, dir, name, op, arg, &b); err != nil {
			t.Fatalf("%s %s: %v", op, arg, err)
		}
		var r peerReply
		if err := json.Unmarshal(b.Bytes(), &r); err != nil || r.Protocol != PeerProtocol {
			t.Fatalf("%s reply %s: %v", op, b.Bytes(), err)
		}
		return r.Result
	}
	mtu := func() int {
		k, err := nl.LinkByName("rbv0")
		if err != nil {
			t.Fatal(err)
		}
		return k.Attrs().MTU
	}

	call("set-mtu", `{"netdev":"rbv0","mtu":4200}`)
	if got := mtu(); got != 4200 {
		t.Fatalf("MTU %d after set-mtu, want 4200", got)
	}
	if js, _ := filepath.Glob(filepath.Join(dir, "*-set-mtu.jsonl")); len(js) != 1 {
		t.Errorf("journals %v, want one for set-mtu", js)
	}
	var info Netdev
	if err := json.Unmarshal(call("netdev", `"rbv0"`), &info); err != nil {
		t.Fatal(err)
	}
	if info.Addr != "198.18.95.1" || info.Snapshot.MTU != 4200 || info.Snapshot.Driver.Driver != "veth" {
		t.Errorf("netdev: addr %q MTU %d driver %q", info.Addr, info.Snapshot.MTU, info.Snapshot.Driver.Driver)
	}
	if len(info.Warnings) == 0 {
		t.Error("a veth has no IRQs, and no warning said so")
	}
	// /proc counts a thread's CPU in 10 ms ticks: run alone, this test's
	// threads may not have one yet. A thread of its own that spins for
	// 100 ms of CPU has several.
	spinCPU(100 * time.Millisecond)
	var c Counters
	if err := json.Unmarshal(call("counters", `"rbv0"`), &c); err != nil {
		t.Fatal(err)
	}
	if c.Stats.Netdev != "rbv0" || len(c.Stats.Link) == 0 || len(c.Interrupts.Lines) == 0 || len(c.Load.Stat.CPUs) == 0 {
		t.Errorf("counters incomplete: %+v", c.Stats)
	}
	// The threads' CPU time crosses the protocol too (the busy core's
	// thread is named from it): at least this test's own threads.
	self := 0
	for _, th := range c.Threads.Threads {
		if th.PID == os.Getpid() && th.Processor >= 0 {
			self++
		}
	}
	if self == 0 || c.Threads.Time.IsZero() {
		t.Errorf("counters hold %d threads, none of this process (pid %d)", len(c.Threads.Threads), os.Getpid())
	}
	if _, err := c.Sub(c, info); err != nil {
		t.Errorf("Between: %v", err)
	}

	call("restore", "")
	if got := mtu(); got != 1500 {
		t.Errorf("MTU %d after restore, want 1500", got)
	}
	if js, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(js) != 0 {
		t.Errorf("journals left after restore: %v", js)
	}
}

// spinCPU keeps one thread busy until this process has used d more CPU
// time (or 10 s have passed on a host too loaded to give it).
func spinCPU(d time.Duration) {
	start, deadline := SelfCPU(), time.Now().Add(10*time.Second)
	for SelfCPU()-start < d && time.Now().Before(deadline) {
		for i := 0; i < 1e5; i++ {
			_ = i * i
		}
	}
}
