package rocekittest_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rocekittest"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/workflow"
)

// TestFakeSidesServeBothSteps: one FakeSides serves the perftest step
// (a captured pair, fast with a short ServerLife) and the UDP rounds
// (a synthetic netperf run), with the same two ends.
func TestFakeSidesServeBothSteps(t *testing.T) {
	ctx := context.Background()
	sides, err := rocekittest.FakeSidesWith(lookup(t, "trixie/perftest/send-bw-gbits"), rocekittest.FakeOptions{ServerLife: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sides.NearNetdev != "eth0" || sides.FarNetdev != "eth1" || sides.FarRXE.Addr != "198.18.0.2" || sides.NearRXE.Device != "rxe0" {
		t.Fatalf("sides %+v", sides)
	}
	res, err := workflow.RunPerftest(ctx, sides, workflow.PerftestStep{
		Options: perftest.Options{Test: perftest.SendBW, ReportGbits: true, Port: 18630}, Count: 2, Governor: "performance"})
	if err != nil || !res.Measured || len(res.Round.Metrics[0].Values) != 2 {
		t.Fatalf("perftest step: %v, %+v", err, res.Round)
	}
	if cli := res.Round.Fingerprint.Argv[1].Argv; cli[len(cli)-1] != "198.18.0.2" {
		t.Errorf("client argv %q, want the far end's address", cli)
	}
	far := sides.Far.(*rocekittest.FakeSide)
	if got := far.Changes(); !slices.Equal(got, []string{"governor performance"}) {
		t.Errorf("far changes %q", got)
	}

	udp, err := rocekittest.FakeSides(rocekittest.SyntheticUDPStream(rocekittest.UDPStreamNumbers{Sent: 1000, Received: 900}))
	if err != nil {
		t.Fatal(err)
	}
	rounds, _ := workflow.ParseUDPRounds("B", 9000)
	dir := t.TempDir()
	results, err := workflow.RunUDPRounds(ctx, udp, workflow.UDPOptions{Rounds: rounds, Out: dir, Store: report.OpenStore(filepath.Join(dir, "r.jsonl")),
		Netperf: netperf.Options{Length: time.Second, MessageSize: 1400}})
	if err != nil || len(results) != 1 {
		t.Fatalf("UDP round: %v, %d results", err, len(results))
	}
	if mtu, _ := results[0].Round.Param("netdev_mtu"); mtu != "9000" {
		t.Errorf("round B at MTU %q", mtu)
	}
	udpFar := udp.Far.(*rocekittest.FakeSide)
	if got := udpFar.Changes(); !slices.Equal(got, []string{"mtu eth1 9000"}) {
		t.Errorf("far changes %q, want round B's MTU", got)
	}
	if err := udp.Restore(); err != nil || len(udpFar.Changes()) != 0 {
		t.Errorf("after Restore: %q, %v", udpFar.Changes(), err)
	}
}

// TestFakeSideBehaviour: the fake records and forgets changes, follows
// the MTU it is asked, sets a governor only with cpufreq, and without an
// rxe device fails as a host without rdma_rxe.
func TestFakeSideBehaviour(t *testing.T) {
	ctx := context.Background()
	s, err := rocekittest.NewFakeSide("a", lookup(t, "trixie/perftest/send-bw"), "eth3", "198.18.0.9")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.PrepareRXE(ctx, runbook.RXEConfig{Netdev: "eth3", MTU: 9000})
	if err != nil || info.NetdevMTU != 9000 || info.GID.Entry.Index != 1 || info.GID.Entry.Netdev != "eth3" {
		t.Fatalf("PrepareRXE %+v, %v", info, err)
	}
	if nd, _ := s.Netdev(ctx, "eth3"); nd.Snapshot.MTU != 9000 {
		t.Errorf("netdev MTU %d after PrepareRXE at 9000", nd.Snapshot.MTU)
	}
	if g, _ := s.SetGovernor(ctx, "performance"); !g.Set {
		t.Errorf("governor %+v on a host with cpufreq", g)
	}
	s.HostState.Governors = nil
	if g, _ := s.SetGovernor(ctx, "performance"); g.Set || g.Reason == "" {
		t.Errorf("governor %+v in a VM", g)
	}
	if got, want := s.Changes(), []string{"mtu eth3 9000", "governor performance"}; !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}
	if err := s.Restore(ctx); err != nil || len(s.Changes()) != 0 {
		t.Errorf("after Restore: %q, %v", s.Changes(), err)
	}
	s.RXE = runbook.RXE{}
	if _, err := s.PrepareRXE(ctx, runbook.RXEConfig{Netdev: "eth3"}); !errors.Is(err, rxe.ErrModuleMissing) {
		t.Errorf("PrepareRXE without rxe: %v", err)
	}
	if _, err := s.PortCounters(ctx, "rxe0"); !errors.Is(err, rxe.ErrModuleMissing) {
		t.Errorf("PortCounters without rxe: %v", err)
	}
	if _, err := rocekittest.FakeSides(lookup(t, "trixie/perftest/version")); !errors.Is(err, rocekittest.ErrNotPair) {
		t.Errorf("FakeSides of a version query: %v", err)
	}
	if _, err := rocekittest.NewFakeSide("x", nil, "eth0", "198.18.0.1"); !errors.Is(err, rocekittest.ErrWrongTool) {
		t.Errorf("NewFakeSide(nil): %v", err)
	}
}
