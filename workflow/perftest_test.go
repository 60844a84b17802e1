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
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rocekittest"
	"github.com/rocekit/rocekit/workflow"
)

// fakeSides plays a captured pair (trixie's ib_send_bw --report_gbits).
func fakeSides(t *testing.T) *runbookSides {
	t.Helper()
	c, err := rocekittest.Lookup("trixie/perftest/send-bw-gbits")
	if err != nil {
		t.Fatal(err)
	}
	srv, cli, err := rocekittest.FakePair(c)
	if err != nil {
		t.Fatal(err)
	}
	s := rocekittest.FakeSidesOn(srv, cli)
	return &runbookSides{s, s.Far.(*rocekittest.FakeSide), s.Near.(*rocekittest.FakeSide)}
}

// TestRunPerftestRecordsTheRound: the step's round has its parameters as
// data, both ends' fingerprint with the command lines as run (the
// client pinned), findings stored in the round, the archive written and
// the round appended; a second step compares with the first.
func TestRunPerftestRecordsTheRound(t *testing.T) {
	fs := fakeSides(t)
	dir := t.TempDir()
	store := report.OpenStore(filepath.Join(dir, "rounds.jsonl"))
	step := workflow.PerftestStep{Options: perftest.Options{Test: perftest.SendBW, Iterations: 300, ReportGbits: true, Port: 18600,
		Client: perftest.End{CPUs: []int{1}}}, Count: 2, Governor: "performance", Out: dir, Store: store,
		Params: []report.Param{{Key: "qps", Value: "1"}}}
	res, err := workflow.RunPerftest(context.Background(), fs.Sides, step)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Round
	if !res.Measured || r.Name != "ib_send_bw" || len(res.Pairs.Pairs) != 2 {
		t.Fatalf("measured %v, name %q, %d pairs", res.Measured, r.Name, len(res.Pairs.Pairs))
	}
	for k, want := range map[string]string{"mode": "two-host", "netdev_mtu": "1500", "governor": "performance", "client_cpus": "1", "qps": "1"} {
		if v, _ := r.Param(k); v != want {
			t.Errorf("param %s = %q, want %q", k, v, want)
		}
	}
	// The options as run travel as data: both ends' devices and GID
	// indices from the RXE links, the client's CPUs.
	if o := r.Perftest; o == nil || o.Server.Device != "rxe0" || o.Server.GIDIndex == nil || !slices.Equal(o.Client.CPUs, []int{1}) || o.Iterations != 300 {
		t.Errorf("recorded options %+v", r.Perftest)
	}
	fp := r.Fingerprint
	if fp == nil || fp.Kernel != "6.12.0-fake" || len(fp.RXE) != 2 || len(fp.Argv) != 2 {
		t.Fatalf("fingerprint %+v", fp)
	}
	srv, cli := fp.Argv[0], fp.Argv[1]
	if srv.Role != "server" || !slices.Contains(srv.Argv, "-x") || cli.Role != "client" ||
		!slices.Equal(cli.Argv[:3], []string{"taskset", "-c", "1"}) || cli.Argv[len(cli.Argv)-1] != "198.18.0.2" {
		t.Errorf("argv server %q, client %q", srv.Argv, cli.Argv)
	}
	if len(cli.MTUs) != 1 || cli.MTUs[0] != (report.NetdevMTU{Netdev: "eth0", MTU: 1500}) {
		t.Errorf("client MTUs %+v", cli.MTUs)
	}
	for _, f := range []*rocekittest.FakeSide{fs.far, fs.near} {
		if !slices.Contains(f.Changes(), "governor performance") {
			t.Errorf("%s: changes %q, want the governor set", f.Name(), f.Changes())
		}
	}
	if res.Previous != nil || res.Comparison != nil {
		t.Errorf("first round compared with %+v", res.Previous)
	}
	if res.Archive != filepath.Join(dir, "ib_send_bw.tar.gz") {
		t.Errorf("archive %q", res.Archive)
	}
	if _, err := os.Stat(res.Archive); err != nil {
		t.Error(err)
	}
	// The archive reruns the round: argv.txt and rerun.sh hold both
	// sides' command lines, the server first and in the background.
	af, err := os.Open(res.Archive)
	if err != nil {
		t.Fatal(err)
	}
	_, files, err := report.ReadArchive(af)
	af.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range files {
		got[f.Name] = string(f.Data)
	}
	rerun := got[report.ArchiveRerun]
	if !strings.Contains(got[report.ArchiveArgv], "198.18.0.2") || strings.Contains(rerun, "No command lines") ||
		!strings.Contains(rerun, "ip link set dev eth0 mtu 1500") ||
		!strings.Contains(rerun, "sh -c 'rdma link show rxe0/1 >/dev/null 2>&1 || rdma link add rxe0 type rxe netdev eth0'") || !strings.Contains(rerun, "taskset -c 1 ib_send_bw") ||
		strings.Index(rerun, " &\n") > strings.Index(rerun, "198.18.0.2") {
		t.Errorf("argv.txt:\n%s\nrerun.sh:\n%s", got[report.ArchiveArgv], rerun)
	}
	rounds, _, err := store.Load()
	if err != nil || len(rounds) != 1 || rounds[0].Fingerprint == nil || len(rounds[0].Findings) != len(r.Findings) {
		t.Fatalf("store: %d rounds, %v", len(rounds), err)
	}

	// Changed MTU: still compared with the previous round, and the
	// changed parameter named.
	fs.Sides.NearRXE.NetdevMTU, fs.Sides.FarRXE.NetdevMTU = 9000, 9000
	step.Count = 1
	res2, err := workflow.RunPerftest(context.Background(), fs.Sides, step)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Previous == nil || res2.Comparison == nil {
		t.Fatal("second round not compared with the first")
	}
	found := false
	for _, d := range res2.Comparison.ParamDiff {
		found = found || d.Field == "netdev_mtu" && d.Baseline == "1500" && d.Candidate == "9000"
	}
	if !found {
		t.Errorf("param diffs %+v, want netdev_mtu 1500 → 9000", res2.Comparison.ParamDiff)
	}
}

