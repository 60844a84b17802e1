package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/perftest"
)

// fixture reads a captured perftest side of ../rocekittest/captures/trixie/perftest.
func fixture(t *testing.T, name, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "rocekittest", "captures", "trixie", "perftest", name, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// capturedBW is the client's BW average in the send-bw-gbits capture.
const capturedBW = "0.081929"

// fakeHost is a host.Fake that plays perftest from the real capture:
// servers listen on their -p port after listenDelay(port), clients print
// the captured client output with the BW average given by bw(port).
// Devices named "bad*" fail as the real "IB device ... not found" does.
type fakeHost struct {
	*host.Fake
	t           *testing.T
	listenDelay func(port int) time.Duration
	bw          func(port int) float64
	stderr      func(port int) string // the client's, "" by default
	mu          sync.Mutex
	starts      map[string]time.Time // "server PORT", "client PORT"
}

func newFakeHost(t *testing.T, name string) *fakeHost {
	h := &fakeHost{t: t, starts: map[string]time.Time{},
		listenDelay: func(int) time.Duration { return 10 * time.Millisecond },
		bw:          func(port int) float64 { return float64(port-18500) / 10 }}
	srvOut, cliOut := fixture(t, "send-bw-gbits", "server.stdout"), fixture(t, "send-bw-gbits", "client.stdout")
	bad := fixture(t, "send-bw-nosuchdev", "server.stderr")
	h.Fake = &host.Fake{Name: name, Respond: func(c host.Cmd) host.FakeScript {
		port, _ := strconv.Atoi(argAfter(c.Argv, "-p"))
		client := !strings.HasPrefix(c.Argv[len(c.Argv)-1], "-") && strings.Count(c.Argv[len(c.Argv)-1], ".") == 3
		role := "server"
		if client {
			role = "client"
		}
		h.mu.Lock()
		h.starts[fmt.Sprintf("%s %d", role, port)] = time.Now()
		h.mu.Unlock()
		if strings.HasPrefix(argAfter(c.Argv, "-d"), "bad") {
			return host.FakeScript{Stderr: bad, ExitCode: 1, Delay: 5 * time.Millisecond}
		}
		if client {
			out := strings.Replace(cliOut, capturedBW, strconv.FormatFloat(h.bw(port), 'f', 6, 64), 1)
			stderr := ""
			if h.stderr != nil {
				stderr = h.stderr(port)
			}
			return host.FakeScript{Stdout: out, Stderr: stderr, Delay: 50 * time.Millisecond}
		}
		return host.FakeScript{Stdout: srvOut, Delay: h.listenDelay(port) + 400*time.Millisecond,
			Listen: []uint16{uint16(port)}, ListenDelay: h.listenDelay(port)}
	}}
	return h
}

func (h *fakeHost) started(key string) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.starts[key]
}

