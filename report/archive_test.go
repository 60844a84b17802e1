package report

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// archiveFixture is the bookworm send-bw capture as a round with its raw
// outputs and the interrupt snapshots of a guest run before and after.
func archiveFixture(t testing.TB) (Round, []ArchiveFile) {
	r, err := FromPerftest("send_bw", t0, perftestFixture(t, "bookworm", "send-bw", "client"))
	if err != nil {
		t.Fatal(err)
	}
	r.Fingerprint = sampleFingerprint(1500, 1024)
	r.Fingerprint.Argv = []SideArgv{
		{Role: "server", Host: "vm-a", Argv: strings.Fields("ib_send_bw -d rxe0 -x 1 -F -n 300 -p 18515")},
		{Role: "client", Host: "vm-b", Argv: strings.Fields("ib_send_bw -d rxe0 -x 1 -F -n 300 -p 18515 198.18.0.1")},
	}
	var files []ArchiveFile
	for _, f := range []string{"client.stdout", "client.stderr", "server.stdout", "server.stderr"} {
		p := "raw/0/" + f
		files = append(files, ArchiveFile{p, fixture(t, "bookworm", "perftest", "send-bw", f)})
		role, stream, _ := strings.Cut(f, ".")
		r.Outputs = append(r.Outputs, Output{Repeat: 0, Role: role, Stream: stream, Path: p})
	}
	for _, when := range []string{"before", "after"} {
		b, err := os.ReadFile(filepath.Join("..", "irq", "testdata", "trixie", "traffic", when, "proc", "interrupts"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, ArchiveFile{"snapshots/" + when + "/interrupts", b})
	}
	return r, files
}

func TestArchiveRoundTrip(t *testing.T) {
	r, files := archiveFixture(t)
	var a, b bytes.Buffer
	if err := WriteArchive(&a, r, files); err != nil {
		t.Fatal(err)
	}
	if err := WriteArchive(&b, r, files); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same round gave two different archives")
	}
	got, gotFiles, err := ReadArchive(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	diff(t, r, got)
	var names []string
	byName := map[string][]byte{}
	for _, f := range gotFiles {
		names = append(names, f.Name)
		byName[f.Name] = f.Data
	}
	diff(t, []string{ArchiveFingerprint, ArchiveArgv, ArchiveRerun, ArchiveMarkdown,
		"raw/0/client.stdout", "raw/0/client.stderr", "raw/0/server.stdout", "raw/0/server.stderr",
		"snapshots/before/interrupts", "snapshots/after/interrupts"}, names)
	if !bytes.Equal(byName["raw/0/client.stdout"], files[0].Data) {
		t.Error("raw output changed in the archive")
	}
	golden(t, "archive/rerun.sh", byName[ArchiveRerun])
	golden(t, "archive/argv.txt", byName[ArchiveArgv])
	golden(t, "archive/report.md", byName[ArchiveMarkdown])
}

func TestArchiveRejects(t *testing.T) {
	r, _ := archiveFixture(t)
	for _, name := range []string{"/etc/passwd", "../x", "a/../../x", "", "round.json", "a//b"} {
		err := WriteArchive(&bytes.Buffer{}, r, []ArchiveFile{{name, nil}})
		if !errors.Is(err, ErrArchive) {
			t.Errorf("%q: %v", name, err)
		}
	}
	if _, _, err := ReadArchive(strings.NewReader("not gzip")); !errors.Is(err, ErrArchive) {
		t.Errorf("garbage: %v", err)
	}
	var buf bytes.Buffer
	WriteArchive(&buf, r, nil)
	cut := buf.Bytes()[:buf.Len()/2]
	if _, _, err := ReadArchive(bytes.NewReader(cut)); !errors.Is(err, ErrArchive) {
		t.Errorf("truncated: %v", err)
	}
}

func FuzzReadArchive(f *testing.F) {
	r, files := archiveFixture(f)
	var buf bytes.Buffer
	if err := WriteArchive(&buf, r, files[:1]); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		round, _, err := ReadArchive(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrArchive) {
				t.Fatalf("error %v does not wrap ErrArchive", err)
			}
			return
		}
		if err := round.Validate(); err != nil {
			t.Fatalf("read an invalid round: %v", err)
		}
	})
}

func TestJSONFile(t *testing.T) {
	f, err := JSONFile("snapshots/before/governors.json", map[string]string{"cpu0": "performance"})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, ArchiveFile{"snapshots/before/governors.json", []byte("{\n  \"cpu0\": \"performance\"\n}\n")}, f)
	if _, err := JSONFile("x", func() {}); err == nil {
		t.Error("a func encoded")
	}
}

