//go:build lab

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// TestLabUDPTuning runs rounds A, S, B, C and V between the guest's two virtio
// NICs: eth0 here sends, eth1 in namespace udppeer receives (netserver
// there), through the QEMU hub. It checks the structured output and that
// MTUs and IRQ affinities are back as they were; never performance (TCG).
func TestLabUDPTuning(t *testing.T) {
	labtest.Guest(t)
	ipCmd := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// The IRQs of both NICs and their affinity, before anything moves.
	fs := irq.NewFS("/proc", "/sys")
	irqs := map[int]string{}
	for _, dev := range []string{"eth0", "eth1"} {
		d, err := fs.Netdev(dev)
		if err != nil {
			t.Fatalf("IRQs of %s: %v", dev, err)
		}
		if len(d.IRQs) == 0 {
			t.Fatalf("%s has no IRQs", dev)
		}
		for _, q := range d.IRQs {
			irqs[q.IRQ] = dev + " " + q.Name
		}
	}
	affinity := func() map[int]string {
		m := map[int]string{}
		for n := range irqs {
			b, err := os.ReadFile(filepath.Join("/proc/irq", strconv.Itoa(n), "smp_affinity_list"))
			if err != nil {
				t.Fatal(err)
			}
			m[n] = strings.TrimSpace(string(b))
		}
		return m
	}
	before := affinity()
	mtu0Before := readMTU(t, "", "eth0")
	mtu1Before := readMTU(t, "", "eth1")
	rmemBefore := readSysctl(t, "net/core/rmem_max")

	labtest.Netns(t, "udppeer")
	// Cleanups run last first: eth1 goes home before the namespace goes.
	t.Cleanup(func() {
		exec.Command("ip", "-n", "udppeer", "link", "set", "eth1", "netns", "1").Run()
		exec.Command("ip", "addr", "del", "198.18.94.1/24", "dev", "eth0").Run()
	})
	ipCmd("link", "set", "eth1", "netns", "udppeer")
	ipCmd("-n", "udppeer", "addr", "add", "198.18.94.2/24", "dev", "eth1")
	ipCmd("-n", "udppeer", "link", "set", "eth1", "up")
	ipCmd("addr", "add", "198.18.94.1/24", "dev", "eth0")
	ipCmd("link", "set", "eth0", "up")

	dir := t.TempDir()
	c := config{Flags: runbook.Flags{Netdev: "eth0", PeerNetns: "udppeer", PeerNetdev: "eth1",
		Journal: filepath.Join(dir, "journal.jsonl"), Timeout: 10 * time.Minute},
		Rounds: "A,S,B,C,V", MTU: 9000, Length: 2, MsgSize: 1400, SockBuf: "2M", Count: 2,
		Store: filepath.Join(dir, "rounds.jsonl"), Out: filepath.Join(dir, "out"), Governor: "performance",
		Interval: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var out, progress bytes.Buffer
	start := time.Now()
	err := run(ctx, c, &out, &progress)
	t.Logf("run took %s; progress:\n%s", time.Since(start).Round(time.Second), progress.String())
	if md, rerr := os.ReadFile(filepath.Join(c.Out, "report.md")); rerr == nil {
		lines := strings.Split(string(md), "\n")
		t.Logf("report.md (%d lines), first 40:\n%s", len(lines), strings.Join(lines[:min(40, len(lines))], "\n"))
		if _, roundC, ok := strings.Cut(string(md), "\n## Round C"); ok {
			t.Logf("report.md, round C:\n## Round C%s", roundC)
		}
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}

	// Everything is back: MTUs of both ends, IRQ affinity of both NICs.
	if got := readMTU(t, "", "eth0"); got != mtu0Before || got != 1500 {
		t.Errorf("eth0 MTU %d after the run, want %d (1500)", got, mtu0Before)
	}
	if got := readMTU(t, "udppeer", "eth1"); got != mtu1Before || got != 1500 {
		t.Errorf("eth1 (netns udppeer) MTU %d after the run, want %d (1500)", got, mtu1Before)
	}
	if got := readSysctl(t, "net/core/rmem_max"); got != rmemBefore || got != "212992" {
		t.Errorf("net.core.rmem_max %s after the run, want %s (212992, the default)", got, rmemBefore)
	}
	after := affinity()
	for n, a := range before {
		if after[n] != a {
			t.Errorf("IRQ %d (%s): smp_affinity_list %s after the run, want %s", n, irqs[n], after[n], a)
		}
	}

	// summary.json: five rounds, in order, with the MTU of each.
	var s summary
	b, err := os.ReadFile(filepath.Join(c.Out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	t.Logf("summary.json:\n%s", b)
	names := []string{"udp_stream_A_default", "udp_stream_S_sockmax", "udp_stream_B_sockmax_mtu9000",
		"udp_stream_C_sockmax_mtu9000_irqspread", "udp_stream_V_sockmax_mtu9000_irqspread_m8000_s4M"}
	mtus := []int{1500, 1500, 9000, 9000, 9000}
	if s.Mode != "netns" || len(s.Rounds) != 5 {
		t.Fatalf("summary: mode %q, %d rounds; want netns, 5", s.Mode, len(s.Rounds))
	}
	for i, r := range s.Rounds {
		if r.Name != names[i] || r.Letter != names[i][11:12] || r.NetdevMTU != mtus[i] {
			t.Errorf("summary round %d: %s %s MTU %d; want %s MTU %d", i, r.Name, r.Letter, r.NetdevMTU, names[i], mtus[i])
		}
		if r.RecvMbps == nil || r.SendMbps == nil || r.LossPct == nil {
			t.Errorf("summary round %s: send %v, receive %v, loss %v; want all measured", r.Name, r.SendMbps, r.RecvMbps, r.LossPct)
		}
	}
	// Findings: at least round C's governor note (no cpufreq in a guest);
	// each names its round and rule.
	if len(s.Findings) == 0 {
		t.Errorf("summary has no findings")
	}
	governorNote := false
	for _, f := range s.Findings {
		if f.Round == "" || f.Severity == "" || f.Rule == "" || f.Summary == "" {
			t.Errorf("finding incomplete: %+v", f)
		}
		governorNote = governorNote || (f.Round == names[3] && f.Rule == ruleGovernorNotSet)
	}
	if !governorNote && !s.Rounds[3].GovernorSet {
		t.Errorf("round C neither set the governor nor says why")
	}

	// The store holds the three rounds, each with the receiver's interrupt
	// distribution and the parameters of the run.
	rounds, _, err := report.OpenStore(c.Store).Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 5 {
		t.Fatalf("store holds %d rounds, want 5", len(rounds))
	}
	// -S 2M against the default rmem_max 212992: clamped in round A (the
	// kernel grants twice the cap), granted after round S raised the
	// limit (twice the request), 4M in round V.
	for i, want := range []float64{425984, 4194304, 4194304, 4194304, 8388608} {
		m, ok := rounds[i].Metric("sockbuf_remote_recv")
		if !ok || m.Values[0] != want {
			t.Errorf("%s: netserver's receive buffer %v, want %.0f", names[i], m.Values, want)
		}
	}
	clampInA := false
	for _, f := range s.Findings {
		if f.Rule == report.RuleBufferClamped {
			if f.Round != names[0] {
				t.Errorf("a clamp finding in %s: %s", f.Round, f.Summary)
			}
			clampInA = clampInA || strings.Contains(f.Summary, "net.core.rmem_max is 212992")
		}
	}
	if !clampInA {
		t.Errorf("round A has no socket_buffer_clamped finding naming rmem_max 212992")
	}
	if _, err := os.Stat(filepath.Join(c.Out, "preflight.md")); err != nil {
		t.Errorf("-out: %v", err)
	}
	for i, r := range rounds {
		if r.Name != names[i] {
			t.Errorf("store round %d is %s, want %s", i, r.Name, names[i])
		}
		if m, _ := r.Param("netdev_mtu"); m != strconv.Itoa(mtus[i]) {
			t.Errorf("%s: netdev_mtu %q, want %d", r.Name, m, mtus[i])
		}
		irqMetrics := 0
		for _, m := range r.Metrics {
			if l, _ := m.Label("netdev"); m.Name == "queue_irqs" && l == "eth1" {
				irqMetrics++
			}
		}
		if irqMetrics == 0 {
			t.Errorf("%s: no queue_irqs of the receiver eth1", r.Name)
		}
		if _, ok := r.Metric("recv_throughput"); !ok {
			t.Errorf("%s: no recv_throughput", r.Name)
		}
		// netperf -D 1: interim results of every run, timed within it.
		interims := map[string]int{}
		for _, m := range r.Metrics {
			if m.Name == "interim_throughput" {
				rep, _ := m.Label("repeat")
				interims[rep]++
				if ts, _ := m.Label("t"); m.Unit != report.UnitMbps || ts == "" || len(m.Values) != 1 || !(m.Values[0] >= 0) {
					t.Errorf("%s: interim %s: %v %s", r.Name, m.Key(), m.Values, m.Unit)
				}
			}
		}
		if len(interims) != c.Count || interims["0"] == 0 {
			t.Errorf("%s: interim results per run %v, want some in each of %d runs", r.Name, interims, c.Count)
		}
		t.Logf("%s: interim results per run %v", r.Name, interims)
	}

	// The files of -out; each archive holds netperf's output of every run.
	if html, err := os.ReadFile(filepath.Join(c.Out, "report.html")); err != nil || !bytes.Contains(html, []byte("throughput over time (interim results)")) {
		t.Errorf("report.html without the interim picture (%v)", err)
	}
	for _, name := range []string{"report.md", "preflight.json", "interims-throughput.svg"} {
		if _, err := os.Stat(filepath.Join(c.Out, name)); err != nil {
			t.Errorf("-out: %v", err)
		}
	}
	for _, name := range names {
		f, err := os.Open(filepath.Join(c.Out, name+".tar.gz"))
		if err != nil {
			t.Errorf("archive: %v", err)
			continue
		}
		r, files, err := report.ReadArchive(f)
		f.Close()
		if err != nil {
			t.Errorf("%s.tar.gz: %v", name, err)
			continue
		}
		found := map[string][]byte{}
		for _, af := range files {
			found[af.Name] = af.Data
		}
		for i := range c.Count {
			raw, ok := found["raw/"+strconv.Itoa(i)+"/netperf.stdout"]
			if !ok {
				t.Errorf("%s.tar.gz: no raw/%d/netperf.stdout", name, i)
				continue
			}
			if res, err := netperf.ParseKeyVal(bytes.NewReader(raw)); err != nil || res.UDP == nil {
				t.Errorf("%s.tar.gz raw/%d/netperf.stdout does not parse back: %v", name, i, err)
			}
			if _, ok := found["snapshots/"+strconv.Itoa(i)+"/far-after.json"]; !ok {
				t.Errorf("%s.tar.gz: no snapshots/%d/far-after.json", name, i)
			}
		}
		if r.Fingerprint == nil || len(r.Fingerprint.Argv) != 2 {
			t.Errorf("%s.tar.gz: fingerprint without the two command lines", name)
		}
	}
}

// readSysctl reads a file under /proc/sys, trimmed.
func readSysctl(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/" + path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// readMTU reads a netdev's MTU, in a named namespace or ("") here.
func readMTU(t *testing.T, netns, dev string) int {
	t.Helper()
	args := []string{"-j", "link", "show", "dev", dev}
	if netns != "" {
		args = append([]string{"-n", netns}, args...)
	}
	out, err := exec.Command("ip", args...).Output()
	if err != nil {
		t.Fatalf("ip %s: %v", strings.Join(args, " "), err)
	}
	var links []struct {
		MTU int `json:"mtu"`
	}
	if err := json.Unmarshal(out, &links); err != nil || len(links) != 1 {
		t.Fatalf("ip -j link show %s: %v: %s", dev, err, out)
	}
	return links[0].MTU
}
