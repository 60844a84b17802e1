package perftest

import (
	"context"
	"errors"
	"io/fs"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
)

// pairFixture reads a captured side of ../rocekittest/captures/SUITE/perftest/CASE.
func pairFixture(t *testing.T, suite, name, role string) (stdout, stderr string) {
	t.Helper()
	dir := filepath.Join("..", "rocekittest", "captures", suite, "perftest", name)
	out, err := os.ReadFile(filepath.Join(dir, role+".stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errb, err := os.ReadFile(filepath.Join(dir, role+".stderr"))
	if err != nil {
		t.Fatal(err)
	}
	return string(out), string(errb)
}

// fakePair returns a server Fake that listens on port and plays its
// script, and a client Fake that plays its own, both for prog.
func fakePair(prog string, port uint16, srv, cli host.FakeScript) (*host.Fake, *host.Fake) {
	if srv.Listen == nil && srv.ExitCode == 0 && srv.Signal == 0 && srv.StartErr == nil {
		srv.Listen = []uint16{port}
	}
	return &host.Fake{Name: "server-host", Strict: true, Scripts: map[string]host.FakeScript{prog: srv}},
		&host.Fake{Name: "client-host", Strict: true, Scripts: map[string]host.FakeScript{prog: cli}}
}

// fakeServerLife is how long a scripted server runs: long enough for the
// readiness poll to see its port on a loaded machine.
const fakeServerLife = 500 * time.Millisecond

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestRunPairFixture replays a real captured pair through the Fake: the
// order server, readiness, client; the command lines; both sides parsed.
func TestRunPairFixture(t *testing.T) {
	for _, suite := range []string{"bookworm", "trixie"} {
		for _, c := range []struct {
			name string
			o    Options
		}{
			{"send-bw", Options{Test: SendBW, Iterations: 300}},
			{"write-bw", Options{Test: WriteBW, Iterations: 300}},
			{"read-lat", Options{Test: ReadLat, Iterations: 500}},
			{"send-lat", Options{Test: SendLat, Iterations: 500}},
		} {
			t.Run(suite+"/"+c.name, func(t *testing.T) {
				sOut, sErr := pairFixture(t, suite, c.name, "server")
				cOut, cErr := pairFixture(t, suite, c.name, "client")
				o := c.o
				o.Server, o.NoFreqCheck, o.Port = End{Device: "rxe0", GIDIndex: new(1)}, true, 18600
				o.Client = o.Server
				srvF, cliF := fakePair(o.Test.Program(), 18600,
					host.FakeScript{Stdout: sOut, Stderr: sErr, Delay: fakeServerLife, ListenDelay: 20 * time.Millisecond},
					host.FakeScript{Stdout: cOut, Stderr: cErr, Delay: 30 * time.Millisecond})
				pr, err := RunPair(testCtx(t), srvF, cliF, "198.18.0.1", o)
				if err != nil {
					t.Fatalf("RunPair: %v", err)
				}
				wantS, _ := o.ServerArgv()
				wantC, _ := o.ClientArgv("198.18.0.1")
				if calls := srvF.Calls(); len(calls) != 1 || !slices.Equal(calls[0].Argv, wantS) || !calls[0].LineBuffered {
					t.Errorf("server calls %+v, want %q line-buffered", calls, wantS)
				}
				if calls := cliF.Calls(); len(calls) != 1 || !slices.Equal(calls[0].Argv, wantC) || !calls[0].LineBuffered {
					t.Errorf("client calls %+v, want %q line-buffered", calls, wantC)
				}
				if !slices.Equal(pr.Server.Argv, wantS) || !slices.Equal(pr.Client.Argv, wantC) || pr.Server.GIDIndex != 1 {
					t.Errorf("PairResult argv %q %q", pr.Server.Argv, pr.Client.Argv)
				}
				cr := pr.Client.Result
				if cr == nil || cr.Header.Device != "rxe0" || (len(cr.BW) == 0 && len(cr.Lat) == 0) {
					t.Fatalf("client result %+v", cr)
				}
				if !pr.Server.Result.Server || pr.Client.Result.Server {
					t.Error("server banner not seen on the server side only")
				}
				if string(pr.Client.Stdout) != strings.TrimSuffix(cOut, "\n") && string(pr.Client.Stdout) != cOut {
					t.Error("client stdout not kept raw")
				}
				if len(pr.Mismatches) != 0 {
					t.Errorf("mismatches %v", pr.Mismatches)
				}
				if pr.Server.Listen <= 0 || pr.Client.Elapsed <= 0 || pr.Elapsed < pr.Client.Elapsed {
					t.Errorf("timings: listen %v client %v pair %v", pr.Server.Listen, pr.Client.Elapsed, pr.Elapsed)
				}
			})
		}
	}
}

// TestRunPairFailures feeds the captured failure outputs through the Fake
// and checks the classification and the stage.
func TestRunPairFailures(t *testing.T) {
	const fastGrace = 200 * time.Millisecond
	for _, suite := range []string{"bookworm", "trixie"} {
		t.Run(suite+"/nosuchdev", func(t *testing.T) {
			// The server exits at once: the pair fails at "listen" with
			// the device error and the client is never started.
			sOut, sErr := pairFixture(t, suite, "send-bw-nosuchdev", "server")
			srvF, cliF := fakePair("ib_send_bw", DefaultPort, host.FakeScript{Stdout: sOut, Stderr: sErr, ExitCode: 1}, host.FakeScript{})
			start := time.Now()
			_, err := RunPair(testCtx(t), srvF, cliF, "198.18.0.1", Options{Test: SendBW, Server: End{Device: "nosuchdev"}, ClientGrace: fastGrace, ServerGrace: fastGrace})
			wantPairError(t, err, Server, "listen", KindDeviceNotFound)
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%v does not match fs.ErrNotExist", err)
			}
			if len(cliF.Calls()) != 0 {
				t.Error("client started after the server failed")
			}
			if time.Since(start) > 2*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
		})
		t.Run(suite+"/bad-gid", func(t *testing.T) {
			sOut, sErr := pairFixture(t, suite, "send-bw-bad-gid", "server")
			srvF, cliF := fakePair("ib_send_bw", DefaultPort, host.FakeScript{Stdout: sOut, Stderr: sErr, ExitCode: 1}, host.FakeScript{})
			_, err := RunPair(testCtx(t), srvF, cliF, "198.18.0.1", Options{Test: SendBW, Server: End{GIDIndex: new(99)}, Client: End{GIDIndex: new(99)}, ClientGrace: fastGrace, ServerGrace: fastGrace})
			wantPairError(t, err, Server, "listen", KindGIDIndex)
		})
		t.Run(suite+"/noserver", func(t *testing.T) {
			// The client cannot connect (here: a server that listens
			// and never answers); the client's error is the root cause
			// and the hanging server is killed after the grace period.
			cOut, cErr := pairFixture(t, suite, "send-bw-noserver", "client")
			srvF, cliF := fakePair("ib_send_bw", DefaultPort,
				host.FakeScript{Hang: true, Listen: []uint16{DefaultPort}},
				host.FakeScript{Stdout: cOut, Stderr: cErr, ExitCode: 1})
			pr, err := RunPair(testCtx(t), srvF, cliF, "198.18.0.1", Options{Test: SendBW, ClientGrace: fastGrace, ServerGrace: fastGrace})
			wantPairError(t, err, Client, "run", KindConnectFailed)
			if pr.Server.Status.Signal != syscall.SIGKILL {
				t.Errorf("server status %v, want killed", pr.Server.Status)
			}
		})
		t.Run(suite+"/write-bw-size-mismatch", func(t *testing.T) {
			// Both sides fail; the client's completion error is the
			// root cause, not the server's handshake error after it.
			sOut, sErr := pairFixture(t, suite, "write-bw-size-mismatch", "server")
			cOut, cErr := pairFixture(t, suite, "write-bw-size-mismatch", "client")
			srvF, cliF := fakePair("ib_write_bw", DefaultPort,
				host.FakeScript{Stdout: sOut, Stderr: sErr, ExitCode: 1, Delay: fakeServerLife, Listen: []uint16{DefaultPort}},
				host.FakeScript{Stdout: cOut, Stderr: cErr, ExitCode: 1, Delay: 20 * time.Millisecond})
			pr, err := RunPair(testCtx(t), srvF, cliF, "198.18.0.1", Options{Test: WriteBW, ClientGrace: fastGrace, ServerGrace: fastGrace})
			wantPairError(t, err, Client, "run", KindCompletion)
			if pr.Server.Result == nil || pr.Server.Result.Failure == nil || pr.Server.Result.Failure.Kind != KindHandshake {
				t.Errorf("server side failure %+v", pr.Server.Result)
			}
		})
		t.Run(suite+"/send-bw-size-mismatch", func(t *testing.T) {
			// Both sides succeed with different sizes: only the
			// comparison catches it.
			sOut, sErr := pairFixture(t, suite, "send-bw-size-mismatch", "server")
			cOut, cErr := pairFixture(t, suite, "send-bw-size-mismatch", "client")
			srvF, cliF := fakePair("ib_send_bw", DefaultPort,
				host.FakeScript{Stdout: sOut, Stderr: sErr, Delay: fakeServerLife, Listen: []uint16{DefaultPort}},
				host.FakeScript{Stdout: cOut, Stderr: cErr, Delay: 20 * time.Millisecond})
			pr, err := RunPair(testCtx(t), srvF, cliF, "198.18.0.1", Options{Test: SendBW, ClientGrace: fastGrace, ServerGrace: fastGrace})
			var pe *PairError
			if !errors.Is(err, ErrHeaderMismatch) || !errors.As(err, &pe) || pe.Stage != "headers" {
				t.Fatalf("err %v, want ErrHeaderMismatch", err)
			}
			want := []Mismatch{{Field: "size", Server: "65536", Client: "4096"}}
			if !slices.Equal(pr.Mismatches, want) {
				t.Errorf("mismatches %v, want %v", pr.Mismatches, want)
			}
		})
	}
}

func wantPairError(t *testing.T, err error, side Role, stage string, kind ErrorKind) {
	t.Helper()
	var pe *PairError
	if !errors.As(err, &pe) {
		t.Fatalf("err %v (%T), want a *PairError", err, err)
	}
	if pe.Side != side || pe.Stage != stage {
		t.Errorf("side %q stage %q, want %q %q: %v", pe.Side, pe.Stage, side, stage, err)
	}
	var te *Error
	if !errors.As(err, &te) || te.Kind != kind || !errors.Is(err, &Error{Kind: kind}) || !errors.Is(err, ErrToolFailed) {
		t.Errorf("tool error %v, want kind %v", te, kind)
	}
}

// TestRunPairHungClient: a client that never ends is killed at the
// deadline, with the server, and the error says so.
func TestRunPairHungClient(t *testing.T) {
	srvF, cliF := fakePair("ib_send_bw", DefaultPort,
		host.FakeScript{Hang: true, Listen: []uint16{DefaultPort}}, host.FakeScript{Hang: true})
	start := time.Now()
	pr, err := RunPair(testCtx(t), srvF, cliF, "h", Options{Test: SendBW, Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrPairTimeout) {
		t.Fatalf("err %v, want ErrPairTimeout", err)
	}
	if el := time.Since(start); el < 300*time.Millisecond || el > 3*time.Second {
		t.Errorf("returned after %v", el)
	}
	for _, s := range []Process{pr.Server, pr.Client} {
		if s.Status.Signal != syscall.SIGKILL || s.Err == nil {
			t.Errorf("%s: status %v err %v, want killed", s.Role, s.Status, s.Err)
		}
	}
}

// TestRunPairCancel: cancelling the context mid-run kills both sides and
// returns the context's error.
func TestRunPairCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srvF := &host.Fake{Scripts: map[string]host.FakeScript{"ib_send_lat": {Hang: true, Listen: []uint16{DefaultPort}}}}
	cliF := &host.Fake{Respond: func(host.Cmd) host.FakeScript {
		time.AfterFunc(50*time.Millisecond, cancel) // mid-run
		return host.FakeScript{Hang: true}
	}}
	pr, err := RunPair(ctx, srvF, cliF, "h", Options{Test: SendLat})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrPairTimeout) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if pr.Server.Status.Signal != syscall.SIGKILL || pr.Client.Status.Signal != syscall.SIGKILL {
		t.Errorf("statuses %v %v", pr.Server.Status, pr.Client.Status)
	}
}