// TestRunPerftestComparesTheEnds: ends on different kernels give the
// ends_versions_differ finding, stored in the round.
func TestRunPerftestComparesTheEnds(t *testing.T) {
	fs := fakeSides(t)
	fs.far.HostState.Kernel = "6.1.0-41-amd64"
	res, err := workflow.RunPerftest(context.Background(), fs.Sides, workflow.PerftestStep{
		Options: perftest.Options{Test: perftest.SendBW, ReportGbits: true, Port: 18601}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(res.Round.Findings, report.RuleEndsDiffer) {
		t.Errorf("findings %+v, want %s", res.Round.Findings, report.RuleEndsDiffer)
	}
	if res.Round.Fingerprint.Kernel != "far 6.1.0-41-amd64, near 6.12.0-fake" {
		t.Errorf("kernel %q", res.Round.Fingerprint.Kernel)
	}
}

// completionSides are ends whose every client run ends in rdma_rxe's
// completion error (trixie's captured "Failed status 10" output).
func completionSides(t *testing.T) *runbookSides {
	t.Helper()
	c, err := rocekittest.Lookup("trixie/perftest/write-bw-size-mismatch")
	if err != nil {
		t.Fatal(err)
	}
	srvSide, _ := c.Side("server")
	cliSide, _ := c.Side("client")
	f := &host.Fake{Respond: func(cmd host.Cmd) host.FakeScript {
		if rocekittest.PerftestRole(cmd.Argv) == "server" {
			return host.FakeScript{Stdout: string(srvSide.Stdout), Listen: []uint16{18602}, Delay: 300 * time.Millisecond}
		}
		return host.FakeScript{Stdout: string(cliSide.Stdout), Stderr: string(cliSide.Stderr), ExitCode: 1}
	}}
	s := rocekittest.FakeSidesOn(f, f)
	return &runbookSides{s, s.Far.(*rocekittest.FakeSide), s.Near.(*rocekittest.FakeSide)}
}

// TestRunPerftestFailurePolicies: when every run failed there is no
// round; Continue returns the critical finding, Stop an error too, Skip
// neither; each keeps both sides' outputs and stores nothing.
func TestRunPerftestFailurePolicies(t *testing.T) {
	for name, c := range map[string]struct {
		policy      workflow.FailurePolicy
		wantErr     bool
		wantFinding bool
	}{
		"continue": {workflow.Continue, false, true},
		"stop":     {workflow.Stop, true, true},
		"skip":     {workflow.Skip, false, false},
	} {
		fs := completionSides(t)
		dir := t.TempDir()
		store := report.OpenStore(filepath.Join(dir, "rounds.jsonl"))
		res, err := workflow.RunPerftest(context.Background(), fs.Sides, workflow.PerftestStep{
			Options: perftest.Options{Test: perftest.WriteBW, Port: 18602}, Count: 2, OnFailure: c.policy, Out: dir, Store: store, Label: "MTU 1500"})
		if (err != nil) != c.wantErr || c.wantErr && !errors.Is(err, workflow.ErrAllRunsFailed) {
			t.Errorf("%s: err %v", name, err)
		}
		if res.Measured || hasRule(res.Findings, report.RuleRunFailed) != c.wantFinding {
			t.Errorf("%s: measured %v, findings %+v", name, res.Measured, res.Findings)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "failed", "MTU-1500-2", "client.stderr")); err != nil || !strings.Contains(string(b), "Failed status") {
			t.Errorf("%s: kept client.stderr %q, %v", name, b, err)
		}
		if _, err := os.Stat(store.Path()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a failed step wrote the store (%v)", name, err)
		}
	}
}

// TestRunPerftestArchiveBeforeStore: when the archive cannot be written
// the round is not appended, so the store never names a round without
// its archive.
func TestRunPerftestArchiveBeforeStore(t *testing.T) {
	fs := fakeSides(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(out, nil, 0o644); err != nil { // a file where the folder goes
		t.Fatal(err)
	}
	store := report.OpenStore(filepath.Join(dir, "rounds.jsonl"))
	_, err := workflow.RunPerftest(context.Background(), fs.Sides, workflow.PerftestStep{
		Options: perftest.Options{Test: perftest.SendBW, ReportGbits: true, Port: 18603}, Out: out, Store: store})
	if err == nil {
		t.Fatal("archive into a file passed")
	}
	if _, err := os.Stat(store.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("store written before the archive (%v)", err)
	}
}

func hasRule(fs []report.Finding, rule string) bool {
	return slices.ContainsFunc(fs, func(f report.Finding) bool { return f.Rule == rule })
}