// TestRerunScript: rerun.sh reaches a peer as OpenSSH takes it (ssh -p
// PORT -- USER@HOST, IPv6 literals without brackets; "root@h:22" is no
// host name to ssh), sets each side's MTUs and sysctls before the
// commands (in its namespace, over SSH for the peer), quotes every word,
// and is valid shell.
func TestRerunScript(t *testing.T) {
	r := Round{Name: "udp_stream_S_sockmax", Start: t0, Fingerprint: &Fingerprint{Argv: []SideArgv{
		{Role: "server", Host: "root@198.18.0.2:2222", Argv: []string{"netserver", "-D", "-p", "12865"},
			MTUs:    []NetdevMTU{{Netdev: "eth1", MTU: 9000}},
			Sysctls: []Param{{"net.core.rmem_max", "2097152"}, {"net.core.wmem_max", "1; touch /tmp/x"}}},
		{Role: "client", Argv: []string{"netperf", "-H", "198.18.0.2", "-t", "UDP_STREAM", "--", "-m", "1400"},
			MTUs: []NetdevMTU{{Netdev: "eth0", MTU: 9000}}, Sysctls: []Param{{"net.core.rmem_max", "2097152"}}},
	}}}
	got := rerunScript(r)
	want := `#!/bin/sh
# Rerun round udp_stream_S_sockmax (started 2026-11-29T17:15:53Z).
set -e
# What the round ran with, set again first: MTUs and sysctls. Not journaled:
# note the values there are now, and set them back by hand afterwards.
# server on root@198.18.0.2:2222
ssh -p 2222 -- root@198.18.0.2 'ip link set dev eth1 mtu 9000'
ssh -p 2222 -- root@198.18.0.2 'sysctl -w '\''net.core.rmem_max=2097152'\'''
ssh -p 2222 -- root@198.18.0.2 'sysctl -w '\''net.core.wmem_max=1; touch /tmp/x'\'''
# client
ip link set dev eth0 mtu 9000
sysctl -w 'net.core.rmem_max=2097152'
# server
ssh -p 2222 -- root@198.18.0.2 'netserver -D -p 12865' &
servers="$servers $!"
trap 'kill $servers 2>/dev/null || true' EXIT
# wait until it listens on TCP 12865 (at most 30 s), instead of guessing how long it takes
n=0
until ssh -p 2222 -- root@198.18.0.2 'ss -Hltn '\''sport = :12865'\''' | grep -q .; do
	n=$((n+1)); if [ $n -ge 150 ]; then echo 'rerun.sh: the server does not listen on TCP 12865 after 30 s' >&2; exit 1; fi
	sleep 0.2
done
# client
netperf -H 198.18.0.2 -t UDP_STREAM -- -m 1400
`
	if got != want {
		t.Errorf("rerun.sh:\n%s\nwant:\n%s", got, want)
	}
	shellCheck(t, got)

	for _, tc := range []struct{ host, want string }{
		{"root@[fe80::1]:22", "ssh -p 22 -- root@fe80::1 "},
		{"root@2001:db8::2", "ssh -- root@2001:db8::2 "},
		{"vm-a", "ssh -- vm-a "},
		{"admin@vm-a", "ssh -- admin@vm-a "},
		{"-oProxyCommand=x", "ssh -- '-oProxyCommand=x' "},
	} {
		r := Round{Name: "x", Start: t0, Fingerprint: &Fingerprint{Argv: []SideArgv{{Role: "client", Host: tc.host, Argv: []string{"true"}}}}}
		s := rerunScript(r)
		if !strings.Contains(s, "\n"+tc.want+"true\n") {
			t.Errorf("host %q:\n%s\nwant a line %q", tc.host, s, tc.want+"true")
		}
		shellCheck(t, s)
	}

	// A side in a namespace of this host sets them in it.
	ns := Round{Name: "x", Start: t0, Fingerprint: &Fingerprint{Argv: []SideArgv{{Role: "server", Netns: "udp peer",
		Argv: []string{"ip", "netns", "exec", "udp peer", "netserver", "-D"}, MTUs: []NetdevMTU{{Netdev: "eth1", MTU: 4200}},
		Sysctls: []Param{{"net.core.rmem_max", "4194304"}}}}}}
	s := rerunScript(ns)
	for _, w := range []string{"\n# server in netns udp peer\nip netns exec 'udp peer' ip link set dev eth1 mtu 4200\nip netns exec 'udp peer' sysctl -w 'net.core.rmem_max=4194304'\n",
		"\nip netns exec 'udp peer' netserver -D &\n"} {
		if !strings.Contains(s, w) {
			t.Errorf("netns rerun.sh:\n%s\nwant %q", s, w)
		}
	}
	shellCheck(t, s)
}

// shellCheck runs sh -n on a script: it must parse.
func shellCheck(t *testing.T, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-n")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sh -n: %v: %s\n%s", err, out, script)
	}
}
