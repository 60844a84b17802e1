package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

func TestProgressPlain(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, 3)
	now := p.start
	p.now = func() time.Time { return now }
	p.Step("prepare %s", "rxe0")
	now = now.Add(10 * time.Second)
	p.Step("run 1")
	now = now.Add(10 * time.Second)
	p.Step("run 2")
	p.Done()
	want := []string{
		"[1/3] prepare rxe0 (0s elapsed, ETA unknown)",
		"[2/3] run 1 (10s elapsed, ETA 20s)",
		"[3/3] run 2 (20s elapsed, ETA 10s)",
		"done: 3 steps in 20s",
	}
	if got := strings.Split(strings.TrimSpace(b.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", b.String(), strings.Join(want, "\n"))
	}
}

// TestProgressNoETAFromAnInstant: a first step that took no time used to
// give "ETA 0s" for the whole run.
func TestProgressNoETAFromAnInstant(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, 3)
	now := p.start
	p.now = func() time.Time { return now }
	p.Step("read the netdev")
	now = now.Add(200 * time.Millisecond)
	p.Step("run 1 (30s)")
	if got := strings.Split(strings.TrimSpace(b.String()), "\n")[1]; got != "[2/3] run 1 (30s) (0s elapsed, ETA unknown)" {
		t.Errorf("second step: %q", got)
	}
}

func TestFlagsOpen(t *testing.T) {
	ctx := context.Background()
	if _, err := (&Flags{}).Open(ctx); err == nil {
		t.Error("no -netdev accepted")
	}
	if _, err := (&Flags{Netdev: "eth0", Peer: "h", PeerNetns: "n"}).Open(ctx); err == nil {
		t.Error("-peer with -peer-netns accepted")
	}
	if _, err := (&Flags{Netdev: "eth0", PeerNetdev: "eth1"}).Open(ctx); err == nil {
		t.Error("-peer-netdev in loopback accepted")
	}
	j := t.TempDir() + "/journal.jsonl"
	s, err := (&Flags{Netdev: "eth0", Journal: j}).Open(ctx)
	if err != nil {
		t.Fatal(err)
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
		Server: perftest.Side{Role: perftest.Server, Stdout: []byte("s-out"), Stderr: []byte("s-err")},
		Client: perftest.Side{Role: perftest.Client, Stdout: []byte("c-out"), Stderr: []byte("c-err")},
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
