package netperf

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
)

// The runbook's command, netperf -t UDP_STREAM -l 30 -- -m 1400 -s 2M -S 2M,
// becomes exactly that argv plus the -k selectors.
func TestArgvRunbook(t *testing.T) {
	o := Options{Test: TestUDPStream, Length: 30 * time.Second, MessageSize: 1400,
		LocalSocketBuffer: 2 << 20, RemoteSocketBuffer: 2 << 20}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []string{"netperf", "-t", "UDP_STREAM", "-l", "30", "--", "-m", "1400", "-s", "2M", "-S", "2M",
		"-k", strings.Join(o.Selectors(), ",")}
	if got := o.Argv(); !slices.Equal(got, want) {
		t.Fatalf("argv\n got %q\nwant %q", got, want)
	}
	// Through the runner: the Fake records the argv Run gave it.
	f := &host.Fake{Strict: true, Scripts: map[string]host.FakeScript{"netperf": {Stdout: udpKeyVal}}}
	res, err := Run(context.Background(), f, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Argvs(); len(got) != 1 || !slices.Equal(got[0], want) {
		t.Fatalf("runner got %q", got)
	}
	if res.UDP == nil || res.UDP.Sent != 349527 || res.UDP.Received != 137135 ||
		*res.UDP.SendMbps != 3914.08 || *res.UDP.RecvMbps != 1535.67 || *res.ThroughputMbps != 1535.67 {
		t.Fatalf("UDP view %+v", res.UDP)
	}
}

// udpKeyVal is the relevant part of a captured UDP_STREAM -k run
// (testdata/loopback/udp-stream-k-all).
const udpKeyVal = `MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET : demo
THROUGHPUT=1535.67
THROUGHPUT_UNITS=10^6bits/s
ELAPSED_TIME=1.00
PROTOCOL=UDP
LOCAL_SEND_CALLS=349527
REMOTE_RECV_CALLS=137135
LOCAL_SEND_THROUGHPUT=3914.08
REMOTE_RECV_THROUGHPUT=1535.67
`

const rrKeyVal = `THROUGHPUT=41234.56
THROUGHPUT_UNITS=Trans/s
ELAPSED_TIME=1.00
TRANSACTION_RATE=41234.560
RT_LATENCY=24.252
P50_LATENCY=23
P99_LATENCY=40
`

func TestArgvAll(t *testing.T) {
	o := Options{Test: TestTCPRR, Host: "198.18.70.2", Port: 13000, Family: IPv4, Length: 2 * time.Second,
		RequestSize: 64, ResponseSize: 0, LocalSocketBuffer: 1000, RemoteSocketBuffer: 3 << 10,
		CPU: &CPUBind{Local: 0, Remote: -1}, Confidence: &ConfidenceOptions{Level: 99, WidthPercent: 5, MaxIterations: 5},
		Extra: []string{"-j"}, TestExtra: []string{"-D"}}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	got := o.Argv()
	want := []string{"netperf", "-4", "-H", "198.18.70.2", "-p", "13000", "-t", "TCP_RR", "-l", "2",
		"-T", "0,", "-I", "99,5", "-i", "5,3", "-j", "--", "-s", "1000", "-S", "3K", "-r", "64,1", "-D", "-k"}
	if !slices.Equal(got[:len(want)], want) || len(got) != len(want)+1 {
		t.Fatalf("argv\n got %q\nwant %q + selectors", got, want)
	}
	sel := strings.Split(got[len(got)-1], ",")
	for _, s := range []string{"THROUGHPUT", "THROUGHPUT_UNITS", "LOCAL_SEND_CALLS", "REMOTE_RECV_CALLS",
		"LOCAL_SEND_THROUGHPUT", "REMOTE_RECV_THROUGHPUT", "TRANSACTION_RATE", "P50_LATENCY", "P90_LATENCY",
		"P99_LATENCY", "ELAPSED_TIME", "CONFIDENCE_ITERATION", "THROUGHPUT_CONFID"} {
		if !slices.Contains(sel, s) {
			t.Errorf("selector %s not requested", s)
		}
	}
}

// Every selector asked for is one netperf 2.7 knows: netperf silently
// drops unknown names from a list.
func TestSelectorsKnown(t *testing.T) {
	known := map[string]bool{}
	for _, h := range selectorHeaders {
		known[h.name] = true
	}
	for _, test := range []Test{TestTCPStream, TestTCPMaerts, TestUDPStream, TestTCPRR, TestUDPRR, TestTCPCRR} {
		o := Options{Test: test, Confidence: &ConfidenceOptions{Level: 95, WidthPercent: 10}}
		for _, s := range o.Selectors() {
			if !known[s] {
				t.Errorf("%s: selector %s unknown to netperf 2.7", test, s)
			}
		}
		if got := o.Selectors(); test.IsRR() != slices.Contains(got, "P99_LATENCY") {
			t.Errorf("%s: latency selectors %v", test, got)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Options{Test: TestTCPStream}
	for _, c := range []struct {
		field string
		edit  func(o *Options)
	}{
		{"Test", func(o *Options) { o.Test = "" }},
		{"Test", func(o *Options) { o.Test = "TCP_FOO" }},
		{"Length", func(o *Options) { o.Length = 1500 * time.Millisecond }},
		{"Length", func(o *Options) { o.Length = -time.Second }},
		{"Host", func(o *Options) { o.Host = "-x" }},
		{"Host", func(o *Options) { o.Host = "a,inet" }},
		{"Family", func(o *Options) { o.Family = 5 }},
		{"MessageSize", func(o *Options) { o.MessageSize = -1 }},
		{"MessageSize", func(o *Options) { o.Test, o.MessageSize = TestTCPRR, 100 }},
		{"MessageSize", func(o *Options) { o.Test, o.MessageSize = TestUDPStream, 70000 }},
		{"LocalSocketBuffer", func(o *Options) { o.LocalSocketBuffer = -1 }},
		{"RemoteSocketBuffer", func(o *Options) { o.RemoteSocketBuffer = -1 }},
		{"RequestSize", func(o *Options) { o.RequestSize = 1 }},
		{"RequestSize", func(o *Options) { o.Test, o.ResponseSize = TestTCPRR, -1 }},
		{"CPU", func(o *Options) { o.CPU = &CPUBind{-1, -1} }},
		{"Confidence", func(o *Options) { o.Confidence = &ConfidenceOptions{Level: 90, WidthPercent: 5} }},
		{"Confidence", func(o *Options) { o.Confidence = &ConfidenceOptions{Level: 99} }},
		{"Confidence", func(o *Options) { o.Confidence = &ConfidenceOptions{Level: 99, WidthPercent: 5, MaxIterations: 31} }},
		{"Confidence", func(o *Options) {
			o.Confidence = &ConfidenceOptions{Level: 99, WidthPercent: 5, MaxIterations: 4, MinIterations: 5}
		}},
		{"Extra", func(o *Options) { o.Extra = []string{"-l", "5"} }},
		{"Extra", func(o *Options) { o.Extra = []string{"-P0"} }},
		{"Extra", func(o *Options) { o.Extra = []string{"--"} }},
		{"TestExtra", func(o *Options) { o.TestExtra = []string{"-k", "THROUGHPUT"} }},
		{"TestExtra", func(o *Options) { o.TestExtra = []string{"-o"} }},
		{"TestExtra", func(o *Options) { o.TestExtra = []string{"-m1400"} }},
		{"TestExtra", func(o *Options) { o.TestExtra = []string{"a\x00b"} }},
	} {
		o := ok
		c.edit(&o)
		err := o.Validate()
		var oe *OptionsError
		if !errors.As(err, &oe) || oe.Field != c.field || !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: got %v, want an OptionsError on %s", o, err, c.field)
			continue
		}
		// Run refuses before starting anything.
		f := &host.Fake{}
		if _, err := Run(context.Background(), f, o); !errors.Is(err, ErrInvalidOptions) || len(f.Calls()) != 0 {
			t.Errorf("%+v: Run gave %v after %d starts", o, err, len(f.Calls()))
		}
	}
	for _, o := range []Options{
		ok,
		{Test: TestUDPStream, MessageSize: 65507, Length: 0},
		{Test: TestTCPCRR, RequestSize: 1, ResponseSize: 1, CPU: &CPUBind{-1, 2}},
		{Test: TestTCPStream, Extra: []string{"-f", "g"}, TestExtra: []string{"-D"}},
	} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int]string{1: "1", 1000: "1000", 1024: "1K", 1536: "1536", 2 << 20: "2M",
		3 << 30: "3G", 1<<20 + 1024: "1025K"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRunTimeout(t *testing.T) {
	if got := (&Options{Test: TestTCPRR}).runTimeout(); got != 25*time.Second {
		t.Errorf("default: %v", got)
	}
	o := Options{Test: TestTCPRR, Length: 30 * time.Second, Confidence: &ConfidenceOptions{Level: 99, WidthPercent: 5, MaxIterations: 3}}
	if got := o.runTimeout(); got != 3*35*time.Second+10*time.Second {
		t.Errorf("confidence: %v", got)
	}
	o.Timeout = 7 * time.Second
	if got := o.runTimeout(); got != 7*time.Second {
		t.Errorf("Timeout: %v", got)
	}
	o.Timeout = -time.Second
	if err := o.Validate(); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("negative Timeout: %v", err)
	}
}

// Failures netperf reports come back as *Error with their kind; the exit
// status and streams are as netperf 2.7 gives them.
func TestRunFailures(t *testing.T) {
	noServer := "establish control: are you sure there is a netserver listening on 198.18.70.9 at port 12865?\n" +
		"establish_control could not establish the control connection from 0.0.0.0 port 0 address family AF_UNSPEC to 198.18.70.9 port 12865 address family AF_INET\n"
	for _, c := range []struct {
		name   string
		script host.FakeScript
		kind   Kind
		result bool
	}{
		{"no server", host.FakeScript{Stdout: noServer, ExitCode: 255}, KindNoServer, false},
		{"server killed", host.FakeScript{Stderr: "recv_response: partial response received: 0 bytes\n", ExitCode: 1}, KindControlLost, false},
		{"control reset", host.FakeScript{Stderr: "recv_response: Connection reset by peer\n", ExitCode: 1}, KindControlLost, false},
		{"sigpipe", host.FakeScript{Stdout: "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 198.18.70.9 () port 0 AF_INET : demo\n", Signal: syscall.SIGPIPE}, KindControlLost, false},
		{"bad test option", host.FakeScript{Stdout: rrKeyVal, Stderr: "netperf: invalid option -- 'X'\n"}, KindBadOption, true},
		{"remote error", host.FakeScript{Stdout: "netperf: remote error 22", Stderr: ": Invalid argument\n", ExitCode: 255}, KindRemote, false},
	} {
		f := &host.Fake{Scripts: map[string]host.FakeScript{"netperf": c.script}}
		res, err := Run(context.Background(), f, Options{Test: TestTCPRR, Host: "198.18.70.9"})
		var ne *Error
		if !errors.As(err, &ne) || ne.Kind != c.kind {
			t.Errorf("%s: got %v, want kind %s", c.name, err, c.kind)
			continue
		}
		if !strings.Contains(ne.Raw, strings.TrimSpace(c.script.Stdout + c.script.Stderr)[:10]) {
			t.Errorf("%s: Raw %q", c.name, ne.Raw)
		}
		if c.result != (res != nil && res.TransPerSec != nil) {
			t.Errorf("%s: result %+v", c.name, res)
		}
	}

	// Success, a missing binary, unclassified failure, empty output.
	f := &host.Fake{Scripts: map[string]host.FakeScript{"netperf": {Stdout: rrKeyVal}}}
	res, err := Run(context.Background(), f, Options{Test: TestTCPRR})
	if err != nil || *res.TransPerSec != 41234.56 || *res.Omni.P99LatencyMicros != 40 {
		t.Fatalf("rr: %v %+v", err, res)
	}
	if string(res.Stdout) != rrKeyVal || len(res.Stderr) != 0 {
		t.Errorf("raw output not kept: %d bytes of stdout, stderr %q", len(res.Stdout), res.Stderr)
	}
	f = &host.Fake{Strict: true}
	if _, err := Run(context.Background(), f, Options{Test: TestTCPRR}); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("missing binary: %v", err)
	}
	f = &host.Fake{Scripts: map[string]host.FakeScript{"netperf": {ExitCode: 3, Stderr: "something odd\n"}}}
	_, err = Run(context.Background(), f, Options{Test: TestTCPRR})
	var ee *host.ExitError
	if !errors.As(err, &ee) || ee.Status.Code != 3 {
		t.Errorf("unclassified: %v", err)
	}
	f = &host.Fake{}
	if _, err := Run(context.Background(), f, Options{Test: TestTCPRR}); !errors.Is(err, ErrParse) {
		t.Errorf("empty output: %v", err)
	}
}

// A run that outlasts ctx is killed, and the error says why.
func TestRunCancel(t *testing.T) {
	f := &host.Fake{Scripts: map[string]host.FakeScript{"netperf": {Hang: true}}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, f, Options{Test: TestTCPStream, Length: time.Second})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestNetserverFake(t *testing.T) {
	ctx := context.Background()
	f := &host.Fake{Scripts: map[string]host.FakeScript{"netserver": {Hang: true, Listen: []uint16{13001}, ListenDelay: 20 * time.Millisecond}}}
	s, err := StartNetserver(ctx, f, ServerOptions{Port: 13001, Family: IPv4})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"netserver", "-D", "-p", "13001", "-4"}; !slices.Equal(f.Argvs()[0], want) {
		t.Fatalf("argv %q", f.Argvs()[0])
	}
	if s.Port() != 13001 {
		t.Fatal(s.Port())
	}
	// One start; a busy port is netserver's own "Unable to start", below
	// (TestRootBusyPort shows it on a real kernel).
	if n := len(f.Calls()); n != 1 {
		t.Fatalf("%d calls to start one netserver: %v", n, f.Calls())
	}
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// netserver that cannot bind exits 1 with this on stderr.
	f = &host.Fake{Scripts: map[string]host.FakeScript{"netserver": {ExitCode: 1, Delay: 10 * time.Millisecond,
		Stderr: "Unable to start netserver with  'IN(6)ADDR_ANY' port '12865' and family AF_UNSPEC\n"}}}
	if _, err := StartNetserver(ctx, f, ServerOptions{}); !errors.Is(err, ErrPortBusy) {
		t.Fatalf("unable to start: %v", err)
	}
	if want := []string{"netserver", "-D", "-p", "12865"}; !slices.Equal(f.Argvs()[0], want) {
		t.Fatalf("argv %q", f.Argvs()[0])
	}
	f = &host.Fake{Strict: true}
	if _, err := StartNetserver(ctx, f, ServerOptions{Port: 1}); !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := StartNetserver(ctx, f, ServerOptions{Family: 7}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("family: %v", err)
	}
	o := ServerOptions{Port: 5, Family: IPv6, Addr: "fd00::1"}
	if want := []string{"netserver", "-D", "-p", "5", "-6", "-L", "fd00::1"}; !slices.Equal(o.Argv(), want) {
		t.Fatalf("argv %q", o.Argv())
	}
}

// A run that outlasts its own deadline is killed with ErrRunTimeout.
func TestRunOwnDeadline(t *testing.T) {
	f := &host.Fake{Scripts: map[string]host.FakeScript{"netperf": {Hang: true}}}
	_, err := Run(context.Background(), f, Options{Test: TestUDPRR, Length: time.Second, Timeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrRunTimeout) {
		t.Fatalf("got %v", err)
	}
}

// TestRunCPUs: Options.CPUs and ServerOptions.CPUs reach host.Cmd.CPUs,
// with the argv unchanged, and out-of-range CPUs are refused.
func TestRunCPUs(t *testing.T) {
	f := &host.Fake{Strict: true, Scripts: map[string]host.FakeScript{
		"netperf":   {Stdout: udpKeyVal},
		"netserver": {Hang: true, Listen: []uint16{DefaultPort}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns, err := StartNetserver(ctx, f, ServerOptions{CPUs: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Kill()
	if _, err := Run(ctx, f, Options{Test: TestUDPStream, Host: "198.18.0.1", CPUs: []int{2}}); err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	if len(calls) != 2 || calls[0].Argv[0] != "netserver" || !slices.Equal(calls[0].CPUs, []int{3}) ||
		calls[1].Argv[0] != "netperf" || !slices.Equal(calls[1].CPUs, []int{2}) {
		t.Fatalf("calls %+v, want netserver on [3], netperf on [2]", calls)
	}
	var oe *OptionsError
	if _, err := Run(ctx, f, Options{Test: TestUDPStream, CPUs: []int{-1}}); !errors.As(err, &oe) || oe.Field != "CPUs" {
		t.Errorf("CPU -1: err %v, want an OptionsError on CPUs", err)
	}
	if _, err := StartNetserver(ctx, f, ServerOptions{CPUs: []int{host.MaxCPU}}); !errors.As(err, &oe) || oe.Field != "CPUs" {
		t.Errorf("CPU %d: err %v, want an OptionsError on CPUs", host.MaxCPU, err)
	}
}

// TestRunNoResult: a run whose output says nothing (empty, or -k lines
// without THROUGHPUT) is ErrNoResult, whatever netperf's exit status.
func TestRunNoResult(t *testing.T) {
	for name, out := range map[string]string{"empty": "", "no THROUGHPUT": "LOCAL_SEND_CALLS=18402\nREMOTE_RECV_CALLS=18402\n"} {
		f := &host.Fake{Scripts: map[string]host.FakeScript{"netperf": {Stdout: out}}}
		if _, err := Run(context.Background(), f, Options{Test: TestUDPStream}); !errors.Is(err, ErrNoResult) || !errors.Is(err, ErrParse) {
			t.Errorf("%s: err = %v, want ErrNoResult", name, err)
		}
	}
}
