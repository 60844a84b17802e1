package host

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestSSHWaitListeningLoop: over SSH, WaitProcessListening waits in one
// remote loop (listenWaiter), one session whatever the wait: for a server that binds after a while, for
// an IPv6 listener, and it fails at once for a server that exits first.
// A port nobody listens on runs into the deadline.
func TestSSHWaitListeningLoop(t *testing.T) {
	if _, err := exec.LookPath("netserver"); err != nil {
		t.Skip("netserver not installed")
	}
	s := startSSHD(t).dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name, script string
		port         uint16
	}{
		{"late bind", "sleep 0.5; exec netserver -D -p 12971", 12971},
		{"ipv6", "exec netserver -D -6 -L ::1 -p 12972", 12972},
	} {
		p, err := s.Start(ctx, Cmd{Argv: []string{"sh", "-c", tc.script}})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.ctl.(listenWaiter); !ok {
			t.Fatalf("an SSH process control %T waits by polling", p.ctl)
		}
		before := s.Sessions()
		if err := WaitProcessListening(ctx, p, tc.port); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if n := s.Sessions() - before; n != 1 {
			t.Errorf("%s: the wait opened %d SSH sessions, want 1", tc.name, n)
		}
		socks, err := s.tcpTable(ctx, p.PID())
		if err != nil || !ListeningOn(socks, tc.port) {
			t.Errorf("%s: WaitProcessListening returned before port %d listened (%v)", tc.name, tc.port, err)
		}
		short, cancelShort := context.WithTimeout(ctx, 1500*time.Millisecond)
		err = WaitProcessListening(short, p, tc.port+100)
		cancelShort()
		if !errors.Is(err, ErrNotListening) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: another port: %v, want ErrNotListening at the deadline", tc.name, err)
		}
		if err := p.Stop(ctx); err != nil {
			t.Errorf("%s: stop: %v", tc.name, err)
		}
	}
	p, err := s.Start(ctx, Cmd{Argv: []string{"sh", "-c", "echo cannot bind >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	err = WaitProcessListening(ctx, p, 12973)
	if !errors.Is(err, ErrNotListening) || !strings.Contains(err.Error(), "process ended") || !strings.Contains(fmt.Sprint(err), "3") {
		t.Errorf("a server that exits: %v", err)
	}
}

// Over SSH too, another program's listener on the port (here the test's
// own, on the same host as sshd) is not the remote process's readiness.
func TestSSHWaitListeningOthersListener(t *testing.T) {
	checkOthersListener(t, startSSHD(t).dial(t), 1500*time.Millisecond)
}
