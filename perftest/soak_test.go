package perftest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
)

// soakCase reads a captured --run_infinitely -D 1 side and parses it.
func soakCase(t *testing.T, suite, name, role string) (string, *Result) {
	t.Helper()
	out, _ := pairFixture(t, suite, name, role)
	res, _ := Parse(strings.NewReader(out))
	return out, res
}

func TestInterimsOfCaptures(t *testing.T) {
	for _, suite := range []string{"bookworm", "trixie"} {
		for _, name := range []string{"send-bw-infinite", "write-bw-infinite"} {
			t.Run(suite+"/"+name, func(t *testing.T) {
				_, res := soakCase(t, suite, name, "client")
				got := Interims(res, time.Second)
				if len(got) == 0 || len(got) != len(res.BW) {
					t.Fatalf("%d interims of %d rows", len(got), len(res.BW))
				}
				for i, in := range got {
					if in.End != time.Duration(i+1)*time.Second {
						t.Errorf("interim %d ends at %v, want %ds", i, in.End, i+1)
					}
					if in.Row.Line != res.BW[i].Line || in.Row.Printed != res.BW[i].Printed || in.Row.PeakMeasured || in.Row.Bytes != 65536 {
						t.Errorf("interim %d: %+v, want row %+v with BW peak not measured", i, in.Row, res.BW[i])
					}
				}
			})
		}
	}
	if Interims(nil, time.Second) != nil || Interims(&Result{BW: []BWRow{{}}}, 0) != nil {
		t.Error("Interims of nothing is not nil")
	}
}

// TestRunSoak replays a captured --run_infinitely pair through the Fake:
// both sides run until signalled; RunSoak stops the client with SIGINT once
// its first interval has passed the soak length, then the server, and
// keeps every row with its time.
func TestRunSoak(t *testing.T) {
	sOut, _ := soakCase(t, "bookworm", "send-bw-infinite", "server")
	cOut, want := soakCase(t, "bookworm", "send-bw-infinite", "client")
	srvF, cliF := fakePair("ib_send_bw", DefaultPort, host.FakeScript{Stdout: sOut, Hang: true}, host.FakeScript{Stdout: cOut, Hang: true})
	var mu sync.Mutex
	var seen []string
	opts := Options{Test: SendBW, Server: End{Device: "rxe0", GIDIndex: new(1)}, Client: End{Device: "rxe0", GIDIndex: new(1)}, NoFreqCheck: true, Duration: time.Second}
	sr, err := RunSoak(testCtx(t), srvF, cliF, "198.18.0.1", opts, 100*time.Millisecond, func(r Role, in Interim) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %.2f", r, in.Row.Printed.Avg))
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("RunSoak: %v", err)
	}
	if !sr.Stopped || sr.Client.Status.Signal != syscall.SIGINT || sr.Server.Status.Signal != syscall.SIGINT {
		t.Errorf("stopped %v, client %v, server %v; want both ended by SIGINT", sr.Stopped, sr.Client.Outcome(), sr.Server.Outcome())
	}
	argv := strings.Join(sr.Client.Argv, " ")
	if !strings.Contains(argv, "-D 1") || !strings.Contains(argv, "--run_infinitely") {
		t.Errorf("client argv %q lacks -D 1 --run_infinitely", argv)
	}
	if len(sr.ClientInterims) != len(want.BW) || len(sr.ServerInterims) == 0 {
		t.Fatalf("%d client interims (want %d), %d server", len(sr.ClientInterims), len(want.BW), len(sr.ServerInterims))
	}
	for i, in := range sr.ClientInterims {
		if in.Row.Printed != want.BW[i].Printed || in.End < time.Second || i > 0 && in.End < sr.ClientInterims[i-1].End {
			t.Errorf("interim %d: %+v at %v, want %+v from 1 s on, in order", i, in.Row.Printed, in.End, want.BW[i].Printed)
		}
	}
	if len(seen) != len(sr.ClientInterims)+len(sr.ServerInterims) {
		t.Errorf("onInterim saw %d rows: %q", len(seen), seen)
	}
	if !bytes.Equal(sr.Client.Stdout, []byte(cOut)) {
		t.Error("the client's output was not kept whole")
	}
	if sr.AfterStop != nil {
		t.Errorf("AfterStop %v: nothing failed", sr.AfterStop)
	}
}

// TestRunSoakServerComplains replays bookworm's write pair: perftest 4.5's
// server says "Failed to exchange data" once its client is gone. The soak
// still succeeds, with that failure in AfterStop.
func TestRunSoakServerComplains(t *testing.T) {
	sOut, sErr := pairFixture(t, "bookworm", "write-bw-infinite", "server")
	cOut, _ := pairFixture(t, "bookworm", "write-bw-infinite", "client")
	srvF, cliF := fakePair("ib_write_bw", DefaultPort, host.FakeScript{Stdout: sOut, Stderr: sErr, Hang: true, Listen: []uint16{DefaultPort}},
		host.FakeScript{Stdout: cOut, Hang: true})
	sr, err := RunSoak(testCtx(t), srvF, cliF, "198.18.0.1", Options{Test: WriteBW, Duration: time.Second}, time.Millisecond, nil)
	if err != nil {
		t.Fatalf("RunSoak: %v", err)
	}
	if sr.AfterStop == nil || sr.AfterStop.Kind != KindHandshake || len(sr.ClientInterims) != 5 {
		t.Errorf("AfterStop %v, %d client rows; want the server's handshake failure and 5 rows", sr.AfterStop, len(sr.ClientInterims))
	}
}

