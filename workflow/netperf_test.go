package workflow_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rocekittest"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// udpFakeSides are two fake ends playing a synthetic UDP_STREAM run of 90 %
// received; the receiver's counters grow 9000-byte frames and 5000
// RcvbufErrors per run, its netserver socket holds drops sockDrops; both
// are VMs without cpufreq (the governor is not set).
func udpFakeSides(t *testing.T, sockDrops uint64) (*runbook.Sides, *rocekittest.FakeSide, *rocekittest.FakeSide) {
	t.Helper()
	c := rocekittest.SyntheticUDPStream(rocekittest.UDPStreamNumbers{Sent: 100000, Received: 90000, Elapsed: time.Second})
	near, err := rocekittest.NewFakeSide("fake near", c, "eth0", "198.18.0.1")
	if err != nil {
		t.Fatal(err)
	}
	far, err := rocekittest.NewFakeSide("fake far", c, "eth1", "198.18.0.2")
	if err != nil {
		t.Fatal(err)
	}
	far.Grow = rocekittest.FakeGrowth{RxBytes: 9000 * 1000, RxPackets: 1000, RcvbufErrors: 5000}
	far.Sockets = []nic.UDPSocket{{Drops: sockDrops, RxQueueBytes: 4096, Inode: 7}}
	far.IRQBalance = []int{812}
	near.HostState.Governors, far.HostState.Governors = nil, nil
	return &runbook.Sides{Mode: runbook.TwoHosts, Near: near, Far: far, NearNetdev: "eth0", FarNetdev: "eth1"}, near, far
}

// udpOptions are rounds of one second, two runs each, archived and stored
// in dir.
func udpOptions(t *testing.T, dir, rounds string) workflow.UDPOptions {
	t.Helper()
	specs, err := workflow.ParseUDPRounds(rounds, 9000)
	if err != nil {
		t.Fatal(err)
	}
	return workflow.UDPOptions{Rounds: specs, Count: 2, Out: filepath.Join(dir, "out"), Store: report.OpenStore(filepath.Join(dir, "rounds.jsonl")),
		Netperf: netperf.Options{Length: time.Second, MessageSize: 1400, LocalSocketBuffer: 2 << 20, RemoteSocketBuffer: 2 << 20}}
}

func udpFindingOf(r report.Round, rule string) (report.Finding, bool) {
	i := slices.IndexFunc(r.Findings, func(f report.Finding) bool { return f.Rule == rule })
	if i < 0 {
		return report.Finding{}, false
	}
	return r.Findings[i], true
}

