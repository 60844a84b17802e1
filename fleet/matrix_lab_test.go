//go:build lab

package fleet_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/fleet"
	"github.com/rocekit/rocekit/internal/lab"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// The three guests share one L2 segment (the lab's hub for a network of
// three or more guests), each with one NIC:
//
//	a eth0 198.18.10.1/24, b eth0 198.18.10.2/24, c eth0 198.18.10.3/24
//
// Only the path between a and c is slowed: on a, packets to c, and on c,
// packets to a, go through netem (a prio qdisc whose second band holds
// netem, chosen by a u32 filter on the destination); everything else
// takes the first band. So a and c are each fast with b, and fleet must
// blame the link a–c, not a host. a runs examples/fleet-matrix against
// b and c over SSH (rocekit-peer prepares their rxe links), twice: the
// second run resumes from the store and measures nothing again.
const (
	labDone    = "/run/fleet-lab-done"
	labOut     = "/lab/out"
	labSlowNet = "netem rate 1mbit limit 100000"
	labNet     = "198.18.10."
)

// slowPathTo is the shell that slows what eth0 sends to dst only.
func slowPathTo(dst string) string {
	return "modprobe -a sch_prio sch_netem cls_u32" +
		" && tc qdisc add dev eth0 root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" +
		" && tc qdisc add dev eth0 parent 1:2 handle 20: " + labSlowNet +
		" && tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst " + dst + "/32 flowid 1:2"
}

// TestGuestsMatrixThreeOnSegment runs on the host (root, QEMU, the lab
// images; `lab test` runs it per suite): it boots three guests of each
// suite on one segment and checks that every cell is filled, the slowed
// path a–c is the one outlier and blamed on the link, the line-rate gate
// fails it, and the rerun resumes every pair from the store. Inside a
// guest it skips: it boots guests itself. A suite without an image skips,
// unless ROCEKIT_LAB_SUITES named it (as lab test does): then it fails.
func TestGuestsMatrixThreeOnSegment(t *testing.T) {
	guestsPerSuite(t, "TestGuests", []string{"cmd/rocekit-peer", "examples/fleet-matrix"}, runThreeGuests)
}

