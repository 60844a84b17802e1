//go:build lab

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// TestLabTwoHostsOverSSH runs the baseline in two-host mode in one guest:
// the far end is the rocekit-peer agent (this binary, peerAgent) reached
// over SSH (an sshd on 127.0.0.1), so every call crosses the agent's
// protocol as it does between hosts. Both ends work on the same netdev
// and rxe link: rdma_rxe carries RoCE from its UDP socket in the initial
// namespace, so a pair between two namespaces of one kernel does not
// flow (tried on 6.12: "Failed status 5"; see topo.Spec.RXE), while one
// device serves both ends. Its rounds hold both ends' versions and
// command lines, the far one's as "ssh root@127.0.0.1:PORT", and the
// archive's rerun.sh reruns the round: the test runs it (its ssh given
// the test's key and known_hosts) and finds ib_send_bw's numbers in what
// it printed.
func TestLabTwoHostsOverSSH(t *testing.T) {
	labtest.Guest(t)
	sshd := labtest.StartSSHD(t)
	labtest.Veth(t, "shveth0", "shveth1", "198.18.92.1/24")

	dir := t.TempDir()
	agent := peerAgent(t) // this binary as rocekit-peer
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	target := "root@" + sshd.Addr
	peer, err := runbook.DialPeer(ctx, runbook.PeerConfig{Target: target, Identity: sshd.KeyFile, KnownHosts: sshd.KnownHosts,
		Agent: agent, JournalDir: filepath.Join(dir, "peer-journals")})
	if err != nil {
		t.Fatal(err)
	}
	sides := &runbook.Sides{Mode: runbook.TwoHosts, Near: &runbook.Local{Journal: filepath.Join(dir, "journal.jsonl")}, Far: peer,
		NearNetdev: "shveth0", FarNetdev: "shveth0"}
	defer func() {
		if err := sides.Restore(); err != nil {
			t.Error(err)
		}
		labtest.CheckRestored(t, "shrxe0", "shveth0", "1500")
	}()
	if err := sides.PrepareRXE(ctx, "shrxe0", 0, nil); err != nil {
		t.Fatal(err)
	}
	c := goodConfig(dir)
	c.Netdev, c.Peer, c.PeerNetdev, c.Count, c.Iterations, c.Soak = "shveth0", target, "shveth0", 2, 200, 0
	var out bytes.Buffer
	if err := baseline(ctx, c, sides, nil, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Logf("%s", out.String())
	rounds, _, err := report.OpenStore(c.Store).Load()
	if err != nil || len(rounds) != 2 {
		t.Fatalf("store: %d rounds, %v", len(rounds), err)
	}
	for _, r := range rounds {
		fp := r.Fingerprint
		if fp == nil || len(fp.Argv) != 2 || fp.Argv[0].Host != target {
			t.Fatalf("%s: fingerprint %+v", r.Name, fp)
		}
		fields := map[string]string{}
		for _, f := range fp.Fields() {
			fields[f.Key] = f.Value
		}
		for _, k := range []string{"kernel", "tool[" + peer.Name() + "/perftest]", "tool[local/perftest]", "tool[local/rdma-core]"} {
			if fields[k] == "" {
				t.Errorf("%s: no %s in %v", r.Name, k, fields)
			}
		}
	}
	checkRerun(t, filepath.Join(c.Out, "ib_send_bw.tar.gz"), sshd)
}

// checkRerun runs the archive's rerun.sh, its ssh (when it has one)
// given the test sshd's key and known_hosts, and wants ib_send_bw's
// average bandwidth line in what it printed.
func checkRerun(t *testing.T, archive string, sshd *labtest.SSHD) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, files, err := report.ReadArchive(f)
	if err != nil {
		t.Fatal(err)
	}
	var script []byte
	for _, af := range files {
		if af.Name == report.ArchiveRerun {
			script = af.Data
		}
	}
	if bytes.Contains(script, []byte("No command lines were recorded")) || !bytes.Contains(script, []byte("ib_send_bw")) {
		t.Fatalf("rerun.sh:\n%s", script)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "rerun.sh")
	os.WriteFile(path, script, 0o755)
	env := os.Environ()
	if sshd != nil {
		wrapper := "#!/bin/sh\nexec /usr/bin/ssh -i " + sshd.KeyFile + " -o UserKnownHostsFile=" + sshd.KnownHosts + " -o BatchMode=yes \"$@\"\n"
		os.WriteFile(filepath.Join(dir, "ssh"), []byte(wrapper), 0o755)
		env = append(env, "PATH="+dir+":"+os.Getenv("PATH"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", path)
	// The script's background server (an ssh) holds the output pipe: end
	// the whole group at the deadline and stop waiting for the pipe.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = env
	var outb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outb, io.MultiWriter(&outb)
	err = cmd.Run()
	t.Logf("rerun.sh:\n%s\nprinted:\n%s", script, outb.String())
	if err != nil || !strings.Contains(outb.String(), "#bytes") {
		t.Errorf("rerun.sh: %v, no ib_send_bw result printed", err)
	}
}
