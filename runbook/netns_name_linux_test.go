package runbook

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/rocekit/rocekit/host"
)

// A Local, a Peer and the agent refuse a namespace name that is a path
// ("../../proc/self/ns/net" is the caller's own namespace) where it would
// be opened or passed to "ip netns exec".
func TestNetnsNameIsNotAPath(t *testing.T) {
	ctx := context.Background()
	const name = "../../proc/self/ns/net"
	l := &Local{Netns: name}
	if _, err := l.Netdev(ctx, "lo"); !errors.Is(err, host.ErrInvalidNetnsName) {
		t.Errorf("Local{Netns %q}.Netdev(lo) = %v, want host.ErrInvalidNetnsName", name, err)
	}
	if _, err := l.routeHandle(); !errors.Is(err, host.ErrInvalidNetnsName) {
		t.Errorf("Local{Netns %q}.routeHandle() = %v, want host.ErrInvalidNetnsName", name, err)
	}
	if _, err := (peerNetns{netns: name}).Start(ctx, host.Cmd{Argv: []string{"true"}}); !errors.Is(err, host.ErrInvalidNetnsName) {
		t.Errorf("peer runner in netns %q: %v, want host.ErrInvalidNetnsName", name, err)
	}
	if _, err := DialPeer(ctx, PeerConfig{Target: "root@127.0.0.1:1", Netns: name}); !errors.Is(err, host.ErrInvalidNetnsName) {
		t.Errorf("DialPeer(Netns %q) = %v, want host.ErrInvalidNetnsName", name, err)
	}
	var b bytes.Buffer
	if err := ServePeer(ctx, PeerProtocol, t.TempDir(), name, "netdev", `"lo"`, &b); !errors.Is(err, host.ErrInvalidNetnsName) {
		t.Errorf("ServePeer(netns %q) = %v, want host.ErrInvalidNetnsName", name, err)
	}
}
