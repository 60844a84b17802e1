package runbook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/tune"
)

func TestPerftestOptionsGIDs(t *testing.T) {
	fi := RXE{Device: "rxe0p", GID: rxe.Selection{Entry: rxe.GIDEntry{Index: 3}}}
	ni := RXE{Device: "rxe0", GID: rxe.Selection{Entry: rxe.GIDEntry{Index: 1}}}
	asked := perftest.Options{Test: perftest.SendBW, Server: perftest.End{CPUs: []int{2}}, Client: perftest.End{IBPort: 1, Extra: []string{"-e"}}}
	o := PerftestOptions(asked, fi, ni)
	if o.Server.Device != "rxe0p" || *o.Server.GIDIndex != 3 || o.Client.Device != "rxe0" || *o.Client.GIDIndex != 1 {
		t.Errorf("ends %+v %+v", o.Server, o.Client)
	}
	if !slices.Equal(o.Server.CPUs, []int{2}) || o.Client.IBPort != 1 || !slices.Equal(o.Client.Extra, []string{"-e"}) {
		t.Errorf("the caller's end options were lost: %+v %+v", o.Server, o.Client)
	}
	// Loopback: one device, one index.
	lo := &Sides{Mode: Loopback, Near: &Local{}, NearRXE: ni, FarRXE: ni}
	o = lo.PerftestOptions(perftest.Options{Test: perftest.SendBW})
	if o.Server.Device != "rxe0" || o.Client.Device != "rxe0" || *o.Server.GIDIndex != 1 || *o.Client.GIDIndex != 1 {
		t.Errorf("loopback ends %+v %+v", o.Server, o.Client)
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
	if !errors.Is(err, ErrPeerProtocol) || !strings.Contains(fmt.Sprint(err), fmt.Sprintf("speaks protocol %d, the caller 1", PeerProtocol)) {
		t.Errorf("protocol 1: %v", err)
	}
	var pe *PeerError
	if rerr := readReply("host", b.Bytes(), nil, nil); !errors.As(rerr, &pe) || !errors.Is(rerr, ErrPeerProtocol) || !strings.Contains(rerr.Error(), fmt.Sprintf("speaks protocol %d, the caller 1", PeerProtocol)) {
		t.Errorf("protocol 1 reply read back as %v", rerr)
	}
	// A protocol 2 agent (Netdev with numa_node) is refused, naming both.
	old := []byte(`{"protocol":2,"result":{"name":"eth0","numa_node":0}}`)
	if rerr := readReply("netdev", old, nil, nil); !errors.Is(rerr, ErrPeerProtocol) || !strings.Contains(rerr.Error(), fmt.Sprintf("speaks protocol 2, this build %d", PeerProtocol)) {
		t.Errorf("protocol 2 reply read back as %v", rerr)
	}
	// Progress lines come before the reply; a call cut after one has no
	// reply.
	ready := fmt.Sprintf(`{"protocol":%d,"ready":true}`, PeerProtocol)
	var got map[string]int
	if rerr := readReply("watch-udp-sockets", []byte(ready+"\n"+fmt.Sprintf(`{"protocol":%d,"result":{"samples":3}}`, PeerProtocol)+"\n"), nil, &got); rerr != nil || got["samples"] != 3 {
		t.Errorf("reply after a progress line: %v, %v", got, rerr)
	}
	if rerr := readReply("watch-udp-sockets", []byte(ready+"\n"), nil, &got); rerr == nil || !strings.Contains(rerr.Error(), "not a rocekit-peer reply") {
		t.Errorf("a progress line alone read as a reply: %v", rerr)
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
