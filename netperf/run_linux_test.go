package netperf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/labtest"
)

// The root tests put netserver in one fresh namespace and netperf in
// another, joined by a veth pair:
//
//	npruntest-PID-N-c  np0 198.18.70.2/24  <->  np1 198.18.70.1/24  npruntest-PID-N-s
const (
	srvAddr = "198.18.70.1"
	cliAddr = "198.18.70.2"
)

var nsSeq atomic.Int32

type nsPair struct {
	srv, cli host.Netns
}

// newPair makes the two namespaces and the veth; t.Cleanup deletes them
// (and with them the veth).
func newPair(t testing.TB) nsPair {
	t.Helper()
	labtest.Root(t)
	if _, err := exec.LookPath("netserver"); err != nil {
		t.Skip("netserver not installed")
	}
	base := fmt.Sprintf("npruntest-%d-%d", os.Getpid(), nsSeq.Add(1))
	p := nsPair{srv: host.Netns{Name: base + "-s"}, cli: host.Netns{Name: base + "-c"}}
	labtest.NetnsPair(t, p.cli.Name, p.srv.Name, "np0", "np1", cliAddr+"/24", srvAddr+"/24")
	return p
}

// netnsInode is the inode of a namespace, as /proc/PID/ns/net shows it.
func netnsInode(t testing.TB, name string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(host.NetnsDir+"/"+name, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// procsIn lists the live (not zombie) processes whose network namespace is
// one of inodes.
func procsIn(inodes ...uint64) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(fmt.Sprintf("/proc/%d/ns/net", pid), &st) == nil && slices.Contains(inodes, st.Ino) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// waitNoProcs waits (polling) until no process is left in the namespaces.
func waitNoProcs(t testing.TB, inodes ...uint64) {
	t.Helper()
	waitGone(t, nil, inodes...)
}

// waitGone waits (polling) until none of pids is alive and no process is
// left in the namespaces. A killed process is briefly neither in its
// namespace (the kernel detaches it early in exit) nor a zombie yet, so
// both are checked until they agree.
func waitGone(t testing.TB, pids []int, inodes ...uint64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := procsIn(inodes...)
		for _, pid := range pids {
			if alive(pid) && !slices.Contains(left, pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left: %v", left)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitDataConnection waits until the client namespace has the control and
// the data connection established to the server: the test is running.
func waitDataConnection(t testing.TB, p nsPair) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		socks, err := p.cli.TCPSockets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, so := range socks {
			if so.State == host.TCPEstablished && so.Remote.Addr().String() == srvAddr {
				n++
			}
		}
		if n >= 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no data connection: %v", socks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func startServer(t testing.TB, ctx context.Context, p nsPair, port uint16) *Netserver {
	t.Helper()
	s, err := StartNetserver(ctx, p.srv, ServerOptions{Port: port, Family: IPv4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Kill() })
	return s
}

// UDP_STREAM and TCP_RR across the veth, parsed and plausible.
func TestRootRunAcrossNamespaces(t *testing.T) {
	p := newPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := startServer(t, ctx, p, 12866)

	res, err := Run(ctx, p.cli, Options{Test: TestUDPStream, Host: srvAddr, Port: s.Port(), Family: IPv4,
		Length: 2 * time.Second, MessageSize: 1400, LocalSocketBuffer: 2 << 20, RemoteSocketBuffer: 2 << 20})
	if err != nil {
		t.Fatal(err)
	}
	u := res.UDP
	if u == nil || res.ThroughputMbps == nil || u.SendMbps == nil || u.RecvMbps == nil {
		t.Fatalf("UDP_STREAM result incomplete: %+v", res)
	}
	t.Logf("UDP_STREAM: sent %d received %d loss %.2f%% send %.1f Mbit/s recv %.1f Mbit/s",
		u.Sent, u.Received, 100*u.LossRatio, *u.SendMbps, *u.RecvMbps)
	// The counts, not the rates: each side divides by its own elapsed time.
	if !(*res.ThroughputMbps > 0 && *u.SendMbps > 0 && u.Received > 0 && u.Sent >= u.Received) {
		t.Errorf("UDP_STREAM implausible: %+v", u)
	}
	if e := res.Omni.ElapsedSec; e == nil || *e < 1.5 || *e > 3 {
		t.Errorf("elapsed %v", e)
	}

	res, err = Run(ctx, p.cli, Options{Test: TestTCPRR, Host: srvAddr, Port: s.Port(), Length: 2 * time.Second,
		RequestSize: 64, ResponseSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	if res.TransPerSec == nil || *res.TransPerSec <= 0 || res.Omni.P99LatencyMicros == nil ||
		res.Omni.P50LatencyMicros == nil || *res.Omni.P50LatencyMicros > *res.Omni.P99LatencyMicros {
		t.Fatalf("TCP_RR implausible: %+v %+v", res, res.Omni)
	}
	t.Logf("TCP_RR: %.0f trans/s, p50 %.0f us, p99 %.0f us", *res.TransPerSec, *res.Omni.P50LatencyMicros, *res.Omni.P99LatencyMicros)

	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	waitNoProcs(t, netnsInode(t, p.srv.Name), netnsInode(t, p.cli.Name))
}

// No netserver: the typed error, within a second.
func TestRootNoServer(t *testing.T) {
	p := newPair(t)
	start := time.Now()
	_, err := Run(context.Background(), p.cli, Options{Test: TestTCPRR, Host: srvAddr, Port: 12866, Length: time.Second})
	d := time.Since(start)
	var ne *Error
	if !errors.As(err, &ne) || ne.Kind != KindNoServer {
		t.Fatalf("got %v", err)
	}
	t.Logf("no server after %v: %v", d, err)
	if d > time.Second {
		t.Fatalf("took %v", d)
	}
}

// A busy port: a second netserver on it fails at once with ErrPortBusy,
// and so does one whose port another netserver (not started through
// StartNetserver) holds; the first keeps serving.
func TestRootBusyPort(t *testing.T) {
	p := newPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := startServer(t, ctx, p, 12867)
	start := time.Now()
	_, err := StartNetserver(ctx, p.srv, ServerOptions{Port: 12867})
	if !errors.Is(err, ErrPortBusy) || time.Since(start) > time.Second {
		t.Fatalf("second netserver: %v after %v", err, time.Since(start))
	}
	t.Logf("busy: %v", err)

	// A listener started by hand, outside StartNetserver.
	other, err := p.srv.Start(ctx, host.Cmd{Argv: []string{"netserver", "-D", "-p", "12868"}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Kill()
	if err := host.WaitProcessListening(ctx, other, 12868); err != nil {
		t.Fatal(err)
	}
	if _, err := StartNetserver(ctx, p.srv, ServerOptions{Port: 12868}); !errors.Is(err, ErrPortBusy) {
		t.Fatalf("port held by another: %v", err)
	}

	if !alive(s.PID()) {
		t.Fatal("the first netserver died")
	}
	if _, err := Run(ctx, p.cli, Options{Test: TestTCPRR, Host: srvAddr, Port: 12867, Length: time.Second}); err != nil {
		t.Fatalf("first netserver no longer serves: %v", err)
	}
}

// Cancelling mid-run kills netperf, netserver and netserver's per-test
// child: nothing is left in /proc.
func TestRootCancelKillsAll(t *testing.T) {
	p := newPair(t)
	srvIno, cliIno := netnsInode(t, p.srv.Name), netnsInode(t, p.cli.Name)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := startServer(t, ctx, p, 12869)
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, p.cli, Options{Test: TestTCPStream, Host: srvAddr, Port: 12869, Length: 30 * time.Second})
		done <- err
	}()
	// Wait until the test runs: netperf in the client namespace, netserver
	// and its forked test child in the server's.
	var pids []int
	deadline := time.Now().Add(10 * time.Second)
	for {
		cli, srv := procsIn(cliIno), procsIn(srvIno)
		if len(cli) >= 1 && len(srv) >= 2 {
			pids = append(cli, srv...)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("test did not start: client %v server %v", cli, srv)
		}
		time.Sleep(10 * time.Millisecond)
	}
	waitDataConnection(t, p)
	t.Logf("running: %v (netserver %d)", pids, s.PID())
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	waitGone(t, pids, srvIno, cliIno)
	t.Logf("all %d processes gone %v after cancel", len(pids), time.Since(start))
}

// Cancelling only the run (netserver kept) kills netperf at once; the
// test child netserver forked ends when it sees the control connection
// close, and the netserver itself keeps serving.
func TestRootCancelRunOnly(t *testing.T) {
	p := newPair(t)
	srvIno, cliIno := netnsInode(t, p.srv.Name), netnsInode(t, p.cli.Name)
	s := startServer(t, context.Background(), p, 12874)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, p.cli, Options{Test: TestTCPRR, Host: srvAddr, Port: 12874, Length: 30 * time.Second})
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	var cli, srv []int
	for {
		cli, srv = procsIn(cliIno), procsIn(srvIno)
		if len(cli) >= 1 && len(srv) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("test did not start: client %v server %v", cli, srv)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Mid-run: before the data connection, netserver's child would wait
	// for it until its own timer (-l + 4 s) ends it.
	waitDataConnection(t, p)
	start := time.Now()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	waitNoProcs(t, cliIno)
	for {
		left := procsIn(srvIno)
		if len(left) == 1 && left[0] == s.PID() {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("server namespace still holds %v (netserver %d)", left, s.PID())
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("netperf %v and netserver's test child gone %v after cancel", cli, time.Since(start))
	if _, err := Run(context.Background(), p.cli, Options{Test: TestTCPRR, Host: srvAddr, Port: 12874, Length: time.Second}); err != nil {
		t.Fatalf("netserver no longer serves: %v", err)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitNoProcs(t, srvIno)
}

// netserver killed during the test: netperf's failure comes back typed
// (control connection lost, or the data send failing first), at once.
func TestRootServerKilled(t *testing.T) {
	p := newPair(t)
	srvIno := netnsInode(t, p.srv.Name)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := startServer(t, ctx, p, 12875)
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, p.cli, Options{Test: TestTCPStream, Host: srvAddr, Port: 12875, Length: 20 * time.Second})
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(procsIn(srvIno)) < 2 { // netserver and its test child
		if time.Now().After(deadline) {
			t.Fatal("test did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after netserver was killed")
	}
	var ne *Error
	if !errors.As(err, &ne) || !slices.Contains([]Kind{KindControlLost, KindDataSend, KindDataRecv}, ne.Kind) {
		t.Fatalf("got %v", err)
	}
	t.Logf("netserver killed: %v after %v", err, time.Since(start))
}

func countFDs(t testing.TB) int {
	t.Helper()
	e, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(e)
}

// 200 netserver start/stop cycles and 200 failing-fast runs (no netserver
// on the port: KindNoServer) leave no file descriptor and no process.
// (200 successful runs would take 200 s at netperf's 1 s minimum length.)
func TestRootNoLeaks(t *testing.T) {
	p := newPair(t)
	srvIno, cliIno := netnsInode(t, p.srv.Name), netnsInode(t, p.cli.Name)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cycle := func() {
		s, err := StartNetserver(ctx, p.srv, ServerOptions{Port: 12870, Family: IPv4})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		_, err = Run(ctx, p.cli, Options{Test: TestTCPRR, Host: srvAddr, Port: 12871, Length: time.Second})
		var ne *Error
		if !errors.As(err, &ne) || ne.Kind != KindNoServer {
			t.Fatalf("run: %v", err)
		}
	}
	cycle() // warm up: the runtime's own descriptors (epoll, pidfds) are made once
	fds, gs := countFDs(t), runtime.NumGoroutine()
	start := time.Now()
	const n = 200
	for range n {
		cycle()
	}
	d := time.Since(start)
	waitNoProcs(t, srvIno, cliIno)
	if got := countFDs(t); got != fds {
		t.Errorf("descriptors: %d before, %d after %d cycles", fds, got, n)
	}
	// Goroutines end with their processes; give the last ones a moment.
	for end := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > gs && time.Now().Before(end); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > gs {
		t.Errorf("goroutines: %d before, %d after %d cycles", gs, got, n)
	}
	t.Logf("%d × (netserver start+stop, failing run): %v (%v each), fds %d and goroutines %d before and after",
		n, d, d/n, fds, gs)
}

// overheadRig runs the same netperf work two ways: through rocekit
// (StartNetserver, Run with parsing, Stop) and through os/exec with a
// hand-written /proc poll for readiness and no parsing.
type overheadRig struct {
	tb   testing.TB
	ctx  context.Context
	p    nsPair
	port uint16
}

func (r overheadRig) opts() Options {
	return Options{Test: TestTCPRR, Host: srvAddr, Port: r.port, Length: time.Second}
}

// cycleRocekit: netserver up, one TCP_RR -l 1 run, netserver down.
func (r overheadRig) cycleRocekit() time.Duration {
	t := r.tb
	start := time.Now()
	s, err := StartNetserver(r.ctx, r.p.srv, ServerOptions{Port: r.port})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(r.ctx, r.p.cli, r.opts())
	if err != nil || res.TransPerSec == nil {
		t.Fatal(err)
	}
	if err := s.Stop(r.ctx); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// cycleDirect: the same commands through os/exec.
func (r overheadRig) cycleDirect() time.Duration {
	t := r.tb
	start := time.Now()
	srv := exec.Command("ip", "netns", "exec", r.p.srv.Name, "netserver", "-D", "-p", strconv.Itoa(int(r.port)))
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(":%04X", r.port)
	for ready := false; !ready; {
		for _, f := range []string{"tcp", "tcp6"} {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", srv.Process.Pid, f))
			for _, l := range strings.Split(string(b), "\n") {
				if fs := strings.Fields(l); len(fs) > 3 && strings.HasSuffix(fs[1], want) && fs[3] == "0A" {
					ready = true
				}
			}
		}
		if !ready {
			time.Sleep(2 * time.Millisecond)
		}
	}
	out := r.netperfDirect(r.opts(), true)
	if !bytes.Contains(out, []byte("TRANSACTION_RATE=")) {
		t.Fatalf("direct output %q", out)
	}
	_ = syscall.Kill(-srv.Process.Pid, syscall.SIGTERM)
	_ = srv.Wait()
	return time.Since(start)
}

func (r overheadRig) netperfDirect(o Options, mustSucceed bool) []byte {
	cli := exec.Command("ip", append([]string{"netns", "exec", r.p.cli.Name}, o.Argv()...)...)
	out, err := cli.Output()
	if mustSucceed && err != nil {
		r.tb.Fatal(err)
	}
	return out
}

// failRocekit and failDirect: a run that fails at once (no netserver), so
// that the fixed cost is not hidden by netperf's one second.
func (r overheadRig) failRocekit() time.Duration {
	start := time.Now()
	_, err := Run(r.ctx, r.p.cli, r.opts())
	var ne *Error
	if !errors.As(err, &ne) || ne.Kind != KindNoServer {
		r.tb.Fatal(err)
	}
	return time.Since(start)
}

func (r overheadRig) failDirect() time.Duration {
	start := time.Now()
	if out := r.netperfDirect(r.opts(), false); !bytes.Contains(out, []byte("establish control")) {
		r.tb.Fatalf("direct output %q", out)
	}
	return time.Since(start)
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// compare runs a and b alternately n times (after one warm-up each) and
// logs the medians, their ratio and the difference.
func compare(t *testing.T, what string, n int, a, b func() time.Duration) {
	a()
	b()
	var da, db []time.Duration
	for range n {
		da = append(da, a())
		db = append(db, b())
	}
	ma, mb := median(da), median(db)
	t.Logf("%s, median of %d: rocekit %v, os/exec %v: ratio %.3f, overhead %+.2f ms",
		what, n, ma.Round(time.Microsecond), mb.Round(time.Microsecond), float64(ma)/float64(mb),
		float64(ma-mb)/float64(time.Millisecond))
}

// The runner's own overhead, side by side in one run: a whole TCP_RR -l 1
// cycle (netserver start, readiness, netperf, stop) through rocekit and
// through os/exec; then a failing-fast run (no netserver), where netperf's
// own time is a few milliseconds and the fixed cost shows.
func TestRootRunnerOverhead(t *testing.T) {
	p := newPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := overheadRig{tb: t, ctx: ctx, p: p, port: 12872}
	compare(t, "TCP_RR -l 1 cycle", 5, r.cycleRocekit, r.cycleDirect)
	compare(t, "no-netserver run", 50, r.failRocekit, r.failDirect)
}

// BenchmarkRootRunOverhead is the same comparison as a benchmark:
//
//	go test ./netperf -run '^$' -bench RootRunOverhead
func BenchmarkRootRunOverhead(b *testing.B) {
	p := newPair(b)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		f    func(overheadRig) time.Duration
	}{
		{"cycle/rocekit", overheadRig.cycleRocekit}, {"cycle/direct", overheadRig.cycleDirect},
		{"noserver/rocekit", overheadRig.failRocekit}, {"noserver/direct", overheadRig.failDirect},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := overheadRig{tb: b, ctx: ctx, p: p, port: 12873}
			for b.Loop() {
				c.f(r)
			}
		})
	}
}
