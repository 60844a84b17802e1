package host

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocekit/rocekit/internal/labtest"
)

// testSSHD is labtest's sshd on 127.0.0.1, as these tests name it.
type testSSHD struct {
	addr       string
	port       uint16
	dir        string
	knownHosts string // a known_hosts file with the server's key
	keyFile    string // clientKey as an OpenSSH key file
	clientKey  ed25519.PrivateKey
}

func newKey(t *testing.T) (ed25519.PrivateKey, ssh.Signer) {
	priv, _ := labtest.NewKey(t)
	return keySigner(t, priv)
}

func startSSHD(t *testing.T) *testSSHD {
	d := labtest.StartSSHD(t)
	return &testSSHD{addr: d.Addr, port: d.Port, dir: d.Dir, knownHosts: d.KnownHosts, keyFile: d.KeyFile, clientKey: d.ClientKey}
}

func (d *testSSHD) dial(t *testing.T) *SSH {
	t.Helper()
	_, signer := keySigner(t, d.clientKey)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := DialSSH(ctx, d.addr, SSHConfig{User: "root", KnownHostsFiles: []string{d.knownHosts}, Signers: []ssh.Signer{signer}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func keySigner(t *testing.T, priv ed25519.PrivateKey) (ed25519.PrivateKey, ssh.Signer) {
	t.Helper()
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return priv, signer
}

func TestSSH(t *testing.T) {
	d := startSSHD(t)
	s := d.dial(t)
	// Generous: every session starts the remote login shell, which may run
	// slow rc files (here: pyenv init, seconds under load).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	t.Run("output and exit code", func(t *testing.T) {
		p, err := Run(ctx, s, Cmd{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}})
		var exitErr *ExitError
		if !errors.As(err, &exitErr) || exitErr.Status != (ExitStatus{Code: 3}) || exitErr.Stderr != "err\n" {
			t.Fatalf("err = %v, want exit status 3 with stderr", err)
		}
		if p.Stdout().String() != "out\n" || p.Stderr().String() != "err\n" || p.PID() <= 0 {
			t.Errorf("stdout %q stderr %q pid %d", p.Stdout(), p.Stderr(), p.PID())
		}
		if p, err := Run(ctx, s, Cmd{Argv: []string{"true"}}); err != nil || !p.Status().Success() {
			t.Errorf("true: %v", err)
		}
	})

	t.Run("shell metacharacters arrive intact", func(t *testing.T) {
		pwned := filepath.Join(d.dir, "pwned")
		arg := `'$(touch ` + pwned + `)'; rm -rf "x" \` + "`touch " + pwned + "`\nnewline ünïcödé 日本 $HOME ${PATH} * ? ~ ; & | < > # !!"
		p, err := Run(ctx, s, Cmd{Argv: []string{"printf", "%s", arg}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Stdout().String(); got != arg {
			t.Errorf("got %q, want %q", got, arg)
		}
		// All the tricky words at once, as arguments and as environment values
		// (one session: each costs a login shell start on the remote).
		env := make([]string, len(trickyArgs))
		for i, word := range trickyArgs {
			env[i] = fmt.Sprintf("ROCEKIT_V%d=%s", i, word)
		}
		script := `i=0; for a; do eval "v=\$ROCEKIT_V$i"; printf '%s\000%s\000' "$a" "$v"; i=$((i+1)); done`
		p, err = Run(ctx, s, Cmd{Argv: append([]string{"sh", "-c", script, "sh"}, trickyArgs...), Env: env, Dir: d.dir})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(p.Stdout().String(), "\x00")
		if len(got) != 2*len(trickyArgs)+1 {
			t.Fatalf("got %d words: %q", len(got), got)
		}
		for i, word := range trickyArgs {
			if got[2*i] != word || got[2*i+1] != word {
				t.Errorf("word %d: argument %q, environment %q, want %q", i, got[2*i], got[2*i+1], word)
			}
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Error("an argument was run as shell")
		}
	})

	t.Run("missing binary", func(t *testing.T) {
		_, err := s.Start(ctx, Cmd{Argv: []string{"rocekit-no-such-binary"}})
		var startErr *StartError
		if !errors.Is(err, exec.ErrNotFound) || !errors.As(err, &startErr) {
			t.Errorf("err = %v, want *StartError wrapping exec.ErrNotFound", err)
		}
	})

	t.Run("line buffered", func(t *testing.T) {
		p, err := s.Start(ctx, Cmd{Argv: []string{"sh", "-c", "{ echo a; exec sleep 1000; } | sed s/a/b/"}, LineBuffered: true})
		if err != nil {
			t.Fatal(err)
		}
		waitLine(t, p.Stdout(), "b")
		if err := p.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := p.Wait(ctx); !errors.Is(err, ErrKilled) {
			t.Errorf("Wait = %v, want ErrKilled", err)
		}
	})

	t.Run("cancel kills the remote group", func(t *testing.T) { testCancelKillsGroup(t, s) })

	t.Run("stop", func(t *testing.T) {
		p, err := s.Start(ctx, Cmd{Argv: []string{"sleep", "1000"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Stop(ctx); err != nil || p.Status().Signal != syscall.SIGTERM {
			t.Errorf("Stop = %v, status %v", err, p.Status())
		}
		waitGone(t, []int{p.PID()})
	})

	t.Run("listening", func(t *testing.T) {
		if err := WaitListening(ctx, s, d.port); err != nil { // sshd itself
			t.Fatal(err)
		}
		port := freePort(t, "tcp4", "127.0.0.1:0")
		srv, err := s.Start(ctx, helperCmd(t, fmt.Sprintf("listen:tcp4:127.0.0.1:%d", port)))
		if err != nil {
			t.Fatal(err)
		}
		if err := WaitProcessListening(ctx, srv, port); err != nil {
			t.Fatal(err)
		}
		srv.Kill()
		srv.Wait(ctx)
		socks, err := s.TCPSockets(ctx)
		if err != nil || ListeningOn(socks, port) || !ListeningOn(socks, d.port) {
			t.Errorf("after kill: listening on %d: %v, on sshd's %d: %v (%v)", port, ListeningOn(socks, port), d.port, ListeningOn(socks, d.port), err)
		}
	})
}

func TestSSHHostKeyRefused(t *testing.T) {
	d := startSSHD(t)
	_, signer := keySigner(t, d.clientKey)
	_, otherHost := newKey(t)
	wrong := writeFile(t, d.dir, "wrong_known_hosts", knownhosts.Line([]string{knownhosts.Normalize(d.addr)}, otherHost.PublicKey())+"\n", 0o600)
	unknown := writeFile(t, d.dir, "unknown_known_hosts", knownhosts.Line([]string{"example.org"}, otherHost.PublicKey())+"\n", 0o600)
	for _, tc := range []struct {
		file  string
		known bool
	}{{wrong, true}, {unknown, false}} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		s, err := DialSSH(ctx, d.addr, SSHConfig{User: "root", KnownHostsFiles: []string{tc.file}, Signers: []ssh.Signer{signer}})
		cancel()
		var hkErr *HostKeyError
		if s != nil || !errors.Is(err, ErrHostKey) || !errors.As(err, &hkErr) || hkErr.Known != tc.known {
			t.Errorf("%s: err = %v, want *HostKeyError with Known=%v", filepath.Base(tc.file), err, tc.known)
		}
	}
}

// Keys from a file and from an agent authenticate too.
func TestSSHKeyFileAndAgent(t *testing.T) {
	d := startSSHD(t)
	keyFile := d.keyFile

	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: d.clientKey}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(d.dir, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { agent.ServeAgent(keyring, c); c.Close() }()
		}
	}()
	for name, cfg := range map[string]SSHConfig{
		"key file": {KeyFiles: []string{keyFile}},
		"agent":    {Agent: true, AgentSocket: sock},
	} {
		cfg.User, cfg.KnownHostsFiles = "root", []string{d.knownHosts}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		s, err := DialSSH(ctx, d.addr, cfg)
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", name, err)
		}
		p, err := Run(ctx, s, Cmd{Argv: []string{"echo", name}})
		if err != nil || p.Stdout().String() != name+"\n" {
			t.Errorf("%s: %v %q", name, err, p.Stdout())
		}
		s.Close()
		cancel()
	}
}
