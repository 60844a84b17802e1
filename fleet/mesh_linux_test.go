package fleet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/nic"
)

// These root tests run real netserver/netperf pairs between network
// namespaces of the host kernel, joined as a mesh of veth pairs (one
// subnet per link). They skip without root, netperf or tc.

func sh(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// uniqueName is label with this process's PID and a random suffix of
// three hex digits, so that two runs of these tests at once (two go test,
// two CI jobs) never share a namespace or a netdev name, and a sweep can
// tell a dead run's leftovers (see sweepStale). It fits IFNAMSIZ for
// labels of up to 5 bytes (PIDs have at most 7 digits).
func uniqueName(label string) string {
	return fmt.Sprintf("%s%d%03x", label, os.Getpid(), rand.IntN(0x1000))
}

// staleName matches what uniqueName made for netnsMesh: a namespace
// ("flgt12345abc-0") or a veth end not yet moved into one ("fa12345abc");
// the PID is all but the last three characters of the number.
var staleName = regexp.MustCompile(`^(?:fl[a-z]+|fa|fb)([0-9]+)[0-9a-f]{3}(?:-[0-9]+)?$`)

// sweepStale deletes the namespaces and root-namespace veths of earlier
// runs of these tests whose process is gone (killed before its cleanup
// ran). Those of live runs are left alone.
func sweepStale(t testing.TB) {
	t.Helper()
	dead := func(name string) bool {
		m := staleName.FindStringSubmatch(name)
		if m == nil {
			return false
		}
		_, err := os.Stat("/proc/" + m[1])
		return errors.Is(err, os.ErrNotExist)
	}
	if out, err := exec.Command("ip", "netns", "list").Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) > 0 && dead(f[0]) {
				t.Logf("deleting namespace %s of a dead run", f[0])
				exec.Command("ip", "netns", "del", f[0]).Run()
			}
		}
	}
	if out, err := exec.Command("ip", "-o", "link", "show", "type", "veth").Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			// "7: fa12345abc@fb12345def: <BROADCAST,...>"
			f := strings.Fields(l)
			if len(f) < 2 {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
			if dead(name) {
				t.Logf("deleting veth %s of a dead run", name)
				exec.Command("ip", "link", "del", name).Run()
			}
		}
	}
}

// netnsMesh makes n namespaces named after label (unique per run, see
// uniqueName) and a veth pair between every two of them: in namespace i
// the end towards j is "toJ", with 198.18.(40+k).(i+1)/24 for the k-th
// link. It returns the hosts, each with its NICs read back through
// IPv4Prefix, and their namespaces' names, and deletes everything when
// the test ends.
func netnsMesh(t testing.TB, label string, n int) ([]Host, []string) {
	t.Helper()
	labtest.Root(t)
	if testing.Short() {
		t.Skip("runs netperf for seconds; skipped with -short")
	}
	for _, p := range []string{"netperf", "netserver", "tc", "ip"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed: %v", p, err)
		}
	}
	sweepStale(t)
	prefix := uniqueName("fl" + label)
	var names []string
	for i := range n {
		name := fmt.Sprint(prefix, "-", i)
		names = append(names, name)
		sh(t, "ip", "netns", "add", name)
		t.Cleanup(func() { exec.Command("ip", "netns", "del", name).Run() })
		sh(t, "ip", "-n", name, "link", "set", "lo", "up")
	}
	k := 0
	for i := range n {
		for j := i + 1; j < n; j++ {
			a, b := names[i], names[j]
			ta, tb := uniqueName("fa"), uniqueName("fb")
			sh(t, "ip", "link", "add", ta, "type", "veth", "peer", "name", tb)
			// Until it is moved into a, ta is in the root namespace: a
			// failing step must not leave it there (deleting one end
			// deletes both; once moved, ta is gone and this does nothing).
			t.Cleanup(func() { exec.Command("ip", "link", "del", ta).Run() })
			sh(t, "ip", "link", "set", ta, "netns", a, "name", fmt.Sprint("to", j))
			sh(t, "ip", "link", "set", tb, "netns", b, "name", fmt.Sprint("to", i))
			for _, e := range []struct {
				ns, dev string
				host    int
			}{{a, fmt.Sprint("to", j), i + 1}, {b, fmt.Sprint("to", i), j + 1}} {
				sh(t, "ip", "-n", e.ns, "addr", "add", fmt.Sprintf("198.18.%d.%d/24", 40+k, e.host), "dev", e.dev)
				sh(t, "ip", "-n", e.ns, "link", "set", e.dev, "up")
			}
			k++
		}
	}
	ctx := ctxFor(t)
	var hosts []Host
	for i := range n {
		h := Host{Name: fmt.Sprint("h", i), Runner: host.Netns{Name: names[i]}}
		for j := range n {
			if j == i {
				continue
			}
			dev := fmt.Sprint("to", j)
			p, err := IPv4Prefix(ctx, h.Runner, dev)
			if err != nil {
				t.Fatal(err)
			}
			h.NICs = append(h.NICs, NIC{Netdev: dev, Addr: p.Addr(), Prefix: p.Masked(), LineRateGbps: lineRateGbps(t, names[i], dev)})
		}
		hosts = append(hosts, h)
	}
	return hosts, names
}

