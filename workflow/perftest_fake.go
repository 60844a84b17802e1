package workflow

import (
	"context"
	"fmt"
	"net/netip"
	"sync"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/rxe"
)

// FakeSide is a runbook.Side for tests: its programs run on Runner (a
// host.Fake, or rocekittest.FakePair's), and what it reads of its system
// is the data in its fields. What a step asks of it is recorded in
// Changes ("mtu eth0 9000", "governor performance") and cleared by
// Restore, so a test sees that every change was undone.
type FakeSide struct {
	SideName string
	R        host.Runner
	// RXE is what PrepareRXE returns (its NetdevMTU set to the asked MTU,
	// when one is asked); NetdevState and HostState what Netdev and Host
	// read.
	RXE         runbook.RXE
	NetdevState runbook.Netdev
	HostState   runbook.Host

	mu      sync.Mutex
	changes []string
}

var _ runbook.Side = (*FakeSide)(nil)

// FakeSides are two fake ends, server far and client near, each with an
// rxe0 link prepared on eth0 (198.18.0.1 and .2, MTU 1500, GID index 1,
// RoCE v2), kernel 6.12.0-fake: what RunPerftest needs on fakes.
func FakeSides(server, client host.Runner) *runbook.Sides {
	far, near := newFake("fake-server", server, "198.18.0.1"), newFake("fake-client", client, "198.18.0.2")
	return &runbook.Sides{Mode: runbook.TwoHosts, Near: near, Far: far, NearNetdev: "eth0", FarNetdev: "eth0",
		NearRXE: near.RXE, FarRXE: far.RXE}
}

func newFake(name string, r host.Runner, addr string) *FakeSide {
	a := netip.MustParseAddr(addr)
	entry := rxe.GIDEntry{Device: "rxe0", Port: 1, Index: 1, GID: rxe.GIDFromAddr(a), Type: rxe.GIDTypeRoCEv2, Netdev: "eth0"}
	return &FakeSide{SideName: name, R: r,
		RXE: runbook.RXE{Device: "rxe0", Netdev: "eth0", Addr: addr, NetdevMTU: 1500,
			GID: rxe.Selection{Entry: entry, Reason: "the fake's RoCE v2 IPv4 GID"}},
		NetdevState: runbook.Netdev{Snapshot: nic.Snapshot{Netdev: "eth0", MTU: 1500}, Addr: addr},
		HostState:   fakeHost(name)}
}

// fakeHost is a host ready for soft-RoCE, as PreflightRDMA reads one:
// the tools installed, rxe0 ACTIVE on eth0, rdma_rxe's UDP 4791 bound,
// and cpufreq (one CPU at performance), so perftest keeps its frequency
// check.
func fakeHost(name string) runbook.Host {
	h := runbook.Host{Hostname: name, Kernel: "6.12.0-fake", Tools: map[string]string{},
		RoCEv2Bound: []string{"0.0.0.0:4791"}, RoCEv2Known: true, Governors: []irq.CPUGovernor{{CPU: 0, Governor: "performance"}},
		RDMADevices: []rxe.Device{{Name: "rxe0", NodeType: "CA", Parent: "eth0",
			Ports: []rxe.Port{{Device: "rxe0", Port: 1, State: rxe.PortActive, PhysState: rxe.PhysLinkUp, Netdev: "eth0", LinkLayer: "Ethernet"}}}}}
	for _, t := range report.RDMATools {
		h.Tools[t.Name] = "/usr/bin/" + t.Name
	}
	return h
}

// Changes are the changes asked of the side since the last Restore.
func (f *FakeSide) Changes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.changes...)
}

func (f *FakeSide) change(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = append(f.changes, fmt.Sprintf(format, args...))
}

// Name is SideName.
func (f *FakeSide) Name() string { return f.SideName }

// Runner is R.
func (f *FakeSide) Runner() host.Runner { return f.R }

// PrepareRXE returns RXE on c's netdev, recording an asked MTU.
func (f *FakeSide) PrepareRXE(_ context.Context, c runbook.RXEConfig) (runbook.RXE, error) {
	info := f.RXE
	if c.MTU > 0 {
		f.change("mtu %s %d", c.Netdev, c.MTU)
		info.NetdevMTU = c.MTU
	}
	return info, nil
}

// SetMTU records the change.
func (f *FakeSide) SetMTU(_ context.Context, netdev string, mtu int) error {
	f.change("mtu %s %d", netdev, mtu)
	return nil
}

// Netdev returns NetdevState.
func (f *FakeSide) Netdev(context.Context, string) (runbook.Netdev, error) {
	return f.NetdevState, nil
}

// Counters are all zero.
func (f *FakeSide) Counters(context.Context, string) (runbook.Counters, error) {
	return runbook.Counters{}, nil
}

// SpreadIRQs records the change and spreads nothing.
func (f *FakeSide) SpreadIRQs(_ context.Context, netdev string) (runbook.Spread, error) {
	f.change("spread %s", netdev)
	return runbook.Spread{}, nil
}

// SetGovernor records the change.
func (f *FakeSide) SetGovernor(_ context.Context, governor string) (runbook.GovernorResult, error) {
	f.change("governor %s", governor)
	return runbook.GovernorResult{Set: true}, nil
}

// Host returns HostState.
func (f *FakeSide) Host(context.Context) (runbook.Host, error) { return f.HostState, nil }

// PortCounters are all zero.
func (f *FakeSide) PortCounters(context.Context, string) (rxe.PortCounters, error) {
	return rxe.PortCounters{}, nil
}

// KernelLog is empty.
func (f *FakeSide) KernelLog(context.Context) ([]kmsg.Record, error) { return nil, nil }

// SetSysctl records the change.
func (f *FakeSide) SetSysctl(_ context.Context, key, value string) error {
	f.change("sysctl %s=%s", key, value)
	return nil
}

// Restore forgets the changes: they are undone.
func (f *FakeSide) Restore(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = nil
	return nil
}

// Close does nothing.
func (f *FakeSide) Close() error { return nil }
