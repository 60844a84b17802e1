package runbook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rxe"
)

// burn spends CPU time in this process.
func burn(d time.Duration) {
	start := SelfCPU()
	x := 1.0
	for SelfCPU()-start < d {
		for range 10000 {
			x = x*1.0000001 + 1e-9
		}
	}
	_ = x
}

// TestReplyCarriesAgentCPU: an agent's reply carries its own CPU time,
// and reading the reply adds it to PeerAgentCPU; a reply without the
// field (an older agent) adds nothing.
func TestReplyCarriesAgentCPU(t *testing.T) {
	burn(5 * time.Millisecond)
	var buf bytes.Buffer
	if err := writeReply(&buf, peerReply{Result: json.RawMessage(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	var sent peerReply
	if err := json.Unmarshal(buf.Bytes(), &sent); err != nil {
		t.Fatal(err)
	}
	if sent.SelfCPUNs < (5 * time.Millisecond).Nanoseconds() {
		t.Fatalf("reply reports %d ns of CPU, want at least the 5 ms burnt", sent.SelfCPUNs)
	}
	before := PeerAgentCPU()
	var out struct{ OK bool }
	if err := readReply("op", buf.Bytes(), nil, &out); err != nil || !out.OK {
		t.Fatalf("readReply: %v, %+v", err, out)
	}
	if got := PeerAgentCPU() - before; got != time.Duration(sent.SelfCPUNs) {
		t.Errorf("PeerAgentCPU grew by %v, want the reply's %v", got, time.Duration(sent.SelfCPUNs))
	}
	before = PeerAgentCPU()
	old := fmt.Sprintf(`{"protocol":%d,"result":{"ok":true}}`, PeerProtocol)
	if err := readReply("op", []byte(old), nil, &out); err != nil {
		t.Fatal(err)
	}
	if PeerAgentCPU() != before {
		t.Error("a reply without self_cpu_ns changed PeerAgentCPU")
	}
}

// cpuSide is a side whose programs run on a host.Fake.
type cpuSide struct {
	Side
	name   string
	runner *host.Fake
}

func (f cpuSide) Name() string        { return f.name }
func (f cpuSide) Runner() host.Runner { return f.runner }
func (f cpuSide) PortCounters(context.Context, string) (rxe.PortCounters, error) {
	return rxe.PortCounters{}, errors.New("no RDMA device in a fake")
}

// TestRepeatPairSelfCPU: RepeatPair sums this process's CPU time over its
// pairs (a real capture replayed by a fake), none of the far agents' when
// no agent answered, and SelfCPUSec names the sides.
func TestRepeatPairSelfCPU(t *testing.T) {
	// The capture read from its folder: rocekittest imports runbook.
	dir := filepath.Join("..", "rocekittest", "captures", "bookworm", "perftest", "send-bw-gbits")
	srv, err1 := os.ReadFile(filepath.Join(dir, "server.stdout"))
	cli, err2 := os.ReadFile(filepath.Join(dir, "client.stdout"))
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	f := &host.Fake{Respond: func(c host.Cmd) host.FakeScript {
		if !slices.Contains(c.Argv, "198.18.0.1") { // the client names the server's address
			return host.FakeScript{Stdout: string(srv), Listen: []uint16{18515}}
		}
		return host.FakeScript{Stdout: string(cli)}
	}}
	near, far := cpuSide{name: "a", runner: f}, cpuSide{name: "b", runner: f}
	sides := &Sides{Mode: TwoHosts, Near: near, Far: far, NearNetdev: "eth0", FarNetdev: "eth0"}
	opts := perftest.Options{Test: perftest.SendBW, Server: perftest.End{Device: "rxe0"}, Client: perftest.End{Device: "rxe0"}, Iterations: 300, ReportGbits: true, Port: 18515}
	cpu0 := SelfCPU()
	ps, err := RepeatPair(context.Background(), sides, RXE{Device: "rxe0", Addr: "198.18.0.1"}, opts, 3, nil, "x")
	total := SelfCPU() - cpu0
	if err != nil {
		t.Fatal(err)
	}
	if ps.NearCPU <= 0 || ps.NearCPU > total || ps.FarCPU != 0 {
		t.Errorf("near CPU %v (the whole call %v), far %v", ps.NearCPU, total, ps.FarCPU)
	}
	m := ps.SelfCPUSec(sides)
	if len(m) != 2 || m["a"] != ps.NearCPU.Seconds() || m["b"] != 0 {
		t.Errorf("SelfCPUSec %v", m)
	}
	one := &Sides{Mode: Loopback, Near: near, Far: near, NearNetdev: "eth0", FarNetdev: "eth0"}
	ps.FarCPU = time.Second
	if m := ps.SelfCPUSec(one); len(m) != 1 || m["a"] != ps.NearCPU.Seconds()+1 {
		t.Errorf("one host: SelfCPUSec %v", m)
	}
}