// TestRunUDPRoundsGroups runs the runbook's three groups and the TCP
// reference on fakes: group 2 changes only the MTU and sends MTU-28 byte
// datagrams, group 3 pauses irqbalance and spreads the IRQs, T runs
// TCP_STREAM and is held against the best UDP round; every round is
// archived, then stored, with both ends' versions and command lines.
func TestRunUDPRoundsGroups(t *testing.T) {
	dir := t.TempDir()
	sides, near, far := udpFakeSides(t, 5000)
	o := udpOptions(t, dir, "1,2,3,T")
	results, err := workflow.RunUDPRounds(context.Background(), sides, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 4 {
		t.Fatalf("%d results, want 4", len(results))
	}
	wantMsg := []string{"1400", "8972", "8972", "default"}
	wantMTU := []string{"1500", "9000", "9000", "9000"}
	for i, r := range results {
		if m, _ := r.Round.Param("msg_size"); m != wantMsg[i] {
			t.Errorf("%s: msg_size %s, want %s", r.Round.Name, m, wantMsg[i])
		}
		if m, _ := r.Round.Param("netdev_mtu"); m != wantMTU[i] {
			t.Errorf("%s: netdev_mtu %s, want %s", r.Round.Name, m, wantMTU[i])
		}
		if _, err := os.Stat(r.Archive); err != nil {
			t.Errorf("%s: archive: %v", r.Round.Name, err)
		}
		fp := r.Round.Fingerprint
		if fp == nil || len(fp.Argv) != 2 || fp.Argv[0].Host != "fake far" || !slices.Contains(fp.Tools, report.Param{Key: "netserver[fake far]", Value: "2.7.0"}) ||
			!slices.Contains(fp.Tools, report.Param{Key: "netperf[fake near]", Value: "2.7.0"}) {
			t.Errorf("%s: fingerprint %+v: want both command lines and both versions", r.Round.Name, fp)
		}
		if _, ok := udpFindingOf(r.Round, report.RuleSocketDropsDisagree); ok {
			t.Errorf("%s: socket drops 5000 against RcvbufErrors 5000 said to disagree", r.Round.Name)
		}
	}
	// The netperf command lines as run: -m 8972 in group 2, TCP_STREAM in T.
	var argvs []string
	for _, a := range near.Fake.Argvs() {
		if a[0] == "netperf" && !slices.Contains(a, "-V") {
			argvs = append(argvs, strings.Join(a, " "))
		}
	}
	if len(argvs) != 8 || !strings.Contains(argvs[2], "-m 8972") || !strings.Contains(argvs[6], "-t TCP_STREAM") || !strings.Contains(argvs[0], "-t UDP_STREAM") {
		t.Errorf("netperf runs:\n%s", strings.Join(argvs, "\n"))
	}
	// Group 2 raised no limit; group 3 paused irqbalance before spreading.
	if slices.ContainsFunc(far.Changes(), func(c string) bool { return strings.HasPrefix(c, "sysctl") }) {
		t.Errorf("far changes %q: the runbook's groups raise no socket limit", far.Changes())
	}
	if want := []string{"mtu eth1 9000", "irqbalance paused", "spread eth1"}; !slices.Equal(far.Changes(), want) {
		t.Errorf("far changes %q, want %q", far.Changes(), want)
	}
	if !slices.Contains(results[2].Notes, "irqbalance not running on fake near: nothing to pause") ||
		!slices.ContainsFunc(results[2].Changes, func(c string) bool { return strings.HasPrefix(c, "irqbalance paused on fake far (PIDs [812];") }) {
		t.Errorf("group 3: changes %q, notes %q: want irqbalance paused on the far end, none to pause near", results[2].Changes, results[2].Notes)
	}
	if f, ok := udpFindingOf(results[3].Round, workflow.RuleUDPAgainstTCP); !ok || !strings.Contains(f.Summary, "UDP at ") {
		t.Errorf("round T findings %+v: want udp_against_tcp", results[3].Round.Findings)
	}
	if m, ok := results[1].Round.Metric("recv_frame_mean"); !ok || m.Values[0] != 9000 {
		t.Errorf("round 2 recv_frame_mean %v, want 9000", m.Values)
	}
	if m, ok := results[0].Round.Metric(report.MetricSocketDrops); !ok || !slices.Equal(m.Values, []float64{5000, 5000}) {
		t.Errorf("round 1 socket drops %v, want 5000 per run", m.Values)
	}
	stored, _, err := o.Store.Load()
	if err != nil || len(stored) != 4 || stored[3].Name != "tcp_stream_T" {
		t.Fatalf("store: %d rounds, %v", len(stored), err)
	}
	if stored[1].Findings == nil || stored[0].Fingerprint == nil {
		t.Errorf("stored rounds lack findings or fingerprint")
	}

	// A second run is compared with the first, round by round.
	again, err := workflow.RunUDPRounds(context.Background(), sides, udpOptions(t, dir, "1,2"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if r.Previous == nil || r.Comparison == nil || r.Previous.Name != r.Round.Name {
			t.Errorf("%s: not compared with the previous run", r.Round.Name)
		}
	}
}

// TestRunUDPRoundsDrift: a setting that does not hold once a round has
// made its changes is a finding of that round.
func TestRunUDPRoundsDrift(t *testing.T) {
	sides, _, far := udpFakeSides(t, 5000)
	far.Drift = "irqbalance moved it"
	results, err := workflow.RunUDPRounds(context.Background(), sides, udpOptions(t, t.TempDir(), "1,2,3"))
	if err != nil {
		t.Fatal(err)
	}
	// Read back after the round's own changes: round 2's MTU, then
	// round 3's irqbalance pause and IRQ spread too.
	for i, want := range []int{0, 1, 3} {
		f, ok := udpFindingOf(results[i].Round, workflow.RuleSettingDrifted)
		if len(results[i].Drifts) != want || ok != (want > 0) || (ok && !strings.Contains(f.Summary, "irqbalance moved it")) {
			t.Errorf("round %s: drifts %q, finding %v; want %d drifted", results[i].Spec.Letter, results[i].Drifts, ok, want)
		}
	}
}

// TestRunUDPRoundsSocketDisagree: netserver's socket dropping twice what
// RcvbufErrors counted is a finding.
func TestRunUDPRoundsSocketDisagree(t *testing.T) {
	sides, _, _ := udpFakeSides(t, 10000)
	results, err := workflow.RunUDPRounds(context.Background(), sides, udpOptions(t, t.TempDir(), "A"))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := udpFindingOf(results[0].Round, report.RuleSocketDropsDisagree)
	if !ok || !strings.Contains(f.Summary, "run 1: socket 10000, RcvbufErrors 5000") {
		t.Errorf("findings %+v: want socket_drops_disagree", results[0].Round.Findings)
	}
}

// TestRunUDPRoundsPolicy: with NetperfStop a failed netperf ends the run;
// with NetperfKeepGoing the round whose runs all failed is a critical
// finding, not stored, and the next round runs.
func TestRunUDPRoundsPolicy(t *testing.T) {
	for _, policy := range []workflow.NetperfPolicy{workflow.NetperfStop, workflow.NetperfKeepGoing} {
		dir := t.TempDir()
		sides, near, _ := udpFakeSides(t, 0)
		inner, runs := near.Fake.Respond, 0
		near.Fake.Respond = func(c host.Cmd) host.FakeScript {
			if c.Argv[0] == "netperf" && !slices.Contains(c.Argv, "-V") {
				if runs++; runs <= 2 { // both runs of the first round
					return host.FakeScript{ExitCode: 1, Stderr: "establish_control could not establish the control connection from 0.0.0.0 port 0 address family AF_INET to 198.18.0.2 port 12865 address family AF_INET\n"}
				}
			}
			return inner(c)
		}
		o := udpOptions(t, dir, "A,S")
		o.Policy = policy
		results, err := workflow.RunUDPRounds(context.Background(), sides, o)
		stored, _, _ := o.Store.Load()
		// Either way, what the failed round's netperf printed is kept.
		if b, kerr := os.ReadFile(filepath.Join(o.Out, "failed", "udp_stream_A_default", "raw", "0", "netperf.stderr")); kerr != nil || !strings.Contains(string(b), "establish_control") {
			t.Errorf("policy %d: failed round's netperf.stderr %q, %v", policy, b, kerr)
		}
		if policy == workflow.NetperfStop {
			if !errors.Is(err, netperf.ErrFailed) || len(results) != 0 || len(stored) != 0 {
				t.Errorf("stop: %d results, %d stored, %v; want none and netperf's error", len(results), len(stored), err)
			}
			continue
		}
		if err != nil || len(results) != 2 || results[0].Err == nil || results[1].Err != nil {
			t.Fatalf("keep going: %d results, %v", len(results), err)
		}
		if f, ok := udpFindingOf(results[0].Round, workflow.RuleRoundFailed); !ok || f.Severity != report.SeverityCritical {
			t.Errorf("keep going: round A findings %+v, want a critical round_failed", results[0].Round.Findings)
		}
		if len(stored) != 1 || stored[0].Name != "udp_stream_S_sockmax" {
			t.Errorf("keep going: stored %d rounds, want round S only", len(stored))
		}
	}
}

// TestRunUDPRoundsRefuses: one end, or no rounds, is refused before
// anything runs.
func TestRunUDPRoundsRefuses(t *testing.T) {
	sides, near, _ := udpFakeSides(t, 0)
	loop := &runbook.Sides{Mode: runbook.Loopback, Near: near, Far: near}
	if _, err := workflow.RunUDPRounds(context.Background(), loop, udpOptions(t, t.TempDir(), "A")); !errors.Is(err, runbook.ErrInvalidSides) {
		t.Errorf("loopback: %v, want ErrInvalidSides", err)
	}
	if _, err := workflow.RunUDPRounds(context.Background(), sides, workflow.UDPOptions{}); !errors.Is(err, workflow.ErrRounds) {
		t.Errorf("no rounds: %v, want ErrRounds", err)
	}
	if len(near.Fake.Calls()) != 0 {
		t.Errorf("ran %v", near.Fake.Argvs())
	}
}

// TestUDPRoundRecord: a round's archive holds what reruns it on both
// ends: rerun.sh sets the far end's MTU over SSH, starts netserver there
// as it ran (not through the peer agent) and runs netperf with the
// round's -m; fingerprint.json has both versions and the kernel.
func TestUDPRoundRecord(t *testing.T) {
	dir := t.TempDir()
	sides, _, _ := udpFakeSides(t, 0)
	o := udpOptions(t, dir, "2")
	o.FarTarget = "root@198.18.0.2:2222"
	results, err := workflow.RunUDPRounds(context.Background(), sides, o)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(results[0].Archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, files, err := report.ReadArchive(f)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, af := range files {
		got[af.Name] = string(af.Data)
	}
	rerun := got[report.ArchiveRerun]
	for _, want := range []string{
		"ssh -p 2222 -- root@198.18.0.2 'ip link set dev eth1 mtu 9000'",
		"ip link set dev eth0 mtu 9000\n",
		"ssh -p 2222 -- root@198.18.0.2 'netserver -D -p 12865' &",
		"-t UDP_STREAM", "-m 8972",
	} {
		if !strings.Contains(rerun, want) {
			t.Errorf("rerun.sh lacks %q:\n%s", want, rerun)
		}
	}
	if strings.Contains(rerun, "rocekit-peer") || strings.Contains(rerun, "sysctl -w") {
		t.Errorf("rerun.sh runs the agent or sets a limit group 2 did not raise:\n%s", rerun)
	}
	fp := r.Fingerprint
	if fp == nil || fp.Kernel != "6.12.0-fake" || len(fp.Tools) != 2 || len(fp.NICs) != 2 {
		t.Errorf("fingerprint %+v: want the kernel, both versions, both NICs", fp)
	}
	for _, name := range []string{"raw/0/netperf.stdout", "raw/1/netperf.stdout", "raw/netserver.stdout", "snapshots/0/far-after.json",
		"snapshots/1/netserver-socket.json", "snapshots/netdev-far.json", "snapshots/growth.json", report.ArchiveArgv} {
		if _, ok := got[name]; !ok {
			t.Errorf("archive lacks %s", name)
		}
	}
}

// TestUDPRoundsNetperfVersions: netperf and netserver of two releases are
// a finding of the first round, once.
func TestUDPRoundsNetperfVersions(t *testing.T) {
	sides, _, far := udpFakeSides(t, 0)
	inner := far.Fake.Respond
	far.Fake.Respond = func(c host.Cmd) host.FakeScript {
		if slices.Contains(c.Argv, "-V") {
			return host.FakeScript{Stdout: "Netperf version 2.6.0\n"}
		}
		return inner(c)
	}
	results, err := workflow.RunUDPRounds(context.Background(), sides, udpOptions(t, t.TempDir(), "A,S"))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := udpFindingOf(results[0].Round, workflow.RuleNetperfVersions)
	if !ok || f.Summary != "netperf 2.7.0 on fake near against netserver 2.6.0 on fake far" {
		t.Errorf("round A: %+v", results[0].Round.Findings)
	}
	if _, ok := udpFindingOf(results[1].Round, workflow.RuleNetperfVersions); ok {
		t.Errorf("round S repeats the version finding")
	}
}
