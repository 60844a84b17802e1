package runbook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/tune"
)

func TestPerftestOptionsGIDs(t *testing.T) {
	ctx := context.Background()
	near, far := &Local{}, &Local{Netns: "peer"}
	s := &Sides{Mode: TwoNetns, Near: near, Far: far}
	fi := RXE{Device: "rxe0p", GID: rxe.Selection{Entry: rxe.GIDEntry{Index: 3}}}
	ni := RXE{Device: "rxe0", GID: rxe.Selection{Entry: rxe.GIDEntry{Index: 1}}}
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
	// The reply carries the agent's own CPU time (self_cpu_ns), which
	// varies.
	var reply peerReply
	if err := json.Unmarshal(b.Bytes(), &reply); err != nil || reply.Protocol != PeerProtocol || string(reply.Result) != "{}" || reply.Error != nil || reply.SelfCPUNs <= 0 {
		t.Errorf("output %q: %+v, %v", b.String(), reply, err)
	}
	// Another protocol version is refused, naming both.
	b.Reset()
	err := ServePeer(ctx, 1, dir, "", "host", "", &b)
	if !errors.Is(err, ErrPeerProtocol) || !strings.Contains(fmt.Sprint(err), "speaks protocol 5, the caller 1") {
		t.Errorf("protocol 1: %v", err)
	}
	var pe *PeerError
	if rerr := readReply("host", b.Bytes(), nil, nil); !errors.As(rerr, &pe) || !errors.Is(rerr, ErrPeerProtocol) || !strings.Contains(rerr.Error(), "speaks protocol 5, the caller 1") {
		t.Errorf("protocol 1 reply read back as %v", rerr)
	}
	// A protocol 2 agent (Netdev with numa_node) is refused, naming both.
	old := []byte(`{"protocol":2,"result":{"name":"eth0","numa_node":0}}`)
	if rerr := readReply("netdev", old, nil, nil); !errors.Is(rerr, ErrPeerProtocol) || !strings.Contains(rerr.Error(), "speaks protocol 2, this build 5") {
		t.Errorf("protocol 2 reply read back as %v", rerr)
	}
	// An agent from before the protocol refuses the flag.
	if rerr := readReply("host", nil, []byte("flag provided but not defined: -protocol\nUsage of rocekit-peer:"), nil); !errors.Is(rerr, ErrPeerProtocol) || !strings.Contains(rerr.Error(), "predates protocol versions") {
		t.Errorf("old agent: %v", rerr)
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
