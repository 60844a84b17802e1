package rocekittest

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/tune"
)

// FakeSide is a runbook.Side that needs no host and no root, for tests of
// the workflow steps (workflow.RunPerftest, workflow.RunUDPRounds) on
// fakes: its programs run on Fake (FakePair's, PerftestFake's,
// FakeNetperf's or one of the test's own), and what it reads of its
// system is the data in its fields, by default a healthy soft-RoCE host
// (NewFakeSideOn). Every change asked of it is recorded (Changes: "mtu
// eth1 9000", "governor performance") and forgotten by Restore, so a test
// sees that every change was undone. Use it by pointer.
//
// Similar to: a runbook.Local on a host where nothing is real.
type FakeSide struct {
	// Label is the side's Name ("near", "far").
	Label string
	// Fake runs its programs.
	Fake *host.Fake
	// Info is what Netdev returns (its MTU follows SetMTU).
	Info runbook.Netdev
	// RXE is what PrepareRXE returns, its NetdevMTU set to the asked MTU;
	// with no Device, PrepareRXE and PortCounters fail with
	// rxe.ErrModuleMissing, as on a host without rdma_rxe.
	RXE runbook.RXE
	// HostState is what Host returns. SetGovernor sets the governor (and
	// records it) only when HostState.Governors is not empty: without
	// cpufreq, as in a VM, it sets nothing and says why.
	HostState runbook.Host
	// Grow is added to the counters at each Counters read: link rx_bytes
	// and rx_packets, Udp RcvbufErrors.
	Grow FakeGrowth
	// Drift, when set, is what Verify reports for every change made.
	Drift string
	// IRQBalance are the irqbalance PIDs PauseIRQBalance pauses.
	IRQBalance []int
	// Sockets are netserver's UDP sockets (workflow.UDPSocketReader).
	Sockets []nic.UDPSocket

	mu      sync.Mutex
	reads   uint64
	changes []string
}

// FakeGrowth is what one Counters read adds.
type FakeGrowth struct {
	RxBytes, RxPackets, RcvbufErrors uint64
}

// NewFakeSideOn returns a side named label whose programs run on f, a
// healthy soft-RoCE host on netdev with IPv4 address addr and MTU 1500:
// the RDMA tools installed (report.RDMATools), rxe0 ACTIVE on netdev with
// a RoCE v2 GID of addr at index 1, rdma_rxe's UDP 4791 bound, one CPU
// at governor performance (so perftest keeps its frequency check), kernel
// 6.12.0-fake, no irqbalance. Change its fields for another host
// (HostState.Governors = nil: a VM).
func NewFakeSideOn(label string, f *host.Fake, netdev, addr string) *FakeSide {
	var gid rxe.GID
	if a, err := netip.ParseAddr(addr); err == nil {
		gid = rxe.GIDFromAddr(a)
	}
	entry := rxe.GIDEntry{Device: "rxe0", Port: 1, Index: 1, GID: gid, Type: rxe.GIDTypeRoCEv2, Netdev: netdev}
	h := runbook.Host{Hostname: label, Kernel: "6.12.0-fake", Tools: map[string]string{},
		RoCEv2Bound: []string{"0.0.0.0:4791"}, RoCEv2Known: true, Governors: []irq.CPUGovernor{{CPU: 0, Governor: "performance"}},
		RDMADevices: []rxe.Device{{Name: "rxe0", NodeType: "CA", Parent: netdev,
			Ports: []rxe.Port{{Device: "rxe0", Port: 1, State: rxe.PortActive, PhysState: rxe.PhysLinkUp, Netdev: netdev, LinkLayer: "Ethernet"}}}}}
	for _, t := range report.RDMATools {
		h.Tools[t.Name] = "/usr/bin/" + t.Name
	}
	return &FakeSide{Label: label, Fake: f, HostState: h,
		Info: runbook.Netdev{Snapshot: nic.Snapshot{Netdev: netdev, MTU: 1500, Device: nic.Device{NUMANode: -1}}, Addr: addr},
		RXE: runbook.RXE{Device: "rxe0", Netdev: netdev, Addr: addr, NetdevMTU: 1500,
			GID: rxe.Selection{Entry: entry, Reason: "the fake's RoCE v2 IPv4 GID"}}}
}