// TestRunSoakClientFails: a client that ends by itself before the stop
// (no server to connect to) fails the soak with RunPair's error.
func TestRunSoakClientFails(t *testing.T) {
	cOut, cErr := pairFixture(t, "trixie", "send-bw-noserver", "client")
	srvF, cliF := fakePair("ib_send_bw", DefaultPort, host.FakeScript{Hang: true}, host.FakeScript{Stdout: cOut, Stderr: cErr, ExitCode: 1})
	sr, err := RunSoak(testCtx(t), srvF, cliF, "198.18.0.1", Options{Test: SendBW, ServerGrace: 50 * time.Millisecond}, time.Minute, nil)
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindConnectFailed {
		t.Fatalf("err %v, want a connect failure", err)
	}
	if sr == nil || sr.Stopped || len(sr.ClientInterims) != 0 {
		t.Errorf("result %+v: want not stopped, no interims", sr)
	}
}

func TestRunSoakOptions(t *testing.T) {
	f := &host.Fake{}
	for name, c := range map[string]struct {
		opts   Options
		length time.Duration
		field  string
	}{
		"no length":     {Options{Test: SendBW}, 0, "length"},
		"latency":       {Options{Test: SendLat}, time.Second, "Test"},
		"send -b":       {Options{Test: SendBW, Bidirectional: true}, time.Second, "Bidirectional"},
		"iterations":    {Options{Test: WriteBW, Iterations: 100}, time.Second, "Iterations"},
		"twice":         {Options{Test: WriteBW, Extra: []string{"--run_infinitely"}}, time.Second, "Extra"},
		"half a second": {Options{Test: WriteBW, Duration: 1500 * time.Millisecond}, time.Second, "Duration"},
	} {
		_, err := RunSoak(testCtx(t), f, f, "198.18.0.1", c.opts, c.length, nil)
		var oe *OptionsError
		if !errors.As(err, &oe) || oe.Field != c.field {
			t.Errorf("%s: %v, want an *OptionsError on %s", name, err, c.field)
		}
	}
	if len(f.Calls()) != 0 {
		t.Errorf("bad options started %d commands", len(f.Calls()))
	}
	o, err := soakOptions(Options{Test: WriteBW}, time.Minute)
	if err != nil || o.Duration != DefaultSoakInterval || o.Timeout < time.Minute+DefaultSoakInterval {
		t.Errorf("soakOptions: -D %v, timeout %v, %v; want -D 5s and room for a minute", o.Duration, o.Timeout, err)
	}
}

// FuzzSoakLines feeds any output line by line to a soak side, as RunSoak's
// OnStdout does: it must never panic, must see the BW rows Parse sees, and
// must time them in order from one interval on.
func FuzzSoakLines(f *testing.F) {
	seeds(f, textSeeds...)
	f.Fuzz(func(t *testing.T, in []byte) {
		s := &soakSide{role: Client, clock: interimClock{every: time.Second}}
		s.begin()
		for rest := in; len(rest) > 0; {
			var line []byte
			line, rest = nextLine(rest)
			s.line(string(line))
		}
		res, _ := Parse(bytes.NewReader(in))
		got := s.rows()
		if len(got) != len(res.BW) {
			t.Fatalf("soak side saw %d BW rows, Parse %d", len(got), len(res.BW))
		}
		for i, in := range got {
			if in.End < time.Second || i > 0 && in.End < got[i-1].End || in.Row.Line != res.BW[i].Line {
				t.Fatalf("interim %d at %v (line %d), want from 1 s on, in order, line %d", i, in.End, in.Row.Line, res.BW[i].Line)
			}
		}
		if want := Interims(res, time.Second); len(want) != len(got) {
			t.Fatalf("Interims gave %d, the soak side %d", len(want), len(got))
		}
	})
}

// TestInfiniteCompletionError: a real --run_infinitely send pair that
// rdma_rxe failed after two intervals (testdata/infinite-completion-*,
// trixie): both sides keep their rows, and both report a completion error,
// the server only by "Error occurred while running infinitely".
func TestInfiniteCompletionError(t *testing.T) {
	for _, role := range []string{"client", "server"} {
		out := readFixture(t, "testdata", "infinite-completion-"+role+".txt")
		errb := readFixture(t, "testdata", "infinite-completion-"+role+".stderr")
		res, err := ParseOutput(out, errb)
		var pe *Error
		if !errors.As(err, &pe) || pe.Kind != KindCompletion {
			t.Errorf("%s: %v, want a completion error", role, err)
		}
		if len(res.BW) != 2 || res.BW[0].Printed.Avg == 0 || Interims(res, time.Second)[1].End != 2*time.Second {
			t.Errorf("%s: rows %+v, want the two rows before the failure", role, res.BW)
		}
	}
}