func argAfter(argv []string, flag string) string {
	if i := slices.Index(argv, flag); i >= 0 && i+1 < len(argv) {
		return argv[i+1]
	}
	return ""
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// twoHosts are hosts with NICs on rails r0..r(n-1), 198.18.i.1 and .2,
// and every NIC local to CPUs 0-7 (one NUMA node).
func twoHosts(srv, cli host.Runner, devices ...string) (Host, Host) {
	a, b := Host{Name: "a", Runner: srv}, Host{Name: "b", Runner: cli}
	cpus := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for i, d := range devices {
		a.NICs = append(a.NICs, NIC{Netdev: fmt.Sprintf("eth%d", i), Device: d, Rail: fmt.Sprint("r", i), CPUs: cpus,
			Addr: netip.AddrFrom4([4]byte{198, 18, byte(i), 1}), LineRateGbps: 100, GIDIndex: new(3)})
		b.NICs = append(b.NICs, NIC{Netdev: fmt.Sprintf("eth%d", i), Device: d, Rail: fmt.Sprint("r", i), CPUs: cpus,
			Addr: netip.AddrFrom4([4]byte{198, 18, byte(i), 2}), LineRateGbps: 100, GIDIndex: new(1)})
	}
	return a, b
}

// TestRunParallelReleasesClientsTogether: servers become ready at 10, 150
// and 300 ms; no client starts before the last server listens, and all
// start within a few milliseconds of each other. Each pair has its own
// port, device, GID index per side and a NUMA-local CPU share.
func TestRunParallelReleasesClientsTogether(t *testing.T) {
	srv, cli := newFakeHost(t, "server-host"), newFakeHost(t, "client-host")
	delays := map[int]time.Duration{18600: 10 * time.Millisecond, 18601: 150 * time.Millisecond, 18602: 300 * time.Millisecond}
	srv.listenDelay = func(port int) time.Duration { return delays[port] }
	a, b := twoHosts(srv, cli, "rxe0", "rxe1", "rxe2")
	specs, err := NICPairs(a, b, perftest.Options{Test: perftest.SendBW, Iterations: 300, NoFreqCheck: true, ReportGbits: true, Bidirectional: true}, 18600, true)
	if err != nil {
		t.Fatal(err)
	}
	par, err := RunParallel(ctxFor(t), specs)
	if err != nil {
		t.Fatalf("RunParallel: %v", err)
	}
	last := srv.started("server 18602").Add(300 * time.Millisecond)
	for i, o := range par.Pairs {
		if o.ClientStart.Before(last) {
			t.Errorf("pair %d: client started %v before the last server listened", i, last.Sub(o.ClientStart))
		}
		if o.ClientStart.Before(par.Released) {
			t.Errorf("pair %d: client started before the release", i)
		}
	}
	if par.ReleaseSpread > 100*time.Millisecond {
		t.Errorf("clients released over %v", par.ReleaseSpread)
	}
	wantCPUs := []string{"0,1,2", "3,4,5", "6,7"}
	for i, o := range par.Pairs {
		s, c := o.Result.Server.Argv, o.Result.Client.Argv
		port := strconv.Itoa(18600 + i)
		dev := fmt.Sprint("rxe", i)
		if argAfter(s, "-p") != port || argAfter(c, "-p") != port || argAfter(s, "-d") != dev || argAfter(c, "-d") != dev {
			t.Errorf("pair %d argv:\n%q\n%q", i, s, c)
		}
		if argAfter(s, "-x") != "3" || argAfter(c, "-x") != "1" {
			t.Errorf("pair %d GID: server -x %s, client -x %s, want 3 and 1", i, argAfter(s, "-x"), argAfter(c, "-x"))
		}
		if sc, cc := cpuList(o.Result.Server.CPUs), cpuList(o.Result.Client.CPUs); sc != wantCPUs[i] || cc != wantCPUs[i] || s[0] != "ib_send_bw" {
			t.Errorf("pair %d CPUs: %s / %s (argv %q), want %s", i, sc, cc, s[0], wantCPUs[i])
		}
		if !slices.Contains(s, "-b") || !slices.Contains(c, "-b") {
			t.Errorf("pair %d: -b missing", i)
		}
		if c[len(c)-1] != fmt.Sprintf("198.18.%d.1", i) {
			t.Errorf("pair %d: client connects to %s", i, c[len(c)-1])
		}
	}
	// bw is (port-18500)/10: 10.0, 10.1, 10.2.
	if par.Failed != 0 || par.Slowest != 0 || fmt.Sprintf("%.1f", par.SumBWGbps) != "30.3" {
		t.Errorf("aggregate: failed %d, slowest %d, sum %v", par.Failed, par.Slowest, par.SumBWGbps)
	}
}

// TestRunParallelKeepsOthersWhenOneFails: the middle pair's device does
// not exist; the other two run, are released without waiting for it, and
// the error names it with perftest's classification.
func TestRunParallelKeepsOthersWhenOneFails(t *testing.T) {
	srv, cli := newFakeHost(t, "server-host"), newFakeHost(t, "client-host")
	a, b := twoHosts(srv, cli, "rxe0", "bad1", "rxe2")
	specs, err := NICPairs(a, b, perftest.Options{Test: perftest.SendBW, Iterations: 300, ReportGbits: true}, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	par, err := RunParallel(ctxFor(t), specs)
	var pe *PairsError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPairsFailed) || len(pe.Names) != 1 || pe.Names[0] != "eth1-eth1" {
		t.Fatalf("RunParallel: %v, want one failed pair eth1-eth1", err)
	}
	var perr *perftest.Error
	if !errors.As(err, &perr) || perr.Kind != perftest.KindDeviceNotFound {
		t.Errorf("error %v: want perftest's device-not-found", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the failed pair held the others for %v", time.Since(start))
	}
	if par.Failed != 1 || par.Pairs[1].OK() || !par.Pairs[0].OK() || !par.Pairs[2].OK() {
		t.Fatalf("outcomes: failed %d, %v %v %v", par.Failed, par.Pairs[0].OK(), par.Pairs[1].OK(), par.Pairs[2].OK())
	}
	if !par.Pairs[1].ClientStart.IsZero() {
		t.Errorf("the failed pair's client was started")
	}
	// Ports 18515 and 18517: 1.5 + 1.7.
	if fmt.Sprintf("%.2f", par.SumBWGbps) != "3.20" || par.Slowest != 0 {
		t.Errorf("sum %v slowest %d", par.SumBWGbps, par.Slowest)
	}
	if argAfter(par.Pairs[0].Result.Server.Argv, "-c") != "" || par.Pairs[0].Result.Server.Argv[0] == "taskset" {
		t.Errorf("pinned without pin: %q", par.Pairs[0].Result.Server.Argv)
	}
}

func TestRunParallelErrors(t *testing.T) {
	if _, err := RunParallel(ctxFor(t), nil); !errors.Is(err, ErrNoPairs) {
		t.Errorf("no pairs: %v", err)
	}
	f := &host.Fake{}
	_, err := RunParallel(ctxFor(t), []PairSpec{{Name: "x", Server: f, Client: f, ServerAddr: "198.18.0.1", Options: perftest.Options{}}})
	if !errors.Is(err, perftest.ErrInvalidOptions) {
		t.Errorf("invalid options: %v", err)
	}
	a := Host{Name: "a", Runner: f, NICs: []NIC{{Netdev: "eth0", Addr: netip.MustParseAddr("198.18.0.1"), Prefix: netip.MustParsePrefix("198.18.0.0/24")}}}
	b := Host{Name: "b", Runner: f, NICs: []NIC{{Netdev: "eth0", Addr: netip.MustParseAddr("198.18.9.2"), Prefix: netip.MustParsePrefix("198.18.9.0/24")}}}
	if _, err := NICPairs(a, b, perftest.Options{Test: perftest.SendBW}, 0, false); !errors.Is(err, ErrNoCommonNetwork) {
		t.Errorf("different subnets: %v", err)
	}
	if _, err := NICPairs(a, a, perftest.Options{Test: perftest.SendBW}, 65535, false); err != nil {
		t.Errorf("port 65535: %v", err)
	}
	a.NICs = append(a.NICs, NIC{Netdev: "eth1", Addr: netip.MustParseAddr("198.18.9.1"), Prefix: netip.MustParsePrefix("198.18.9.0/24")})
	if _, err := NICPairs(a, a, perftest.Options{Test: perftest.SendBW}, 65535, false); !errors.Is(err, perftest.ErrInvalidOptions) {
		t.Errorf("ports past 65535: %v", err)
	}
}

func TestLinksBySubnet(t *testing.T) {
	nic := func(name, addr, prefix string) NIC {
		return NIC{Netdev: name, Addr: netip.MustParseAddr(addr), Prefix: netip.MustParsePrefix(prefix)}
	}
	// A mesh: each host has a NIC per partner, on the link's own subnet.
	a := Host{Name: "a", NICs: []NIC{nic("eth0", "198.18.1.1", "198.18.1.0/24"), nic("eth1", "198.18.3.1", "198.18.3.0/24")}}
	c := Host{Name: "c", NICs: []NIC{nic("eth0", "198.18.2.2", "198.18.2.0/24"), nic("eth1", "198.18.3.2", "198.18.3.0/24")}}
	links, err := Links(a, c)
	if err != nil || len(links) != 1 || links[0][0].Netdev != "eth1" || links[0][1].Addr.String() != "198.18.3.2" {
		t.Fatalf("Links: %v %v", links, err)
	}
}

func TestSplitCPUs(t *testing.T) {
	n0, n1 := []int{0, 1, 2, 3, 4}, []int{8, 9}
	got := SplitCPUs([]NIC{{CPUs: n0}, {CPUs: n1}, {CPUs: n0}, {}, {CPUs: n1}, {CPUs: n1}})
	want := "[[0 1 2] [8] [3 4] [] [9] [8]]"
	if fmt.Sprint(got) != want {
		t.Errorf("SplitCPUs: %v, want %s", got, want)
	}
}

// cpuList formats CPUs as taskset -c takes them: "0,1,2".
func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// TestRunParallelZeroBandwidth: a client that prints a 0.00 average (as
// perftest -D did under emulation) is a failed pair, not a bandwidth.
func TestRunParallelZeroBandwidth(t *testing.T) {
	srv, cli := newFakeHost(t, "server-host"), newFakeHost(t, "client-host")
	cli.bw = func(port int) float64 {
		if port == 18516 {
			return 0
		}
		return 1
	}
	a, b := twoHosts(srv, cli, "rxe0", "rxe1")
	specs, _ := NICPairs(a, b, perftest.Options{Test: perftest.SendBW, Iterations: 300, ReportGbits: true}, 0, false)
	par, err := RunParallel(ctxFor(t), specs)
	if !errors.Is(err, ErrZeroBandwidth) || par.Failed != 1 || par.Pairs[1].OK() || par.SumBWGbps != 1 || par.Slowest != 0 {
		t.Errorf("RunParallel: %v; failed %d, sum %v, slowest %d", err, par.Failed, par.SumBWGbps, par.Slowest)
	}
	if e := par.Pairs[1].Err; e == nil || !strings.Contains(e.Error(), `client row "65536 300 `) || errors.Is(e, ErrClockSampling) {
		t.Errorf("the error does not show the printed row, or blames the clock without its warning: %v", e)
	}
}

// TestMeasureClockSamplingAgain: a client that printed 0.00 with
// perftest's clock warning (bookworm's 4.5 in the lab: "Correlation
// coefficient r^2: 0.821758 < 0.9" over a row of zeros) is void; the cell
// is measured again and says so, and a pair that stays void fails.
func TestMeasureClockSamplingAgain(t *testing.T) {
	for _, tc := range []struct {
		void   int32 // attempts that come back void
		wantOK bool
	}{{1, true}, {5, false}} {
		srv, cli := newFakeHost(t, "server-host"), newFakeHost(t, "client-host")
		var calls atomic.Int32
		cli.bw = func(int) float64 {
			if calls.Add(1) <= tc.void {
				return 0
			}
			return 1
		}
		cli.stderr = func(int) string {
			if calls.Load() <= tc.void {
				return "Correlation coefficient r^2: 0.821758 < 0.9\n"
			}
			return ""
		}
		a, b := twoHosts(srv, cli, "rxe0")
		c := PerftestMeasurer{Options: perftest.Options{Test: perftest.SendBW, Iterations: 300, ReportGbits: true}}.Measure(ctxFor(t), a, b, 0)
		switch {
		case c.OK != tc.wantOK:
			t.Errorf("void %d: cell OK %v (%s), want %v", tc.void, c.OK, c.Error, tc.wantOK)
		case c.OK && (c.BWGbps != 1 || len(c.Warnings) == 0 || !strings.Contains(c.Warnings[0].Error(), "attempt 1 void") || !errors.Is(c.Warnings[0], ErrClockSampling)):
			t.Errorf("void once: %v Gbit/s, warnings %q", c.BWGbps, c.Warnings)
		case !c.OK && (!errors.Is(c.Err, ErrClockSampling) || calls.Load() != 1+clockRetries):
			t.Errorf("always void: err %v after %d attempts", c.Err, calls.Load())
		}
	}
}