// NewFakeSide returns a side named label (NewFakeSideOn) whose programs
// play c: a perftest case both roles by the command given
// (PerftestFake), a netperf case netperf and netserver (FakeNetperf),
// each also answering "-V" with "Netperf version 2.7.0".
func NewFakeSide(label string, c *Case, netdev, addr string) (*FakeSide, error) {
	return newFakeSide(label, c, netdev, addr, FakeOptions{})
}

func newFakeSide(label string, c *Case, netdev, addr string, o FakeOptions) (*FakeSide, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: no case", ErrWrongTool)
	}
	var f *host.Fake
	switch c.Tool {
	case "perftest":
		f = PerftestFakeWith(c, label, o)
	case "netperf":
		var err error
		if f, err = FakeNetperf(c); err != nil {
			return nil, err
		}
		f.Name = label
		inner := f.Respond
		f.Respond = func(c host.Cmd) host.FakeScript {
			if slices.Contains(c.Argv, "-V") {
				return host.FakeScript{Stdout: "Netperf version 2.7.0\n"}
			}
			return inner(c)
		}
	default:
		return nil, fmt.Errorf("%w: %s is a %q case, a FakeSide plays perftest or netperf", ErrWrongTool, c.ID, c.Tool)
	}
	return NewFakeSideOn(label, f, netdev, addr), nil
}

// Changes are the changes asked of the side since the last Restore,
// oldest first.
func (s *FakeSide) Changes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.changes)
}

func (s *FakeSide) change(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes = append(s.changes, fmt.Sprintf(format, args...))
}

// Name returns Label.
func (s *FakeSide) Name() string { return s.Label }

// Runner returns Fake.
func (s *FakeSide) Runner() host.Runner { return s.Fake }

// PrepareRXE returns RXE on c's netdev, recording an asked MTU (and
// setting Info's); without RXE.Device it fails as without rdma_rxe.
func (s *FakeSide) PrepareRXE(_ context.Context, c runbook.RXEConfig) (runbook.RXE, error) {
	s.mu.Lock()
	info := s.RXE
	if info.Device != "" && c.MTU > 0 {
		s.Info.Snapshot.MTU = c.MTU
	}
	s.mu.Unlock()
	if info.Device == "" {
		return runbook.RXE{}, fmt.Errorf("rocekittest: %s has no rxe: %w", s.Label, rxe.ErrModuleMissing)
	}
	if c.MTU > 0 {
		s.change("mtu %s %d", c.Netdev, c.MTU)
		info.NetdevMTU = c.MTU
	}
	return info, nil
}

// SetMTU records the change and sets Info's MTU.
func (s *FakeSide) SetMTU(_ context.Context, netdev string, mtu int) error {
	s.mu.Lock()
	s.Info.Snapshot.MTU = mtu
	s.mu.Unlock()
	s.change("mtu %s %d", netdev, mtu)
	return nil
}

// Netdev returns Info.
func (s *FakeSide) Netdev(context.Context, string) (runbook.Netdev, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Info, nil
}

// Counters returns counters grown by Grow at each read, one second
// apart.
func (s *FakeSide) Counters(_ context.Context, netdev string) (runbook.Counters, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.reads
	s.reads++
	at := time.Date(2026, 1, 1, 0, 0, int(n), 0, time.UTC)
	return runbook.Counters{Time: at,
		Stats: nic.Stats{Netdev: netdev, Time: at, Link: map[string]uint64{"rx_bytes": n * s.Grow.RxBytes, "rx_packets": n * s.Grow.RxPackets}},
		UDP:   nic.UDPCounters{RcvbufErrors: n * s.Grow.RcvbufErrors}}, nil
}

// SpreadIRQs records the change and spreads nothing.
func (s *FakeSide) SpreadIRQs(_ context.Context, netdev string) (runbook.Spread, error) {
	s.change("spread %s", netdev)
	return runbook.Spread{Policy: "fake"}, nil
}

// SetGovernor records the change when the host has cpufreq
// (HostState.Governors); without, it sets nothing, as in a VM.
func (s *FakeSide) SetGovernor(_ context.Context, governor string) (runbook.GovernorResult, error) {
	s.mu.Lock()
	has := len(s.HostState.Governors) > 0
	s.mu.Unlock()
	if !has {
		return runbook.GovernorResult{Reason: "no cpufreq (fake)"}, nil
	}
	s.change("governor %s", governor)
	return runbook.GovernorResult{Set: true}, nil
}

