package host

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

func TestFakeScriptsAndCalls(t *testing.T) {
	f := &Fake{Scripts: map[string]FakeScript{
		"ib_send_bw": {Stdout: "header\n 65536 1000 0.00 11.23 0.021\n", Stderr: "warning\n"},
		"false":      {ExitCode: 1, Stderr: "it failed\n"},
		"killed":     {Signal: syscall.SIGSEGV},
	}}
	ctx := context.Background()
	p, err := Run(ctx, f, Cmd{Argv: []string{"ib_send_bw", "-d", "rxe0"}, LineBuffered: true, Env: []string{"LC_ALL=C"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Stdout().String() != "header\n 65536 1000 0.00 11.23 0.021\n" || p.Stderr().String() != "warning\n" || !p.Status().Success() {
		t.Errorf("stdout %q stderr %q status %v", p.Stdout(), p.Stderr(), p.Status())
	}
	var lines []string
	for l := range p.Stdout().Lines(ctx) {
		lines = append(lines, l)
	}
	if len(lines) != 2 || lines[1] != " 65536 1000 0.00 11.23 0.021" {
		t.Errorf("Lines = %q", lines)
	}

	_, err = Run(ctx, f, Cmd{Argv: []string{"/usr/bin/false"}})
	var exitErr *ExitError
	if !errors.As(err, &exitErr) || exitErr.Status.Code != 1 || exitErr.Stderr != "it failed\n" || exitErr.Where != "fake" {
		t.Errorf("false: %v", err)
	}
	_, err = Run(ctx, f, Cmd{Argv: []string{"killed"}})
	if !errors.As(err, &exitErr) || exitErr.Status.Signal != syscall.SIGSEGV || exitErr.Killed != nil {
		t.Errorf("killed: %v", err)
	}
	if _, err := Run(ctx, f, Cmd{Argv: []string{"unscripted"}}); err != nil {
		t.Errorf("unscripted command in a non-strict fake: %v", err)
	}

	want := [][]string{{"ib_send_bw", "-d", "rxe0"}, {"/usr/bin/false"}, {"killed"}, {"unscripted"}}
	if got := f.Argvs(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Argvs = %q, want %q", got, want)
	}
	calls := f.Calls()
	if !calls[0].LineBuffered || !slices.Equal(calls[0].Env, []string{"LC_ALL=C"}) {
		t.Errorf("first call recorded as %+v", calls[0])
	}
	calls[0].Argv[0] = "changed"
	if f.Calls()[0].Argv[0] != "ib_send_bw" {
		t.Error("Calls shares its slices with the fake")
	}
}

func TestFakeStartErrors(t *testing.T) {
	f := &Fake{Strict: true, Scripts: map[string]FakeScript{"busy": {StartErr: syscall.EADDRINUSE}}}
	_, err := f.Start(context.Background(), Cmd{Argv: []string{"ib_write_bw"}})
	var startErr *StartError
	if !errors.Is(err, exec.ErrNotFound) || !errors.As(err, &startErr) {
		t.Errorf("strict, unscripted: %v", err)
	}
	if _, err := f.Start(context.Background(), Cmd{Argv: []string{"busy"}}); !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("StartErr: %v", err)
	}
	if _, err := f.Start(context.Background(), Cmd{}); !errors.Is(err, ErrInvalidCmd) {
		t.Errorf("empty argv: %v", err)
	}
	if n := len(f.Calls()); n != 3 {
		t.Errorf("recorded %d calls, want 3", n)
	}
}

func TestFakeDelayAndCancel(t *testing.T) {
	f := &Fake{Respond: func(c Cmd) FakeScript {
		if c.Argv[0] == "slow" {
			return FakeScript{Delay: 150 * time.Millisecond, ExitCode: 2}
		}
		return FakeScript{Hang: true}
	}}
	start := time.Now()
	_, err := Run(context.Background(), f, Cmd{Argv: []string{"slow"}})
	var exitErr *ExitError
	if d := time.Since(start); d < 150*time.Millisecond || !errors.As(err, &exitErr) || exitErr.Status.Code != 2 {
		t.Errorf("slow: %v after %v, want exit 2 after ≥150ms", err, d)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = Run(ctx, f, Cmd{Argv: []string{"server"}})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &exitErr) || exitErr.Status.Signal != syscall.SIGKILL {
		t.Errorf("hang with deadline: %v", err)
	}

	p, err := f.Start(context.Background(), Cmd{Argv: []string{"server"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(context.Background()); err != nil || p.Status().Signal != syscall.SIGTERM {
		t.Errorf("Stop: %v, %v", err, p.Status())
	}
	if err := p.Kill(); err == nil {
		t.Error("Kill after the end succeeded")
	}
}

// The layers above wait for a fake server's port like a real one's.
func TestFakeListening(t *testing.T) {
	f := &Fake{Scripts: map[string]FakeScript{
		"netserver": {Hang: true, Listen: []uint16{12865}, ListenDelay: 30 * time.Millisecond},
		"broken":    {Delay: 10 * time.Millisecond, ExitCode: 1, Stderr: "Couldn't listen to port 18515\n"},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, err := f.Start(ctx, Cmd{Argv: []string{"netserver", "-D"}})
	if err != nil {
		t.Fatal(err)
	}
	socks, _ := f.TCPSockets(ctx)
	if ListeningOn(socks, 12865) {
		t.Error("listening before ListenDelay")
	}
	if err := WaitProcessListening(ctx, srv, 12865); err != nil {
		t.Fatal(err)
	}
	if err := WaitListening(ctx, f, 12865); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	srv.Wait(ctx)
	if socks, _ := f.TCPSockets(ctx); ListeningOn(socks, 12865) {
		t.Error("still listening after the process ended")
	}

	bad, err := f.Start(ctx, Cmd{Argv: []string{"broken"}})
	if err != nil {
		t.Fatal(err)
	}
	err = WaitProcessListening(ctx, bad, 18515)
	var exitErr *ExitError
	if !errors.Is(err, ErrNotListening) || !errors.As(err, &exitErr) || exitErr.Stderr != "Couldn't listen to port 18515\n" {
		t.Errorf("broken server: %v", err)
	}
}
