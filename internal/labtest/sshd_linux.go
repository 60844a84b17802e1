package labtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHD is an sshd on 127.0.0.1 that a root test started, with a host key
// of its own and the one client key it accepts for root.
type SSHD struct {
	Addr       string // "127.0.0.1:PORT"
	Port       uint16
	Dir        string             // its files; the test's to use
	KnownHosts string             // a known_hosts file with the server's key
	ClientKey  ed25519.PrivateKey // the accepted login key
	KeyFile    string             // ClientKey as an unencrypted OpenSSH file
}

const sshdPath = "/usr/sbin/sshd"

// StartSSHD starts "sshd -D -e -f CONFIG" with everything in a temporary
// folder, waits until it accepts connections, and kills it (by its PID)
// when the test ends, printing its log if the test failed. It skips
// without root or without sshd.
func StartSSHD(t testing.TB) *SSHD {
	t.Helper()
	Root(t)
	if _, err := os.Stat(sshdPath); err != nil {
		t.Skipf("no %s (apt-get install openssh-server): %v", sshdPath, err)
	}
	dir := t.TempDir()
	hostPriv, hostPub := NewKey(t)
	clientPriv, clientPub := NewKey(t)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hostKey := write("ssh_host_ed25519_key", marshalTestKey(t, hostPriv))
	authorized := write("authorized_keys", ssh.MarshalAuthorizedKey(clientPub))
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.1: %v", err)
	}
	port := uint16(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	config := write("sshd_config", []byte(strings.Join([]string{
		fmt.Sprintf("Port %d", port),
		"ListenAddress 127.0.0.1",
		"HostKey " + hostKey,
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"AuthorizedKeysFile " + authorized,
		"StrictModes no",
		"UsePAM no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"MaxSessions 20",
		"",
	}, "\n")))
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation folder
		t.Fatal(err)
	}
	var log lockedBuffer
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", config)
	cmd.Stderr = &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("sshd log:\n%s", log.String())
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(20 * time.Second); ; {
		c, err := net.DialTimeout("tcp4", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("sshd exited: %s", log.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd does not accept on %s: %v", addr, err)
		}
	}
	return &SSHD{Addr: addr, Port: port, Dir: dir, ClientKey: clientPriv,
		KnownHosts: write("known_hosts", []byte(knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostPub)+"\n")),
		KeyFile:    write("id_ed25519", marshalTestKey(t, clientPriv))}
}

// NewKey makes an ed25519 key pair for a test's SSH client or server.
func NewKey(t testing.TB) (ed25519.PrivateKey, ssh.PublicKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return priv, sp
}

func marshalTestKey(t testing.TB, priv ed25519.PrivateKey) []byte {
	t.Helper()
	block, err := ssh.MarshalPrivateKey(priv, "labtest")
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(block)
}

// lockedBuffer is a bytes.Buffer that the process writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