// PauseIRQBalance records the change and returns IRQBalance; with none,
// it changes nothing.
func (s *FakeSide) PauseIRQBalance(context.Context) ([]int, error) {
	if len(s.IRQBalance) == 0 {
		return nil, nil
	}
	s.change("irqbalance paused")
	return slices.Clone(s.IRQBalance), nil
}

// Verify reports every change as drifted to Drift when it is set.
func (s *FakeSide) Verify(context.Context) ([]tune.Drift, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Drift == "" {
		return nil, nil
	}
	var ds []tune.Drift
	for i := range s.changes {
		ds = append(ds, tune.Drift{Entry: tune.Entry{Seq: i + 1, Kind: tune.KindSysctl}, Err: fmt.Errorf("%s", s.Drift)})
	}
	return ds, nil
}

// UDPSockets returns Sockets.
func (s *FakeSide) UDPSockets(context.Context, int) ([]nic.UDPSocket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.Sockets), nil
}

// UDPCounters returns the Udp counters as the last Counters read left
// them (workflow.UDPCountersReader).
func (s *FakeSide) UDPCounters(context.Context, int) (nic.UDPCounters, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return nic.UDPCounters{RcvbufErrors: s.reads * s.Grow.RcvbufErrors}, nil
}

// Host returns HostInfo.
func (s *FakeSide) Host(context.Context) (runbook.Host, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.HostState, nil
}

// PortCounters are all zero; without RXE.Device it fails as without
// rdma_rxe.
func (s *FakeSide) PortCounters(context.Context, string) (rxe.PortCounters, error) {
	s.mu.Lock()
	dev := s.RXE.Device
	s.mu.Unlock()
	if dev == "" {
		return rxe.PortCounters{}, fmt.Errorf("rocekittest: %s has no rxe: %w", s.Label, rxe.ErrModuleMissing)
	}
	return rxe.PortCounters{}, nil
}

// KernelLog returns no records.
func (s *FakeSide) KernelLog(context.Context) ([]kmsg.Record, error) { return nil, nil }

// SetSysctl records the change.
func (s *FakeSide) SetSysctl(_ context.Context, key, value string) error {
	s.change("sysctl %s=%s", key, value)
	return nil
}

// Restore forgets the changes: they are undone.
func (s *FakeSide) Restore(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes = nil
	return nil
}

// Close does nothing.
func (s *FakeSide) Close() error { return nil }

var _ runbook.Side = (*FakeSide)(nil)

// FakeSides are two FakeSides playing c in two-host mode (NewFakeSide):
// "near" on eth0 (198.18.0.1: perftest's client, netperf's end) and "far"
// on eth1 (198.18.0.2: perftest's server, netserver's end), each with
// rxe0 prepared (Sides.NearRXE and FarRXE). c is a perftest pair
// (FakePair's rules) or a netperf case netperf.Run can read.
//
// Similar to: two hosts joined by a link, without the hosts.
func FakeSides(c *Case) (*runbook.Sides, error) {
	return FakeSidesWith(c, FakeOptions{})
}

// FakeSidesWith is FakeSides with the fakes tuned by o (a short
// ServerLife makes a suite of perftest steps fast).
func FakeSidesWith(c *Case, o FakeOptions) (*runbook.Sides, error) {
	if c != nil && c.Tool == "perftest" {
		if _, _, err := FakePairWith(c, o); err != nil {
			return nil, err
		}
	}
	near, err := newFakeSide("near", c, "eth0", "198.18.0.1", o)
	if err != nil {
		return nil, err
	}
	far, err := newFakeSide("far", c, "eth1", "198.18.0.2", o)
	if err != nil {
		return nil, err
	}
	return sidesOf(far, near), nil
}

// FakeSidesOn are FakeSides whose programs run on the runners given: far
// (the server's end) and near (the client's); one runner may be both.
func FakeSidesOn(far, near *host.Fake) *runbook.Sides {
	return sidesOf(NewFakeSideOn("far", far, "eth1", "198.18.0.2"), NewFakeSideOn("near", near, "eth0", "198.18.0.1"))
}

func sidesOf(far, near *FakeSide) *runbook.Sides {
	return &runbook.Sides{Mode: runbook.TwoHosts, Near: near, Far: far, NearNetdev: near.Info.Snapshot.Netdev,
		FarNetdev: far.Info.Snapshot.Netdev, NearRXE: near.RXE, FarRXE: far.RXE}
}
