package cli

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/rxe"
)

func TestFlagsOpen(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		f    Flags
		want string
	}{
		{Flags{}, "-netdev is required"},
		{Flags{Netdev: "eth0", Peer: "h", PeerNetns: "n"}, "-peer and -peer-netns exclude each other"},
		{Flags{Netdev: "eth0", PeerNetdev: "eth1"}, "-peer-netdev needs -peer or -peer-netns"},
		// A name that is a path would open another namespace and put the
		// far journal elsewhere: refused before anything is touched.
		{Flags{Netdev: "eth0", PeerNetns: "../../proc/self/ns/net", Journal: t.TempDir() + "/j.jsonl"}, "-peer-netns: host: network namespace name"},
	} {
		if _, err := c.f.Open(ctx); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%+v) = %v, want %q", c.f, err, c.want)
		}
	}
	j := t.TempDir() + "/journal.jsonl"
	s, err := (&Flags{Netdev: "eth0", Journal: j}).Open(ctx)
	if err != nil {
		t.Fatalf("Open as uid %d (this test needs root, as CI runs it; the others check the flags only): %v", os.Geteuid(), err)
	}
	if s.Mode != runbook.Loopback || s.Far != s.Near || s.FarNetdev != "eth0" {
		t.Errorf("loopback sides %+v", s)
	}
	if err := s.Restore(); err != nil {
		t.Errorf("restore without changes: %v", err)
	}
	s, err = (&Flags{Netdev: "eth0", PeerNetns: "peer", PeerNetdev: "eth1", Journal: j}).Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != runbook.TwoNetns || s.Far.Name() != "netns peer" || s.FarNetdev != "eth1" || s.Far.Runner().String() != "netns peer" {
		t.Errorf("netns sides: %s %s %s", s.Mode, s.Far.Name(), s.FarNetdev)
	}
}

func TestContextNoDeadline(t *testing.T) {
	ctx, cancel := Context(0)
	defer cancel()
	if _, ok := ctx.Deadline(); ok || ctx.Err() != nil {
		t.Errorf("Context(0): deadline set or already done (%v)", ctx.Err())
	}
	ctx, cancel = Context(time.Hour)
	defer cancel()
	if _, ok := ctx.Deadline(); !ok {
		t.Error("Context(1h) has no deadline")
	}
}

func TestSplitList(t *testing.T) {
	if got := SplitList(" eth0, ,eth1,"); !slices.Equal(got, []string{"eth0", "eth1"}) {
		t.Errorf("SplitList = %q", got)
	}
	if got := SplitList(""); got != nil {
		t.Errorf("SplitList(\"\") = %q", got)
	}
}

func TestParseList(t *testing.T) {
	got, err := ParseList("mtus", " 9000,1500 ,4200", 68, 65535)
	if err != nil || fmt.Sprint(got) != "[1500 4200 9000]" {
		t.Errorf("ParseList = %v, %v", got, err)
	}
	for _, bad := range []string{"", "1,,2", "1,x", "0", "70000", "8,8"} {
		if _, err := ParseList("qps", bad, 1, 65535); err == nil || !strings.HasPrefix(err.Error(), "-qps ") {
			t.Errorf("ParseList(%q) = %v, want an error naming -qps", bad, err)
		}
	}
}

func TestPairFilesAndKeepFailed(t *testing.T) {
	p := &perftest.PairResult{
		Server: perftest.Process{Role: perftest.Server, Stdout: []byte("s-out"), Stderr: []byte("s-err")},
		Client: perftest.Process{Role: perftest.Client, Stdout: []byte("c-out"), Stderr: []byte("c-err")},
	}
	var r report.Round
	files := PairFiles(&r, []*perftest.PairResult{p, p})
	if len(files) != 8 || files[5].Name != "raw/1/server.stderr" || string(files[5].Data) != "s-err" {
		t.Errorf("files: %+v", files)
	}
	if len(r.Outputs) != 8 || r.Outputs[7] != (report.Output{Repeat: 1, Role: "client", Stream: "stderr", Path: "raw/1/client.stderr"}) {
		t.Errorf("outputs: %+v", r.Outputs)
	}
	dir := t.TempDir()
	if err := KeepFailedPairs(dir, "q8", []*perftest.PairResult{p, nil}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "failed", "q8-1", "client.stdout")); err != nil || string(b) != "c-out" {
		t.Errorf("kept client.stdout: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "failed", "q8-2")); err == nil {
		t.Error("a pair that never started left a folder")
	}
}

// fakeSide is a side whose programs run on a host.Fake;
// RepeatPairKeepFailed uses nothing else of it but its name and RDMA port
// counters.
type fakeSide struct {
	runbook.Side
	runner *host.Fake
}

func (f fakeSide) Name() string        { return "fake" }
func (f fakeSide) Runner() host.Runner { return f.runner }
func (f fakeSide) PortCounters(context.Context, string) (rxe.PortCounters, error) {
	return rxe.PortCounters{}, errors.New("no RDMA device in a fake")
}

