package rocekittest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/tune"
)

// FakeSide is a runbook.Side that needs no host and no root, for tests of
// the workflow steps (workflow.RunUDPRounds) on fakes: its programs run on
// Fake (FakeNetperf), its netdev is Info, each Counters read grows its
// counters by Grow, and every change is recorded in Changes (Restore
// empties it). It reads back its changes as drifted when Drift is set, and
// shows Sockets as netserver's UDP sockets. Use it by pointer.
//
// Similar to: a runbook.Local on a host where nothing is real.
type FakeSide struct {
	// Label is the side's Name ("fake near").
	Label string
	// Fake runs its programs; NewFakeSide's answers "netperf -V" and
	// "netserver -V" with "Netperf version 2.7.0".
	Fake *host.Fake
	// Info is what Netdev returns (its MTU follows SetMTU).
	Info runbook.Netdev
	// Grow is added to the counters at each Counters read: link rx_bytes
	// and rx_packets, Udp RcvbufErrors.
	Grow FakeGrowth
	// Drift, when set, is what Verify reports for every change made.
	Drift string
	// IRQBalance are the irqbalance PIDs PauseIRQBalance pauses.
	IRQBalance []int
	// Sockets are netserver's UDP sockets (workflow.UDPSocketReader).
	Sockets []nic.UDPSocket

	mu    sync.Mutex
	reads uint64
	// Changes are the changes made, oldest first ("mtu eth1 9000",
	// "sysctl net.core.rmem_max=4194304"); Restore empties it.
	Changes []string
}

// FakeGrowth is what one Counters read adds.
type FakeGrowth struct {
	RxBytes, RxPackets, RcvbufErrors uint64
}

// NewFakeSide returns a side named label whose programs play c
// (FakeNetperf), on netdev with IPv4 address addr and MTU 1500.
func NewFakeSide(label string, c *Case, netdev, addr string) (*FakeSide, error) {
	f, err := FakeNetperf(c)
	if err != nil {
		return nil, err
	}
	inner := f.Respond
	f.Respond = func(c host.Cmd) host.FakeScript {
		if slices.Contains(c.Argv, "-V") {
			return host.FakeScript{Stdout: "Netperf version 2.7.0\n"}
		}
		return inner(c)
	}
	s := &FakeSide{Label: label, Fake: f,
		Info: runbook.Netdev{Snapshot: nic.Snapshot{Netdev: netdev, MTU: 1500, Device: nic.Device{NUMANode: -1}}, Addr: addr}}
	return s, nil
}

func (s *FakeSide) change(format string, args ...any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Changes = append(s.Changes, fmt.Sprintf(format, args...))
	return nil
}

// Name returns Label.
func (s *FakeSide) Name() string { return s.Label }

// Runner returns Fake.
func (s *FakeSide) Runner() host.Runner { return s.Fake }

// PrepareRXE is not faked.
func (s *FakeSide) PrepareRXE(context.Context, runbook.RXEConfig) (runbook.RXE, error) {
	return runbook.RXE{}, fmt.Errorf("rocekittest: FakeSide has no rxe: %w", rxe.ErrModuleMissing)
}

// SetMTU records the change and sets Info's MTU.
func (s *FakeSide) SetMTU(_ context.Context, netdev string, mtu int) error {
	s.mu.Lock()
	s.Info.Snapshot.MTU = mtu
	s.mu.Unlock()
	return s.change("mtu %s %d", netdev, mtu)
}

// Netdev returns Info.
func (s *FakeSide) Netdev(context.Context, string) (runbook.Netdev, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Info, nil
}

// Counters returns counters grown by Grow at each read.
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

// SpreadIRQs records the change.
func (s *FakeSide) SpreadIRQs(_ context.Context, netdev string) (runbook.Spread, error) {
	return runbook.Spread{Policy: "fake"}, s.change("spread %s", netdev)
}

// SetGovernor reports no cpufreq, as in a VM.
func (s *FakeSide) SetGovernor(context.Context, string) (runbook.GovernorResult, error) {
	return runbook.GovernorResult{Reason: "no cpufreq (fake)"}, nil
}

// PauseIRQBalance records the change and returns IRQBalance; with none,
// it changes nothing.
func (s *FakeSide) PauseIRQBalance(context.Context) ([]int, error) {
	if len(s.IRQBalance) == 0 {
		return nil, nil
	}
	return slices.Clone(s.IRQBalance), s.change("irqbalance paused")
}

// Verify reports every change as drifted to Drift when it is set.
func (s *FakeSide) Verify(context.Context) ([]tune.Drift, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Drift == "" {
		return nil, nil
	}
	var ds []tune.Drift
	for i := range s.Changes {
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

// Host returns a host without governors or irqbalance.
func (s *FakeSide) Host(context.Context) (runbook.Host, error) {
	return runbook.Host{Hostname: s.Label, Kernel: "6.12.0-fake"}, nil
}

// PortCounters is not faked.
func (s *FakeSide) PortCounters(context.Context, string) (rxe.PortCounters, error) {
	return rxe.PortCounters{}, fmt.Errorf("rocekittest: FakeSide has no rxe: %w", rxe.ErrModuleMissing)
}

// KernelLog returns no records.
func (s *FakeSide) KernelLog(context.Context) ([]kmsg.Record, error) { return nil, nil }

// SetSysctl records the change.
func (s *FakeSide) SetSysctl(_ context.Context, key, value string) error {
	return s.change("sysctl %s=%s", key, value)
}

// Restore forgets the changes.
func (s *FakeSide) Restore(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Changes = nil
	return nil
}

// Close does nothing.
func (s *FakeSide) Close() error { return nil }

var _ runbook.Side = (*FakeSide)(nil)

// FakeSides are two FakeSides playing c in two-host mode: "near" on eth0
// (198.18.0.1, netperf's end) and "far" on eth1 (198.18.0.2, netserver's).
//
// Similar to: two hosts joined by a link, without the hosts.
func FakeSides(c *Case) (*runbook.Sides, error) {
	near, err := NewFakeSide("near", c, "eth0", "198.18.0.1")
	if err != nil {
		return nil, err
	}
	far, err := NewFakeSide("far", c, "eth1", "198.18.0.2")
	if err != nil {
		return nil, err
	}
	return &runbook.Sides{Mode: runbook.TwoHosts, Near: near, Far: far, NearNetdev: "eth0", FarNetdev: "eth1"}, nil
}
