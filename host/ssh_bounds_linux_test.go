package host

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// freezer forwards TCP connections to a backend until frozen; frozen, it
// keeps the connections open and drops every byte, as a host that
// vanished, a pulled cable or a firewall that starts dropping would.
type freezer struct {
	ln      net.Listener
	backend string
	mu      sync.Mutex
	frozen  bool
	conns   []net.Conn
}

func newFreezer(t *testing.T, backend string) *freezer {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln, backend: backend}
	t.Cleanup(func() {
		ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c)
			f.mu.Unlock()
			if backend == "" {
				continue // a port that accepts and never speaks
			}
			b, err := net.Dial("tcp4", backend)
			if err != nil {
				c.Close()
				continue
			}
			f.mu.Lock()
			f.conns = append(f.conns, b)
			f.mu.Unlock()
			go f.pipe(c, b)
			go f.pipe(b, c)
		}
	}()
	return f
}

func (f *freezer) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		f.mu.Lock()
		frozen := f.frozen
		f.mu.Unlock()
		if n > 0 && !frozen {
			dst.Write(buf[:n])
		}
		if err != nil {
			if err == io.EOF && !frozen {
				dst.(*net.TCPConn).CloseWrite()
			}
			return
		}
	}
}

func (f *freezer) freeze() {
	f.mu.Lock()
	f.frozen = true
	f.mu.Unlock()
}

func (f *freezer) addr() string { return f.ln.Addr().String() }

// TestSSHSilentPort: a port that accepts TCP and never speaks used to hang
// DialSSH until the run's deadline (30 min by default) and then say only
// "context deadline exceeded". DialTimeout ends it in seconds and says
// what it means.
func TestSSHSilentPort(t *testing.T) {
	f := newFreezer(t, "")
	_, signer := newKey(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err := DialSSH(ctx, f.addr(), SSHConfig{User: "root", Signers: []ssh.Signer{signer},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), DialTimeout: time.Second})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "no SSH answer within 1s") {
		t.Errorf("DialSSH to a silent port = %v", err)
	}
	if took > 5*time.Second {
		t.Errorf("DialSSH to a silent port took %s", took)
	}
}

// TestSSHPeerVanishes: the far host goes silent while a command runs on
// it. Without keepalives Wait hung until the kernel gave the TCP
// connection up (minutes; 125 s and 46 s seen); now the connection is
// given up within a few keepalive intervals, the command ends with a
// *LostError, and new commands fail at once.
func TestSSHPeerVanishes(t *testing.T) {
	d := startSSHD(t)
	f := newFreezer(t, d.addr)
	_, signer := keySigner(t, d.clientKey)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := DialSSH(ctx, f.addr(), SSHConfig{User: "root", Signers: []ssh.Signer{signer},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), KeepaliveInterval: 300 * time.Millisecond, KeepaliveMissed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Start(ctx, Cmd{Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	f.freeze()
	frozen := time.Now()
	err = p.Wait(ctx)
	took := time.Since(frozen)
	var lost *LostError
	if !errors.As(err, &lost) || !strings.Contains(err.Error(), "no answer to keepalives") {
		t.Errorf("Wait after the peer vanished = %v, want a *LostError", err)
	}
	if took > 10*time.Second {
		t.Errorf("the lost peer was noticed after %s, want within a few keepalive intervals", took)
	}
	t.Logf("noticed %s after the peer went silent", took.Round(10*time.Millisecond))
	if _, err := s.Start(ctx, Cmd{Argv: []string{"true"}}); !errors.As(err, &lost) {
		t.Errorf("Start on a lost connection = %v, want a *LostError", err)
	}
}