// TestRepeatPairKeepFailedKeepsTheStoppingPair: a server that exits before it
// listens stops the runs; what it printed is kept in
// out/failed/LABEL-N/, with the label's spaces made dashes.
func TestRepeatPairKeepFailedKeepsTheStoppingPair(t *testing.T) {
	f := &host.Fake{Scripts: map[string]host.FakeScript{"ib_send_bw": {Stderr: "Couldn't listen to port 18515\n", ExitCode: 1}}}
	side := fakeSide{runner: f}
	sides := &runbook.Sides{Mode: runbook.Loopback, Near: side, Far: side, NearNetdev: "eth0", FarNetdev: "eth0"}
	out := t.TempDir()
	opts := perftest.Options{Test: perftest.SendBW, Server: perftest.End{Device: "rxe0"}, Client: perftest.End{Device: "rxe0"}, Iterations: 10}
	ps, err := RepeatPairKeepFailed(context.Background(), sides, runbook.RXE{Device: "rxe0", Addr: "198.18.0.1"}, opts, 3, nil, "MTU 1500: ib_send_bw", out)
	if err == nil || !strings.Contains(err.Error(), "run 1") {
		t.Fatalf("RepeatPairKeepFailed = %v, want the first run's error", err)
	}
	if ps.Stopped == nil || len(ps.Pairs) != 0 || len(ps.Counters) != 1 || len(ps.Counters[0].Warnings) == 0 {
		t.Errorf("pairs: stopped %v, %d kept, counters %+v", ps.Stopped, len(ps.Pairs), ps.Counters)
	}
	b, err := os.ReadFile(filepath.Join(out, "failed", "MTU-1500:-ib_send_bw-1", "server.stderr"))
	if err != nil || !strings.Contains(string(b), "Couldn't listen") {
		t.Errorf("kept server.stderr: %q, %v", b, err)
	}
	// Without -out nothing is written, not in the working folder either.
	cwd := t.TempDir()
	t.Chdir(cwd)
	if _, err := RepeatPairKeepFailed(context.Background(), sides, runbook.RXE{Device: "rxe0", Addr: "198.18.0.1"}, opts, 1, nil, "x", ""); err == nil {
		t.Error("a failing pair passed")
	}
	if ents, err := os.ReadDir(cwd); err != nil || len(ents) != 0 {
		t.Errorf("without -out the working folder has %v (%v), want nothing", ents, err)
	}
	if ents, err := os.ReadDir(filepath.Join(out, "failed")); err != nil || len(ents) != 1 {
		t.Errorf("without -out the earlier out/failed changed: %v (%v)", ents, err)
	}
}

// TestRepeatPairKeepFailedRunsAVoidRunAgain: a run whose client printed a row of
// zeros with perftest's clock warning (the lab's bookworm matrix, r^2
// 0.82) is run again and named in Voided; the kept result is measured.
func TestRepeatPairKeepFailedRunsAVoidRunAgain(t *testing.T) {
	tmpl, err := rocekittest.Lookup("bookworm/perftest/send-bw-gbits")
	if err != nil {
		t.Fatal(err)
	}
	void, err := rocekittest.SyntheticBW(tmpl, []perftest.BWRow{{Bytes: 65536, Iterations: 300}})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := tmpl.Side("server")
	good, _ := tmpl.Side("client")
	bad, _ := void.Side("client")
	clients := 0
	f := &host.Fake{Respond: func(c host.Cmd) host.FakeScript {
		if rocekittest.PerftestRole(c.Argv) == "server" {
			return host.FakeScript{Stdout: string(srv.Stdout), Listen: []uint16{18515}, Delay: 300 * time.Millisecond}
		}
		if clients++; clients == 1 {
			return host.FakeScript{Stdout: string(bad.Stdout), Stderr: "Correlation coefficient r^2: 0.821758 < 0.9\n"}
		}
		return host.FakeScript{Stdout: string(good.Stdout)}
	}}
	side := fakeSide{runner: f}
	sides := &runbook.Sides{Mode: runbook.Loopback, Near: side, Far: side, NearNetdev: "eth0", FarNetdev: "eth0"}
	opts := perftest.Options{Test: perftest.SendBW, Server: perftest.End{Device: "rxe0"}, Client: perftest.End{Device: "rxe0"}, Iterations: 300, ReportGbits: true, Port: 18515}
	ps, err := RepeatPairKeepFailed(context.Background(), sides, runbook.RXE{Device: "rxe0", Addr: "198.18.0.1"}, opts, 1, nil, "x", "")
	if err != nil {
		t.Fatal(err)
	}
	if clients != 2 || len(ps.Voided) != 1 || len(ps.Results) != 1 || ps.Results[0].ClockVoid() || ps.Results[0].BW[0].BWAvgGbps == 0 {
		t.Errorf("%d client runs, voided %q, results %+v", clients, ps.Voided, ps.Results)
	}
}
