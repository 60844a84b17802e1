package runbook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/tune"
)

func TestIPv4(t *testing.T) {
	lo, err := os.ReadFile("testdata/ip-j-4-addr-lo.json")
	if err != nil {
		t.Fatal(err)
	}
	none, err := os.ReadFile("testdata/ip-j-4-addr-noaddr.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f := &host.Fake{Scripts: map[string]host.FakeScript{"ip": {Stdout: string(lo)}}}
	if a, err := IPv4(ctx, f, "lo"); err != nil || a != "127.0.0.1" {
		t.Errorf("lo: %q, %v", a, err)
	}
	if got := f.Argvs()[0]; strings.Join(got, " ") != "ip -j -4 addr show dev lo" {
		t.Errorf("argv %q", got)
	}
	f = &host.Fake{Scripts: map[string]host.FakeScript{"ip": {Stdout: string(none)}}}
	if _, err := IPv4(ctx, f, "lo"); !errors.Is(err, ErrNoIPv4) {
		t.Errorf("no address: %v, want ErrNoIPv4", err)
	}
	f = &host.Fake{Scripts: map[string]host.FakeScript{"ip": {Stderr: `Device "nosuch" does not exist.`, ExitCode: 1}}}
	if _, err := IPv4(ctx, f, "nosuch"); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("missing device: %v", err)
	}
	f = &host.Fake{Scripts: map[string]host.FakeScript{"ip": {Stdout: "Usage: ip address"}}}
	if _, err := IPv4(ctx, f, "lo"); err == nil {
		t.Error("non-JSON output accepted")
	}
}

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

func TestPerftestOptionsGIDs(t *testing.T) {
	ctx := context.Background()
	near, far := &Local{}, &Local{Netns: "peer"}
	s := &Sides{Mode: TwoNetns, Near: near, Far: far}
	fi := RXEInfo{Device: "rxe0p", GID: rxe.Selection{Entry: rxe.GIDEntry{Index: 3}}}
	ni := RXEInfo{Device: "rxe0", GID: rxe.Selection{Entry: rxe.GIDEntry{Index: 1}}}
	o := PerftestOptions(perftest.Options{Test: perftest.SendBW}, s, fi, ni)
	if o.Device != "rxe0p" || o.ClientDevice != "rxe0" {
		t.Errorf("devices %q %q", o.Device, o.ClientDevice)
	}
	if i, err := o.GID.ChooseGID(ctx, far.Runner(), "rxe0p", 1); i != 3 || err != nil {
		t.Errorf("server GID %d %v, want 3", i, err)
	}
	if i, err := o.GID.ChooseGID(ctx, near.Runner(), "rxe0", 1); i != 1 || err != nil {
		t.Errorf("client GID %d %v, want 1", i, err)
	}
	if _, err := o.GID.ChooseGID(ctx, near.Runner(), "mlx5_0", 1); err == nil {
		t.Error("a device nobody prepared got a GID")
	}
	// Loopback: one device, one index, and no client device.
	s = &Sides{Mode: Loopback, Near: near, Far: near}
	o = PerftestOptions(perftest.Options{Test: perftest.SendBW}, s, ni, ni)
	if o.ClientDevice != "" {
		t.Errorf("loopback client device %q", o.ClientDevice)
	}
	if i, err := o.GID.ChooseGID(ctx, near.Runner(), "rxe0", 1); i != 1 || err != nil {
		t.Errorf("loopback GID %d %v", i, err)
	}
}

func TestServePeerInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var b bytes.Buffer
	if err := ServePeer(ctx, PeerProtocol, dir, "", "format-disk", "", &b); err == nil || !strings.Contains(err.Error(), "unknown operation") {
		t.Errorf("unknown op: %v", err)
	}
	if err := ServePeer(ctx, PeerProtocol, dir, "", "set-mtu", "{mtu:", &b); err == nil {
		t.Error("bad JSON accepted")
	}
	// Each failure is a classified reply the near side reads back.
	for _, op := range []string{"format-disk", "set-mtu"} {
		line, _ := b.ReadBytes('\n')
		err := readReply(op, line, nil, nil)
		if !errors.Is(err, tune.ErrInvalidInput) {
			t.Errorf("%s reply %s read back as %v, want tune.ErrInvalidInput", op, line, err)
		}
	}
	// Nothing journaled: restore has nothing to do.
	if err := ServePeer(ctx, PeerProtocol, dir, "", "restore", "", &b); err != nil {
		t.Errorf("restore of an empty folder: %v", err)
	}
	if got := b.String(); got != `{"protocol":2,"result":{}}`+"\n" {
		t.Errorf("output %q", got)
	}
	// Another protocol version is refused, naming both.
	b.Reset()
	err := ServePeer(ctx, 1, dir, "", "host", "", &b)
	if !errors.Is(err, ErrPeerProtocol) {
		t.Errorf("protocol 1: %v", err)
	}
	var pe *PeerError
	if rerr := readReply("host", b.Bytes(), nil, nil); !errors.As(rerr, &pe) || !errors.Is(rerr, ErrPeerProtocol) {
		t.Errorf("protocol 1 reply read back as %v", rerr)
	}
	// An agent from before the protocol refuses the flag.
	if rerr := readReply("host", nil, []byte("flag provided but not defined: -protocol\nUsage of rocekit-peer:"), nil); !errors.Is(rerr, ErrPeerProtocol) || !strings.Contains(rerr.Error(), "predates protocol versions") {
		t.Errorf("old agent: %v", rerr)
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
	if s.Mode != Loopback || s.Far != s.Near || s.FarNetdev != "eth0" {
		t.Errorf("loopback sides %+v", s)
	}
	if err := s.Restore(); err != nil {
		t.Errorf("restore without changes: %v", err)
	}
	s, err = (&Flags{Netdev: "eth0", PeerNetns: "peer", PeerNetdev: "eth1", Journal: j}).Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != TwoNetns || s.Far.Name() != "netns peer" || s.FarNetdev != "eth1" || s.Far.Runner().String() != "netns peer" {
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

// A completion error is a run to record; anything else stops.
func TestRunFailed(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(live)
	cancel()
	completion := &perftest.PairError{Side: perftest.Client, Stage: "run",
		Failure: &perftest.Error{Kind: perftest.KindCompletion, Message: "Completion with error at client; Failed status 11"}}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"completion error", live, completion, true},
		{"wrapped", live, fmt.Errorf("run 1: %w", completion), true},
		{"cancelled", cancelled, completion, false},
		{"no such device", live, &perftest.PairError{Side: perftest.Server, Stage: "listen",
			Failure: &perftest.Error{Kind: perftest.KindDeviceNotFound}}, false},
		{"could not start", live, &perftest.PairError{Side: perftest.Server, Stage: "start", Err: errors.New("exec: not found")}, false},
		{"other error", live, errors.New("boom"), false},
	} {
		if got := runFailed(tc.ctx, tc.err); got != tc.want {
			t.Errorf("%s: runFailed = %v, want %v", tc.name, got, tc.want)
		}
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
