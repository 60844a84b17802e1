package runbook

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
)

// fakeAgent writes a shell script that stands in for rocekit-peer.
func fakeAgent(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A hung agent is given up after the call's deadline (not the run's), and
// a reply larger than the bound is refused, naming it, without being kept
// whole.
func TestPeerCallBounds(t *testing.T) {
	d := labtest.StartSSHD(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dial := func(agent string, c PeerConfig) *Peer {
		c.Target, c.Identity, c.KnownHosts, c.Agent, c.JournalDir = "root@"+d.Addr, d.KeyFile, d.KnownHosts, agent, t.TempDir()
		p, err := DialPeer(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}

	hung := dial(fakeAgent(t, "exec sleep 600"), PeerConfig{CallTimeout: time.Second})
	_, err := hung.Netdev(ctx, "lo")
	var te *PeerTimeoutError
	if !errors.Is(err, ErrPeerTimeout) || !errors.As(err, &te) || te.Op != "netdev" || te.Timeout != time.Second {
		t.Errorf("hung agent: %v, want a *PeerTimeoutError for netdev after 1s", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the hung call held the caller's context to its end")
	}

	const bound = 1 << 20
	big := dial(fakeAgent(t, `head -c 50000000 /dev/zero | tr '\0' x`), PeerConfig{MaxReplyBytes: bound})
	_, err = big.Netdev(ctx, "lo")
	var re *PeerReplyTooLargeError
	if !errors.Is(err, ErrPeerReplyTooLarge) || !errors.As(err, &re) || re.Op != "netdev" || re.Max != bound {
		t.Errorf("50 MB reply: %v, want a *PeerReplyTooLargeError naming the 1 MiB bound", err)
	}

	// In a session a reply is one line: one longer than host's default
	// line split (64 KiB) arrives whole; one over the bound ends the
	// session with the bound's error, and the next call starts a new one.
	addr := strings.Repeat("a", 200<<10)
	long := dial(fakeAgent(t, `echo '{"protocol":7,"session":true}'
read -r req || exit 1
id=$(echo "$req" | sed 's/^{"id":\([0-9]*\).*/\1/')
printf '{"protocol":7,"id":%s,"result":{"addr":"%s"}}\n' "$id" "$(head -c 204800 /dev/zero | tr '\0' a)"
read -r end`), PeerConfig{MaxReplyBytes: 300 << 10})
	if nd, err := long.Netdev(ctx, "lo"); err != nil || nd.Addr != addr {
		t.Errorf("200 KiB session reply: %d bytes of address, %v; want it whole", len(nd.Addr), err)
	}
	over := dial(fakeAgent(t, `echo '{"protocol":7,"session":true}'
read -r req
printf '{"protocol":7,"id":1,"result":{"addr":"%s"}}\n' "$(head -c 204800 /dev/zero | tr '\0' a)"
sleep 600`), PeerConfig{MaxReplyBytes: 100 << 10})
	if _, err := over.Netdev(ctx, "lo"); !errors.As(err, &re) || re.Op != "netdev" || re.Max != 100<<10 {
		t.Errorf("200 KiB session reply over a 100 KiB bound: %v, want a *PeerReplyTooLargeError", err)
	}

	// Defaults: every operation has a deadline, and the bound is set.
	for _, o := range peerOps {
		if d := (&Peer{}).callTimeout(o.Name); d <= 0 || d > 10*time.Minute || (d == DefaultPeerSlowCallTimeout) != o.slow {
			t.Errorf("default deadline of %s: %v (slow %v)", o.Name, d, o.slow)
		}
	}
	if m := (&Peer{}).maxReply(); m != DefaultMaxPeerReplyBytes {
		t.Errorf("default reply bound %d", m)
	}
}