// TestRunPairBusyPort: a port already in LISTEN state fails before the
// server starts.
func TestRunPairBusyPort(t *testing.T) {
	srvF, cliF := fakePair("ib_send_bw", 18700, host.FakeScript{}, host.FakeScript{})
	srvF.Sockets = []host.TCPSocket{{Local: netip.MustParseAddrPort("0.0.0.0:18700"), State: host.TCPListen}}
	_, err := RunPair(testCtx(t), srvF, cliF, "h", Options{Test: SendBW, Port: 18700})
	var pe *PairError
	if !errors.Is(err, ErrPortBusy) || !errors.As(err, &pe) || pe.Stage != "port" {
		t.Fatalf("err %v, want ErrPortBusy at port", err)
	}
	if len(srvF.Calls())+len(cliF.Calls()) != 0 {
		t.Error("something was started")
	}

	// A server that cannot bind (another namespace's listener, a race)
	// gives ErrPortBusy too, from its own message.
	srvF, cliF = fakePair("ib_send_bw", 18700, host.FakeScript{Stderr: "Couldn't listen to port 18700\n Unable to open file descriptor for socket connection Unable to init the socket connection\n", ExitCode: 1}, host.FakeScript{})
	_, err = RunPair(testCtx(t), srvF, cliF, "h", Options{Test: SendBW, Port: 18700})
	if !errors.Is(err, ErrPortBusy) || !errors.Is(err, &Error{Kind: KindConnectFailed}) {
		t.Fatalf("err %v, want ErrPortBusy and a connect failure", err)
	}
}

