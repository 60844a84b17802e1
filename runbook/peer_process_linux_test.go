package runbook

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/netperf"
)

// A netserver started on the peer outlives a lost SSH link (it has no
// terminal to lose); the agent journals it, so the restore of the next
// dial (what every -peer run does first) ends it and frees its port.
func TestPeerProcessRestoredAfterLostLink(t *testing.T) {
	if _, err := exec.LookPath("netserver"); err != nil {
		t.Skip("no netserver (Debian's netperf)")
	}
	d := labtest.StartSSHD(t)
	agent := buildAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := PeerConfig{Target: "root@" + d.Addr, Identity: d.KeyFile, KnownHosts: d.KnownHosts,
		Agent: agent, JournalDir: filepath.Join(t.TempDir(), "peer")}
	const port = 12879
	listening := func() bool {
		socks, err := host.Local{}.TCPSockets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return host.ListeningOn(socks, port)
	}
	if listening() {
		t.Skipf("port %d is in use here", port)
	}
	p, err := DialPeer(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := netperf.StartNetserver(ctx, p.Runner(), netperf.ServerOptions{Port: port})
	if err != nil {
		p.Close()
		t.Fatal(err)
	}
	pid := srv.PID()
	t.Cleanup(func() { exec.Command("kill", "-KILL", "--", "-"+itoa(pid)).Run() })
	// The link is lost: nothing stops netserver on the far host.
	p.SSH.Close()
	if !listening() {
		t.Fatal("netserver stopped with the link; this test needs it to outlive it")
	}
	q, err := DialPeer(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if listening() {
		t.Errorf("port %d still listening after the peer's restore: netserver (PID %d) was left running", port, pid)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
