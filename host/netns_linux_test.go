package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
)

// mustRun runs argv locally and fails the test on error.
func mustRun(t *testing.T, argv ...string) string {
	t.Helper()
	p, err := Run(context.Background(), Local{}, Cmd{Argv: argv})
	if err != nil {
		t.Fatal(err)
	}
	return p.Stdout().String()
}

// netnsPair makes two namespaces hosttest-XXXX-a and -b joined by a veth
// pair (198.18.50.1/24 in a, 198.18.50.2/24 in b), created inside them so
// that nothing touches the caller's namespace, and deleted when the test
// ends (which deletes the veth pair too).
func netnsPair(t *testing.T) (a, b string) {
	labtest.Root(t)
	var r [3]byte
	rand.Read(r[:])
	prefix := "hosttest-" + hex.EncodeToString(r[:])
	a, b = prefix+"-a", prefix+"-b"
	for _, ns := range []string{a, b} {
		mustRun(t, "ip", "netns", "add", ns)
		t.Cleanup(func() { Run(context.Background(), Local{}, Cmd{Argv: []string{"ip", "netns", "del", ns}}) })
		mustRun(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	mustRun(t, "ip", "-n", a, "link", "add", "va", "type", "veth", "peer", "name", "vb", "netns", b)
	mustRun(t, "ip", "-n", a, "addr", "add", "198.18.50.1/24", "dev", "va")
	mustRun(t, "ip", "-n", b, "addr", "add", "198.18.50.2/24", "dev", "vb")
	mustRun(t, "ip", "-n", a, "link", "set", "va", "up")
	mustRun(t, "ip", "-n", b, "link", "set", "vb", "up")
	return a, b
}

func TestNetnsRunsInNamespace(t *testing.T) {
	a, b := netnsPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Run(ctx, Netns{a}, Cmd{Argv: []string{"ip", "-o", "-4", "addr", "show"}})
	if err != nil {
		t.Fatal(err)
	}
	if out := p.Stdout().String(); !strings.Contains(out, "198.18.50.1/24") || strings.Contains(out, "198.18.50.2") {
		t.Errorf("ip addr in %s:\n%s", a, out)
	}
	// The PID is the program's (ip netns exec execs in place) and in the namespace.
	srv, err := Netns{b}.Start(ctx, Cmd{Argv: []string{"sh", "-c", "echo ready; exec sleep 1000"}})
	if err != nil {
		t.Fatal(err)
	}
	waitLine(t, srv.Stdout(), "ready")
	if in, err := inNetns(srv.PID(), NetnsDir+"/"+b); err != nil || !in {
		t.Errorf("pid %d in %s: %v %v", srv.PID(), b, in, err)
	}
	if in, _ := inNetns(srv.PID(), NetnsDir+"/"+a); in {
		t.Errorf("pid %d is in %s too", srv.PID(), a)
	}
	srv.Kill()
	srv.Wait(ctx)
}

func TestNetnsWaitListening(t *testing.T) {
	a, b := netnsPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		mode string
		port uint16
	}{
		{"listen:tcp4:198.18.50.1:18515", 18515}, // /proc/net/tcp
		{"listen:tcp:[::]:12865", 12865},         // dual stack: /proc/net/tcp6
	} {
		srv, err := Netns{a}.Start(ctx, helperCmd(t, tc.mode))
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Kill()
		if err := WaitProcessListening(ctx, srv, tc.port); err != nil {
			t.Fatal(err)
		}
		if err := WaitListening(ctx, Netns{a}, tc.port); err != nil {
			t.Fatal(err)
		}
		short, cancelShort := context.WithTimeout(ctx, 150*time.Millisecond)
		err = WaitListening(short, Netns{b}, tc.port)
		cancelShort()
		if !errors.Is(err, ErrNotListening) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("port %d in %s: %v, want ErrNotListening after the deadline", tc.port, b, err)
		}
	}
	// Reading the namespace's sockets left no thread of the test in it.
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		if _, err := (Netns{a}).TCPSockets(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tasks, _ := filepath.Glob("/proc/self/task/*/ns/net")
	for _, task := range tasks {
		if ns, err := os.Readlink(task); err == nil && ns != own {
			t.Errorf("%s is %s, want %s", task, ns, own)
		}
	}
	// From b, over the veth: the listener answers.
	p, err := Run(ctx, Netns{b}, helperCmd(t, "connect:198.18.50.1:18515"))
	if err != nil || p.Stdout().String() != "connected\n" {
		t.Fatalf("connect from %s: %v %q", b, err, p.Stdout())
	}
}

func TestNetnsMissing(t *testing.T) {
	n := Netns{"hosttest-does-not-exist"}
	start := time.Now()
	_, err := n.Start(context.Background(), Cmd{Argv: []string{"true"}})
	var startErr *StartError
	if !errors.Is(err, ErrNoNamespace) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &startErr) || time.Since(start) > time.Second {
		t.Errorf("Start: %v", err)
	}
	if _, err := n.TCPSockets(context.Background()); !errors.Is(err, ErrNoNamespace) {
		t.Errorf("TCPSockets: %v", err)
	}
	if _, err := (Netns{"../etc"}).Start(context.Background(), Cmd{Argv: []string{"true"}}); !errors.Is(err, ErrNoNamespace) {
		t.Errorf("bad name: %v", err)
	}
}

func TestNetnsCancelKillsGroup(t *testing.T) {
	a, _ := netnsPair(t)
	testCancelKillsGroup(t, Netns{a})
}

// 200 sequential runs (output, exit codes, a kill on every tenth) leave no
// file descriptor and no process behind.
func TestNetnsNoLeaks(t *testing.T) {
	a, _ := netnsPair(t)
	ctx := context.Background()
	Run(ctx, Netns{a}, Cmd{Argv: []string{"true"}}) // warm up the runtime's lazy fds
	fdsBefore, kidsBefore := openFDs(t), children()
	for i := range 200 {
		if i%10 == 9 {
			cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			_, err := Run(cctx, Netns{a}, Cmd{Argv: []string{"sleep", "1000"}})
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("run %d: %v", i, err)
			}
			continue
		}
		p, err := Run(ctx, Netns{a}, Cmd{Argv: []string{"sh", "-c", fmt.Sprintf("echo out%d; echo err%d >&2; exit %d", i, i, i%3)}})
		var exitErr *ExitError
		switch {
		case i%3 == 0 && err != nil, i%3 != 0 && (!errors.As(err, &exitErr) || exitErr.Status.Code != i%3):
			t.Fatalf("run %d: %v", i, err)
		case p.Stdout().String() != fmt.Sprintf("out%d\n", i) || p.Stderr().String() != fmt.Sprintf("err%d\n", i):
			t.Fatalf("run %d: stdout %q stderr %q", i, p.Stdout(), p.Stderr())
		}
	}
	// Descriptors of earlier tests may still close meanwhile; none may appear.
	if added := newFDs(fdsBefore, openFDs(t)); len(added) > 0 {
		t.Errorf("open fds: %d before 200 runs; new after: %v", len(fdsBefore), added)
	}
	if kids := children(); len(kids) != len(kidsBefore) {
		t.Errorf("children: %v before, %v after 200 runs", kidsBefore, kids)
	}
}