// TestRunPairMissingBinary: a missing perftest program gives
// exec.ErrNotFound at once, on either side.
func TestRunPairMissingBinary(t *testing.T) {
	srvF := &host.Fake{Strict: true}
	_, err := RunPair(testCtx(t), srvF, srvF, "h", Options{Test: ReadBW})
	var pe *PairError
	if !errors.Is(err, exec.ErrNotFound) || !errors.As(err, &pe) || pe.Side != Server || pe.Stage != "start" {
		t.Fatalf("err %v, want exec.ErrNotFound at server start", err)
	}
	srvF, cliF := fakePair("ib_read_bw", DefaultPort, host.FakeScript{Hang: true}, host.FakeScript{})
	cliF.Scripts = nil
	_, err = RunPair(testCtx(t), srvF, cliF, "h", Options{Test: ReadBW})
	if !errors.Is(err, exec.ErrNotFound) || !errors.As(err, &pe) || pe.Side != Client {
		t.Fatalf("err %v, want exec.ErrNotFound at client start", err)
	}
}

// TestRunPairCPUs: each End's CPUs reach each side's host.Cmd,
// and the argv stays the program's own, so a strict Fake finds its script.
func TestRunPairCPUs(t *testing.T) {
	sOut, sErr := pairFixture(t, "trixie", "read-bw", "server")
	cOut, cErr := pairFixture(t, "trixie", "read-bw", "client")
	srvF, cliF := fakePair("ib_read_bw", DefaultPort, host.FakeScript{Stdout: sOut, Stderr: sErr, Delay: fakeServerLife},
		host.FakeScript{Stdout: cOut, Stderr: cErr})
	pr, err := RunPair(testCtx(t), srvF, cliF, "h", Options{Test: ReadBW, Server: End{CPUs: []int{0, 1}}, Client: End{CPUs: []int{1}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := srvF.Calls()[0]; got.Argv[0] != "ib_read_bw" || !slices.Equal(got.CPUs, []int{0, 1}) {
		t.Errorf("server cmd %q on CPUs %v, want ib_read_bw on [0 1]", got.Argv, got.CPUs)
	}
	if got := cliF.Calls()[0]; !slices.Equal(got.CPUs, []int{1}) || !slices.Equal(pr.Client.CPUs, []int{1}) {
		t.Errorf("client cmd CPUs %v, side CPUs %v, want [1]", got.CPUs, pr.Client.CPUs)
	}
	if !slices.Equal(pr.Server.Result.Argv, pr.Server.Argv) || pr.Server.Result.Argv[0] != "ib_read_bw" {
		t.Errorf("server result argv %q, want the side's %q", pr.Server.Result.Argv, pr.Server.Argv)
	}
}

// TestRunPairServerGrace: a server still running once the client
// succeeded is stopped after ServerGrace, not at the deadline, and the
// pair succeeds.
func TestRunPairServerGrace(t *testing.T) {
	out, errb := pairFixture(t, "trixie", "send-bw", "client")
	srvF, cliF := fakePair("ib_send_bw", DefaultPort, host.FakeScript{Hang: true, Listen: []uint16{DefaultPort}},
		host.FakeScript{Stdout: out, Stderr: errb})
	start := time.Now()
	pr, err := RunPair(testCtx(t), srvF, cliF, "h", Options{Test: SendBW, ServerGrace: 200 * time.Millisecond, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("pair took %v, want about the 200ms grace", el)
	}
	if !pr.Server.StoppedAfterGrace || pr.Server.Outcome() != "stopped after the client finished" {
		t.Errorf("server outcome %q (stopped %v)", pr.Server.Outcome(), pr.Server.StoppedAfterGrace)
	}
	if pr.Client.Result == nil || len(pr.Client.Result.BW) == 0 {
		t.Errorf("client result %+v, want its BW rows", pr.Client.Result)
	}
}

// TestRunPairNotStarted: a side that never started says so, and has no
// exit status.
func TestRunPairNotStarted(t *testing.T) {
	srvF, cliF := fakePair("ib_send_bw", DefaultPort, host.FakeScript{Delay: fakeServerLife}, host.FakeScript{})
	cliF.Scripts = nil
	pr, err := RunPair(testCtx(t), srvF, cliF, "h", Options{Test: SendBW})
	if err == nil || pr == nil {
		t.Fatalf("err %v, want a start error", err)
	}
	if pr.Client.Outcome() != "not started" || pr.Client.Status.Code != -1 {
		t.Errorf("client outcome %q status %v, want not started, code -1", pr.Client.Outcome(), pr.Client.Status)
	}
	if pr.Server.Outcome() != "signal KILL" {
		t.Errorf("server outcome %q, want signal KILL", pr.Server.Outcome())
	}
}

// TestRunPairEnds: each End's device, IB port and GID index reach its own
// side's argv and Side, and the Options as run reach each side's Result.
func TestRunPairEnds(t *testing.T) {
	srvF, cliF := fakePair("ib_send_bw", DefaultPort, host.FakeScript{Delay: fakeServerLife}, host.FakeScript{})
	o := Options{Test: SendBW, Server: End{Device: "rxe0", GIDIndex: new(3)}, Client: End{Device: "rxe1", IBPort: 2, GIDIndex: new(5)}}
	pr, _ := RunPair(testCtx(t), srvF, cliF, "h", o)
	if pr.Server.GIDIndex != 3 || pr.Client.GIDIndex != 5 {
		t.Fatalf("gids %d %d, want 3 5", pr.Server.GIDIndex, pr.Client.GIDIndex)
	}
	if got := strings.Join(srvF.Argvs()[0], " "); got != "ib_send_bw -d rxe0 -x 3 -p 18515" {
		t.Errorf("server argv %q", got)
	}
	if got := strings.Join(cliF.Argvs()[0], " "); got != "ib_send_bw -d rxe1 -i 2 -x 5 -p 18515 h" {
		t.Errorf("client argv %q", got)
	}
	if pr.Client.Result == nil || pr.Client.Result.Options == nil || pr.Client.Result.Options.Client.Device != "rxe1" {
		t.Errorf("client result options %+v", pr.Client.Result)
	}
	// No GID index: no -x, and the Side says -1.
	srvF, cliF = fakePair("ib_send_bw", DefaultPort, host.FakeScript{Delay: fakeServerLife}, host.FakeScript{})
	pr, _ = RunPair(testCtx(t), srvF, cliF, "h", Options{Test: SendBW})
	if pr.Server.GIDIndex != -1 || slices.Contains(srvF.Argvs()[0], "-x") {
		t.Errorf("gid %d, argv %q", pr.Server.GIDIndex, srvF.Argvs()[0])
	}
}

// TestRunPairInvalid: invalid options start nothing.
func TestRunPairInvalid(t *testing.T) {
	f := &host.Fake{}
	for _, c := range []struct {
		o    Options
		addr string
	}{
		{Options{Test: SendLat, QPs: 4}, "h"},
		{Options{Test: SendBW, Duration: time.Second, AllSizes: true}, "h"},
		{Options{Test: SendBW}, ""},
	} {
		if _, err := RunPair(testCtx(t), f, f, c.addr, c.o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v %q: %v", c.o, c.addr, err)
		}
	}
	if len(f.Calls()) != 0 {
		t.Error("started")
	}
}

// TestRunPairJSON: with JSON, each side's file is read back over its
// runner and parsed.
func TestRunPairJSON(t *testing.T) {
	sOut, _ := pairFixture(t, "trixie", "send-bw", "server")
	cOut, _ := pairFixture(t, "trixie", "send-bw", "client")
	jsonFile, err := os.ReadFile("../rocekittest/captures/trixie/perftest/send-bw-json/client.json")
	if err != nil {
		t.Skip("no JSON fixture:", err)
	}
	srvF := &host.Fake{Scripts: map[string]host.FakeScript{
		"ib_send_bw": {Stdout: sOut, Delay: fakeServerLife, Listen: []uint16{DefaultPort}},
		"cat":        {Stdout: string(jsonFile)},
	}}
	cliF := &host.Fake{Scripts: map[string]host.FakeScript{
		"ib_send_bw": {Stdout: cOut},
		"cat":        {Stdout: string(jsonFile)},
	}}
	o := Options{Test: SendBW, JSON: true, ReportGbits: true}
	pr, err := RunPair(testCtx(t), srvF, cliF, "h", o)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Client.JSON == nil || len(pr.Client.JSON.BW) != 1 || pr.Client.JSON.HasWarning(WarnUnitUnknown) {
		t.Fatalf("client JSON %+v", pr.Client.JSON)
	}
	last := cliF.Argvs()[len(cliF.Argvs())-1]
	if !slices.Equal(last, []string{"cat", o.JSONFile(Client)}) {
		t.Errorf("read back with %q", last)
	}
}

func TestCompareHeaders(t *testing.T) {
	a := &Result{Test: "Send BW Test", Header: Header{QPs: 1, MTU: 1024, LinkType: "Ethernet", Connection: "RC",
		Local: []Address{{GID: netip.MustParseAddr("::ffff:198.18.0.1")}}}}
	b := &Result{Test: "Send BW Test", Header: Header{QPs: 2, MTU: 1024, LinkType: "Ethernet", Connection: "UC",
		Local: []Address{{GID: netip.MustParseAddr("fe80::1")}}}}
	got := CompareHeaders(a, b)
	want := []Mismatch{{"qps", "1", "2"}, {"connection", "RC", "UC"}, {"gid_family", "ipv4", "ipv6"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if CompareHeaders(a, a) != nil || CompareHeaders(nil, b) != nil || CompareHeaders(a, &Result{}) != nil {
		t.Error("equal or missing headers reported")
	}
	if s := want[1].String(); s != "connection: server RC, client UC" {
		t.Error(s)
	}
}

// TestRepeat: N fresh pairs, and a stop at the first failure.
func TestRepeat(t *testing.T) {
	var runs atomic.Int32
	sOut, sErr := pairFixture(t, "trixie", "send-bw", "server")
	cOut, cErr := pairFixture(t, "trixie", "send-bw", "client")
	srvF := &host.Fake{Respond: func(c host.Cmd) host.FakeScript {
		return host.FakeScript{Stdout: sOut, Stderr: sErr, Delay: fakeServerLife, Listen: []uint16{DefaultPort}}
	}}
	cliF := &host.Fake{Respond: func(c host.Cmd) host.FakeScript {
		if runs.Add(1) == 3 {
			return host.FakeScript{Stderr: " Completion with error at client\n Failed status 12: wr_id 0 syndrom 0x81\n", ExitCode: 17}
		}
		return host.FakeScript{Stdout: cOut, Stderr: cErr}
	}}
	prs, err := Repeat(testCtx(t), 2, srvF, cliF, "h", Options{Test: SendBW})
	if err != nil || len(prs) != 2 || len(srvF.Calls()) != 2 || len(cliF.Calls()) != 2 {
		t.Fatalf("%d results, %v, calls %d/%d", len(prs), err, len(srvF.Calls()), len(cliF.Calls()))
	}
	prs, err = Repeat(testCtx(t), 5, srvF, cliF, "h", Options{Test: SendBW})
	if !errors.Is(err, &Error{Kind: KindCompletion}) || len(prs) != 1 || !strings.Contains(err.Error(), "run 1 of 5") {
		t.Fatalf("%d results, %v", len(prs), err)
	}
	if _, err := Repeat(testCtx(t), 0, srvF, cliF, "h", Options{Test: SendBW}); !errors.Is(err, ErrInvalidOptions) {
		t.Error(err)
	}
}