// guestsPerSuite is the frame of a test that boots its own guests: on the
// host only (root, QEMU; inside a guest it skips, with the command that
// runs it alone: lab test -run RUN -pkg ./fleet), it builds the lab's
// agent and the binaries of pkgs (bins, by package), then calls run once
// per suite of ROCEKIT_LAB_SUITES (bookworm and trixie by default) with
// that suite's image. A suite without an image skips, unless
// ROCEKIT_LAB_SUITES named it (as lab test does): then it fails.
func guestsPerSuite(t *testing.T, run string, pkgs []string, test func(ctx context.Context, t *testing.T, img *lab.Image, agent string, bins map[string]string)) {
	if os.Getenv(lab.EnvInLab) == "1" {
		t.Skip("boots its own guests: run it on the host (go run ./internal/lab/cmd/lab test -run " + run + " -pkg ./fleet)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root (QEMU guests)")
	}
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		t.Skip("qemu-system-x86_64 not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	dir := t.TempDir()
	agent, err := lab.BuildAgent(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{}
	for _, pkg := range pkgs {
		if bins[pkg], err = lab.BuildBinary(ctx, lab.Module+"/"+pkg, filepath.Join(dir, filepath.Base(pkg))); err != nil {
			t.Fatal(err)
		}
	}
	asked := os.Getenv(lab.EnvSuites) != ""
	for _, suite := range strings.Split(envOr(lab.EnvSuites, "bookworm,trixie"), ",") {
		t.Run(suite, func(t *testing.T) {
			img, err := lab.Cache{Dir: lab.DefaultCacheDir()}.Lookup(lab.DefaultSpec(suite))
			switch {
			case err != nil && asked: // lab test asked for this suite: a missing image fails
				t.Fatalf("no %s image: %v (make lab-image)", suite, err)
			case err != nil:
				t.Skipf("no %s image: %v (make lab-image)", suite, err)
			}
			test(ctx, t, img, agent, bins)
		})
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// peerGuest is b or c: sshd on the segment until a says it is done.
func peerGuest(suite string, img *lab.Image, name, addr, slowTo string, keys labKeys, bins map[string]string) lab.Guest {
	script := "ip addr add " + addr + "/24 dev eth0 && ip link set eth0 up"
	if slowTo != "" {
		script += " && " + slowPathTo(slowTo)
	}
	return lab.Guest{Name: suite + "-" + name, Image: img, SMP: 2, MemMiB: 1536,
		NICs: []lab.NIC{{Network: "lan"}},
		Files: []lab.OverlayFile{
			{Path: "/usr/local/bin/rocekit-peer", Mode: 0o755, Source: bins["cmd/rocekit-peer"]},
			{Path: "/etc/ssh/ssh_host_ed25519_key", Mode: 0o600, Data: keys.hostKey},
			{Path: "/etc/ssh/ssh_host_ed25519_key.pub", Mode: 0o644, Data: keys.hostPub},
			{Path: "/root/.ssh/authorized_keys", Mode: 0o600, Data: keys.authorized},
		},
		Plan: lab.Plan{Steps: []lab.Step{
			shStep("link up", script),
			shStep("sshd", "mkdir -p /run/sshd && /usr/sbin/sshd -e -o UsePAM=no -o PasswordAuthentication=no"+
				" -o PermitRootLogin=prohibit-password -o UseDNS=no -o MaxSessions=50 -o MaxStartups=50"+
				" -o HostKey=/etc/ssh/ssh_host_ed25519_key && until [ -e "+labDone+" ]; do sleep 0.5; done"),
		}},
	}
}

// runThreeGuests boots a, b and c of one image and checks a's results.
func runThreeGuests(ctx context.Context, t *testing.T, img *lab.Image, agent string, bins map[string]string) {
	keys := newLabKeys(t, labNet+"2", labNet+"3")
	suite := img.Manifest.Suite
	b := peerGuest(suite, img, "b", labNet+"2", "", keys, bins)
	c := peerGuest(suite, img, "c", labNet+"3", labNet+"1", keys, bins)
	ssh := "ssh -i /lab/ssh/id_ed25519 -o UserKnownHostsFile=/lab/ssh/known_hosts -o BatchMode=yes root@"
	args := "/lab/bin/fleet-matrix -host a=local:eth0 -host b=root@" + labNet + "2:eth0 -host c=root@" + labNet + "3:eth0" +
		" -identity /lab/ssh/id_ed25519 -known-hosts /lab/ssh/known_hosts -journal-dir /lab" +
		" -n 200 -size 16384 -tx-depth 16 -qp-timeout 22 -line-rate 1 -pair-timeout 4m -name lab" +
		" -store " + labOut + "/rounds.jsonl" +
		// A slowed path carries about 4 % of the others here, while TCG's
		// noise took a good pair down to 67 % of the reference in a make
		// check (b–c blamed on both hosts): judge slow below 30 %.
		" -slow-ratio 0.3"
	peers := labNet + "2 " + labNet + "3"
	a := lab.Guest{Name: suite + "-a", Image: img, SMP: 2, MemMiB: 1536,
		NICs: []lab.NIC{{Network: "lan"}},
		Files: []lab.OverlayFile{
			{Path: "/lab/bin/fleet-matrix", Mode: 0o755, Source: bins["examples/fleet-matrix"]},
			{Path: "/lab/ssh/id_ed25519", Mode: 0o600, Data: keys.clientKey},
			{Path: "/lab/ssh/known_hosts", Mode: 0o644, Data: keys.knownHosts},
		},
		Plan: lab.Plan{Collect: labOut, Steps: []lab.Step{
			shStep("link up", "ip addr add "+labNet+"1/24 dev eth0 && ip link set eth0 up && "+slowPathTo(labNet+"3")),
			{Name: "wait for sshd", Path: "/bin/bash", Timeout: 3 * time.Minute,
				Args: []string{"-c", "for h in " + peers + "; do until (exec 3<>/dev/tcp/$h/22) 2>/dev/null; do sleep 0.5; done; done"}},
			shStep("matrix", args+" -second-pass -out "+labOut+"/first"),
			shStep("resume", args+" -out "+labOut+"/second"),
			// Then b is slowed on every link (its own sending, and a's and
			// c's towards it), a–c restored, and a fresh run with a second
			// pass must blame the host b.
			shStep("slow b everywhere", "tc qdisc del dev eth0 root && "+slowPathTo(labNet+"2")+
				" && "+ssh+labNet+"3 'tc qdisc del dev eth0 root && "+slowPathTo(labNet+"2")+"'"+
				" && "+ssh+labNet+"2 'modprobe sch_netem && tc qdisc add dev eth0 root "+labSlowNet+"'"),
			shStep("host matrix", args+" -name lab-host -second-pass -out "+labOut+"/host"),
			shStep("state after", "{ tc -s qdisc show dev eth0; rdma link show; for h in "+peers+"; do "+ssh+"$h "+
				"'tc -s qdisc show dev eth0; rdma link show; echo journals: $(ls /var/tmp/rocekit-peer 2>/dev/null | wc -l)'; done; } > "+labOut+"/state-after.txt 2>&1"),
			shStep("release", ssh+labNet+"2 touch "+labDone+"; "+ssh+labNet+"3 touch "+labDone),
		}},
	}
	began := time.Now()
	res, err := lab.Run(ctx, []lab.Guest{a, b, c}, lab.RunOptions{Agent: agent})
	if res == nil {
		t.Fatal(err)
	}
	ra := res[0]
	for _, s := range ra.Steps {
		t.Logf("a: step %s: %s in %.0f s\n%s%s", s.Step.Name, s.Exit, s.Exit.Seconds, s.Stdout, s.Stderr)
	}
	if err != nil || !ra.Done {
		for _, r := range res {
			t.Logf("%s console tail:\n%s", r.Guest, tail(r.Console, 3000))
		}
		t.Fatalf("guests did not finish: %v", err)
	}
	t.Logf("%s: three guests in %v (a's agent up %.0f s after boot)", suite, time.Since(began).Round(time.Second), ra.Agent.UptimeS)
	checkMatrixRun(t, ra)
}

// checkMatrixRun checks what guest a collected.
func checkMatrixRun(t *testing.T, ra *lab.Result) {
	if !ra.Steps[2].Exit.OK() || !ra.Steps[3].Exit.OK() {
		t.Fatalf("fleet-matrix: %s, rerun: %s", ra.Steps[2].Exit, ra.Steps[3].Exit)
	}
	var first, second fleet.Matrix
	for _, f := range []struct {
		name string
		m    *fleet.Matrix
	}{{"first/matrix.json", &first}, {"second/matrix.json", &second}} {
		if err := json.Unmarshal(ra.Files[f.name], f.m); err != nil {
			t.Fatalf("%s: %v\n%s", f.name, err, ra.Files[f.name])
		}
	}
	t.Logf("matrix:\n%s", ra.Files["first/matrix.md"])
	if len(first.Cells) != 3 || len(first.Unmeasured) != 0 {
		t.Fatalf("%d cells, %d unmeasured", len(first.Cells), len(first.Unmeasured))
	}
	for _, c := range first.Cells {
		name := c.A + "–" + c.B
		if !c.OK || c.BWGbps <= 0 || c.Resumed {
			t.Errorf("cell %s: %+v", name, c)
		}
		if c.ANIC+"/"+c.BNIC != "eth0/eth0" || c.LineRateGbps != 1 {
			t.Errorf("cell %s used %s/%s at line rate %v, want eth0/eth0 at 1", name, c.ANIC, c.BNIC, c.LineRateGbps)
		}
	}
	out := fleet.Outliers(&first, 0)
	if len(out) != 1 || out[0].Blame != fleet.BlameLink || out[0].Names[0] != "a–c" {
		t.Errorf("outliers %v, want the link a–c", out)
	}
	var sum struct {
		Outliers []fleet.Outlier `json:"outliers"`
		Gate     string          `json:"gate"`
	}
	if err := json.Unmarshal(ra.Files["first/findings.json"], &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Outliers) != 1 || sum.Outliers[0].Names[0] != "a–c" || !strings.Contains(sum.Gate, "a–c") {
		t.Errorf("findings.json: outliers %v, gate %q", sum.Outliers, sum.Gate)
	}
	if svg := ra.Files["first/heatmap.svg"]; !strings.Contains(string(svg), "<svg") || strings.Count(string(svg), "<rect") != 9 {
		t.Errorf("heatmap.svg: %.200s", svg)
	}
	// The rerun resumed every pair from the store.
	if len(second.Cells) != 3 {
		t.Errorf("rerun: %d cells, want the 3 pairs resumed", len(second.Cells))
	}
	for _, c := range second.Cells {
		if !c.Resumed {
			t.Errorf("rerun measured %s–%s again", c.A, c.B)
		}
	}
	if !strings.Contains(string(ra.Steps[3].Stderr), "resuming lab: 3 pairs in the store, 0 to measure") {
		t.Errorf("rerun's progress:\n%s", ra.Steps[3].Stderr)
	}
	checkSecondPass(t, ra, "first", map[string]string{"a–c": "link"})
	if !ra.Steps[5].Exit.OK() {
		t.Fatalf("slowing b: %s\n%s", ra.Steps[5].Exit, ra.Steps[5].Stderr)
	}
	checkSecondPass(t, ra, "host", map[string]string{"a–b": "host b", "b–c": "host b"})
	// Every host is back: no rxe link, no journal left on b and c.
	st := string(ra.Files["state-after.txt"])
	t.Logf("state after:\n%s", st)
	if strings.Contains(st, "rxe_") || strings.Count(st, "journals: 0") != 2 {
		t.Errorf("left after the run:\n%s", st)
	}
}

// checkSecondPass checks that the second pass of the run in dir named the
// culprit of each suspect pair ("link", "host b"), and no other suspect.
func checkSecondPass(t *testing.T, ra *lab.Result, dir string, want map[string]string) {
	t.Helper()
	t.Logf("%s second pass:\n%s", dir, ra.Files[dir+"/second-pass.md"])
	var sp fleet.SecondPass
	if err := json.Unmarshal(ra.Files[dir+"/second-pass.json"], &sp); err != nil {
		t.Errorf("%s/second-pass.json: %v", dir, err)
		return
	}
	got := map[string]string{}
	for _, s := range sp.Suspects {
		got[s.Name] = strings.TrimSpace(string(s.Culprit) + " " + s.Host)
	}
	if len(got) != len(want) {
		t.Errorf("%s: suspects %v, want %v", dir, got, want)
	}
	for pair, culprit := range want {
		if got[pair] != culprit {
			t.Errorf("%s: %s blamed on %q, want %q (%v)", dir, pair, got[pair], culprit, sp.Suspects)
		}
	}
}

func shStep(name, script string) lab.Step {
	return lab.Step{Name: name, Path: "/bin/sh", Args: []string{"-c", script}, Timeout: 20 * time.Minute}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// labKeys are made fresh per run: one host key for b and c (pinned in
// a's known_hosts for their addresses) and root's login key.
type labKeys struct {
	hostKey, hostPub, clientKey, knownHosts, authorized []byte
}

func newLabKeys(t *testing.T, addrs ...string) labKeys {
	newKey := func() (ssh.PublicKey, []byte) {
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		block, err := ssh.MarshalPrivateKey(priv, "")
		if err != nil {
			t.Fatal(err)
		}
		sp, err := ssh.NewPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		return sp, pem.EncodeToMemory(block)
	}
	hostPub, hostPriv := newKey()
	clientPub, clientPriv := newKey()
	return labKeys{hostKey: hostPriv, clientKey: clientPriv, hostPub: ssh.MarshalAuthorizedKey(hostPub),
		knownHosts: []byte(knownhosts.Line(addrs, hostPub) + "\n"), authorized: ssh.MarshalAuthorizedKey(clientPub)}
}