// lineRateGbps reads dev's speed in namespace ns as the examples do
// (nic's ethtool link settings, Speed / 1000); 0 when unknown.
//
// Similar to: ip netns exec NS ethtool DEV | grep Speed
func lineRateGbps(t testing.TB, ns, dev string) float64 {
	h, err := nic.Open(nic.Options{Netns: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ls, err := h.LinkSettings(ctxFor(t), dev)
	if err != nil {
		t.Fatalf("%s in %s: %v", dev, ns, err)
	}
	if ls.SpeedMbps <= 0 {
		return 0
	}
	return float64(ls.SpeedMbps) / 1000
}

// throttle limits what leaves dev in namespace ns to rate with tbf.
func throttle(t testing.TB, ns, dev, rate string) {
	sh(t, "ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", rate, "burst", "32kbit", "latency", "400ms")
}

func netperfPlan(hosts []Host, name string) Plan {
	s, _ := AllPairs(len(hosts), 1)
	return Plan{Name: name, Hosts: hosts, Schedule: s, PairDeadline: time.Minute,
		Measurer: NetperfMeasurer{Options: netperf.Options{Test: netperf.TestTCPStream, Length: 2 * time.Second, Family: netperf.IPv4}}}
}

// netperfMatrix runs netperfPlan over hosts and logs its matrix; every
// pair must have been measured (a throttled one too), or the test stops.
func netperfMatrix(t *testing.T, hosts []Host, name string) *Matrix {
	t.Helper()
	m, err := netperfPlan(hosts, name).Run(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	logMatrix(t, m)
	failed := false
	for _, c := range m.Cells {
		if !c.OK {
			t.Errorf("pair %s–%s failed: %s", c.A, c.B, c.Error)
			failed = true
		}
	}
	if failed {
		t.FailNow()
	}
	return m
}

// TestNetnsMatrixSlowLink: three namespaces, the link h0–h2 throttled to
// 20 Mbit/s at both ends; the matrix names that link, and only it.
func TestNetnsMatrixSlowLink(t *testing.T) {
	hosts, ns := netnsMesh(t, "sl", 3)
	throttle(t, ns[0], "to2", "20mbit")
	throttle(t, ns[2], "to0", "20mbit")
	m := netperfMatrix(t, hosts, "slow-link")
	if c, _ := m.Cell(0, 2); c.BWGbps > 0.025 || c.ANIC != "to2" || c.BNIC != "to0" {
		t.Errorf("throttled pair: %+v", c)
	}
	// A fifth, not 0.7: the throttle is a hundredfold, and unthrottled
	// veth pairs on a loaded two-core machine vary by four.
	out := Outliers(m, 0.2)
	if len(out) != 1 || out[0].Blame != BlameLink || out[0].Names[0] != "h0–h2" {
		t.Errorf("outliers %v, want the link h0–h2", out)
	}
}

// TestNetnsMatrixSlowHost: every link of h1 throttled: h1 is blamed, no
// link is.
func TestNetnsMatrixSlowHost(t *testing.T) {
	hosts, ns := netnsMesh(t, "sh", 4)
	for _, dev := range []string{"to0", "to2", "to3"} {
		throttle(t, ns[1], dev, "20mbit")
	}
	for _, n := range []string{ns[0], ns[2], ns[3]} {
		throttle(t, n, "to1", "20mbit")
	}
	m := netperfMatrix(t, hosts, "slow-host")
	out := Outliers(m, 0.2) // see TestNetnsMatrixSlowLink
	if len(out) != 1 || out[0].Blame != BlameHost || out[0].Host != "h1" || len(out[0].Pairs) != 3 {
		t.Errorf("outliers %v, want host h1", out)
	}
}

// TestNetnsParallelNetperf: two links between two namespaces, one
// throttled, measured at once: both pairs give their own throughput, the
// throttled one is the slowest, and the sum adds them.
func TestNetnsParallelNetperf(t *testing.T) {
	hosts, ns := netnsMesh(t, "pp", 3)
	throttle(t, ns[0], "to1", "20mbit")
	throttle(t, ns[1], "to0", "20mbit")
	// Host 0 is the client of both, over its two links.
	specs := []NetperfSpec{
		{Name: "to1", Server: hosts[1].Runner, Client: hosts[0].Runner,
			Options: netperf.Options{Test: netperf.TestTCPStream, Host: hosts[1].NICs[0].Addr.String(), Port: 12901, Length: 2 * time.Second}},
		{Name: "to2", Server: hosts[2].Runner, Client: hosts[0].Runner,
			Options: netperf.Options{Test: netperf.TestTCPStream, Host: hosts[2].NICs[0].Addr.String(), Port: 12902, Length: 2 * time.Second}},
	}
	par, err := RunNetperfPairs(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("to1 %.4f Gbit/s, to2 %.4f Gbit/s, sum %.4f, elapsed %v", par.Pairs[0].Gbps, par.Pairs[1].Gbps, par.SumGbps, par.Elapsed)
	if par.Slowest != 0 || par.Pairs[0].Gbps > 0.025 || par.Failed != 0 {
		t.Errorf("slowest %d, to1 %v Gbit/s", par.Slowest, par.Pairs[0].Gbps)
	}
	if d := par.SumGbps - par.Pairs[0].Gbps - par.Pairs[1].Gbps; d > 1e-9 || d < -1e-9 {
		t.Errorf("sum %v", par.SumGbps)
	}
	// Both ran at the same time: the whole took far less than two runs.
	if par.Elapsed > 3500*time.Millisecond {
		t.Errorf("elapsed %v for two 2 s runs at once", par.Elapsed)
	}
}

// TestNetnsGateOnVethSpeed: the line-rate gate judged against a real link
// speed. veth reports one on recent kernels (6.18 here: ethtool says
// 10000Mb/s), read through nic's ethtool path as the examples read it. The
// link is throttled to 50 Mbit/s with tbf at both ends, far below that
// speed, and measured with a real netperf: the default gate (90 %) must
// fail the pair as below line rate, and a gate at 1 Mbit/s worth of the
// line rate must pass it. Both verdicts are fixed by the throttle, not by
// how fast this machine is.
func TestNetnsGateOnVethSpeed(t *testing.T) {
	hosts, ns := netnsMesh(t, "gt", 2)
	rate := hosts[0].NICs[0].LineRateGbps
	if rate <= 0 {
		// veth reports 10000Mb/s on the kernels this runs on (6.18
		// here): no speed means the ethtool path broke.
		t.Fatal("veth reports no speed (ethtool: Speed: Unknown!), want 10000 Mb/s: nic's ethtool path is broken")
	}
	t.Logf("veth line rate read: %v Gbit/s", rate)
	throttle(t, ns[0], "to1", "50mbit")
	throttle(t, ns[1], "to0", "50mbit")
	m := netperfMatrix(t, hosts, "gate")
	c := m.Cells[0]
	if !c.OK || c.LineRateGbps != rate || c.BWGbps <= 0 || c.BWGbps > 0.06 {
		t.Fatalf("cell %+v: want a measured pair under 60 Mbit/s at line rate %v", c, rate)
	}
	var ge *GateError
	if err := (LineRateGate{}).Check(m); !errors.As(err, &ge) || len(ge.Failures) != 1 ||
		ge.Failures[0].Reason != reasonBelow || ge.Failures[0].LineRateGbps != rate || ge.Failures[0].Name != "h0–h1" {
		t.Errorf("default gate: %v, want h0–h1 below its line rate of %v Gbit/s", err, rate)
	} else {
		t.Logf("default gate: %v", err)
	}
	if err := (LineRateGate{MinRatio: 0.001 / rate}).Check(m); err != nil {
		t.Errorf("gate at 1 Mbit/s of %v Gbit/s: %v", rate, err)
	}
}

// TestSweepStaleOnlyDeadRuns: a namespace of a run whose process is gone
// is deleted, one of a live run (this one) is kept.
func TestSweepStaleOnlyDeadRuns(t *testing.T) {
	labtest.Root(t)
	deadPID := 0
	for pid := 4194303; pid > 4194000; pid-- {
		if _, err := os.Stat(fmt.Sprint("/proc/", pid)); errors.Is(err, os.ErrNotExist) {
			deadPID = pid
			break
		}
	}
	dead := fmt.Sprintf("flsw%d%03x-0", deadPID, rand.IntN(0x1000))
	live := uniqueName("flsw") + "-0"
	for _, name := range []string{dead, live} {
		sh(t, "ip", "netns", "add", name)
		t.Cleanup(func() { exec.Command("ip", "netns", "del", name).Run() })
	}
	sweepStale(t)
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			have[f[0]] = true
		}
	}
	if have[dead] || !have[live] {
		t.Errorf("after the sweep: %s (PID %d, dead) there %v, %s (live) there %v", dead, deadPID, have[dead], live, have[live])
	}
}

// ringPass runs a ring of netperf pairs over the mesh (each host meets
// two partners) and the second pass over it.
func ringPass(t *testing.T, hosts []Host, name string) *SecondPass {
	t.Helper()
	p := netperfPlan(hosts, name)
	p.Schedule, _ = Ring(len(hosts), 1)
	// The throttle is a hundredfold; unthrottled veth pairs on a loaded
	// two-core machine vary by four: judge at a fifth, not at 0.7.
	return runSecondPass(t, p, SecondPassOptions{SlowRatio: 0.2})
}

// TestNetnsSecondPassSlowHost: five namespaces, every link of h2
// throttled to 20 Mbit/s at both ends. In a ring h2 meets two partners
// only; the second pass pairs it with others and names h2, not them.
func TestNetnsSecondPassSlowHost(t *testing.T) {
	hosts, ns := netnsMesh(t, "2h", 5)
	for j := range 5 {
		if j != 2 {
			throttle(t, ns[2], fmt.Sprint("to", j), "20mbit")
			throttle(t, ns[j], "to2", "20mbit")
		}
	}
	sp := ringPass(t, hosts, "second-pass-host")
	if len(sp.Suspects) != 2 {
		t.Fatalf("suspects %+v, want h1–h2 and h2–h3", sp.Suspects)
	}
	for _, s := range sp.Suspects {
		if s.Culprit != CulpritHost || s.Host != "h2" {
			t.Errorf("%s: %s %q, want host h2", s.Name, s.Culprit, s.Host)
		}
	}
}

// TestNetnsSecondPassSlowLink: the link h3–h4 throttled alone: both hosts
// are fine with good partners, the pair is still slow: the link.
func TestNetnsSecondPassSlowLink(t *testing.T) {
	hosts, ns := netnsMesh(t, "2l", 5)
	throttle(t, ns[3], "to4", "20mbit")
	throttle(t, ns[4], "to3", "20mbit")
	sp := ringPass(t, hosts, "second-pass-link")
	if len(sp.Suspects) != 1 || sp.Suspects[0].Name != "h3–h4" || sp.Suspects[0].Culprit != CulpritLink {
		t.Fatalf("suspects %+v, want the link h3–h4", sp.Suspects)
	}
}
