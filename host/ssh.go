package host

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHConfig says how to reach and trust an SSH server. The zero value
// checks host keys against ~/.ssh/known_hosts and authenticates as the
// current user with the agent at $SSH_AUTH_SOCK (if set) and the default
// keys ~/.ssh/id_ed25519, id_ecdsa and id_rsa (those that exist).
type SSHConfig struct {
	// User is the remote user; empty means the current user.
	User string

	// KnownHostsFiles are the known_hosts files that host keys are checked
	// against; empty means ~/.ssh/known_hosts. A host that is missing or
	// has another key fails DialSSH with a *HostKeyError.
	KnownHostsFiles []string

	// HostKeyCallback, when set, replaces the known_hosts check (for
	// example ssh.FixedHostKey). Skipping the check takes an explicit
	// ssh.InsecureIgnoreHostKey().
	HostKeyCallback ssh.HostKeyCallback

	// Signers are private keys to authenticate with.
	Signers []ssh.Signer

	// KeyFiles are unencrypted private key files (OpenSSH, PEM) to
	// authenticate with; for encrypted keys, use the agent.
	KeyFiles []string

	// Agent authenticates with the keys of the agent at AgentSocket, or at
	// $SSH_AUTH_SOCK when that is empty.
	Agent       bool
	AgentSocket string

	// DialTimeout bounds the TCP connection and the SSH handshake
	// together, whatever ctx allows, so that a blackholed address or a
	// port that accepts and never speaks fails in seconds, not after the
	// kernel's TCP timeout or the run's deadline. 0 means 20 s.
	DialTimeout time.Duration

	// KeepaliveInterval is how often an established connection is probed
	// (an OpenSSH keepalive request); 0 means 3 s, negative turns the
	// probes off. A probe without an answer within KeepaliveMissed
	// intervals (0 means 3) closes the connection, which ends every
	// command on it with a *LostError: a host that vanished is noticed
	// within about (KeepaliveMissed+1) intervals.
	KeepaliveInterval time.Duration
	KeepaliveMissed   int

	// SessionTimeout bounds opening the session of each command; 0 means
	// 20 s.
	SessionTimeout time.Duration

	// MaxOutputBytes is Cmd.MaxOutputBytes for the commands that set none,
	// so that what crosses the connection is kept within a bound (the
	// rest counted, Output.Dropped); 0 means DefaultSSHMaxOutputBytes,
	// negative keeps everything.
	MaxOutputBytes int
}

// Defaults of SSHConfig's bounds.
const (
	DefaultSSHDialTimeout       = 20 * time.Second
	DefaultSSHKeepaliveInterval = 3 * time.Second
	DefaultSSHKeepaliveMissed   = 3
	DefaultSSHSessionTimeout    = 20 * time.Second
	DefaultSSHMaxOutputBytes    = 64 << 20
)

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// SSH runs commands on another host over one SSH connection, each in a
// session of its own (OpenSSH allows 10 at once by default: MaxSessions).
// The remote login shell must be a POSIX shell (sh, dash, bash, ksh, zsh).
//
// Every argument is quoted (Quote), so no input can inject shell. The
// command runs in its own process group, whose ID (the command's PID) is
// reported first on a side channel: a small /bin/sh wrapper reports $$,
// calls setsid(1) unless sshd already made it a group leader, and execs the
// command in place. When the context given to Start ends, the remote group
// is killed with "kill -s KILL -- -PGID" over a second session, then the
// session is closed. A missing program is detected by the wrapper
// (command -v) and fails Start with exec.ErrNotFound.
//
// Unlike Local, the remote group is not swept when the command exits by
// itself: a child it leaves behind holding its output keeps the session,
// and so Wait, open until it exits or the context ends.
//
// Similar to: ssh -o StrictHostKeyChecking=yes USER@HOST 'PROG ARGS'
type SSH struct {
	addr           string
	user           string
	client         *ssh.Client
	agentConn      net.Conn
	sessionTimeout time.Duration
	maxOutput      int // Cmd.MaxOutputBytes when the Cmd sets none; <= 0: all

	closed   chan struct{} // closed by Close: stops the keepalives
	closeMu  sync.Mutex
	isClosed bool
	lostMu   sync.Mutex
	lost     error // why the keepalives gave the connection up

	sessions atomic.Int64 // opened so far (Sessions)
}

// Sessions is the number of sessions opened on the connection so far:
// one per command, signal and remote readiness wait. Each costs the far
// host a fork of sshd and a shell, which is what a pair over SSH mostly
// spends (internal/overhead's BenchmarkPairOverhead reports it per pair).
func (s *SSH) Sessions() int64 { return s.sessions.Load() }

// DialSSH connects to the SSH server at addr ("host" or "host:port"; port
// 22 by default), verifies its host key and authenticates. ctx bounds the
// connection and handshake only, and so does cfg.DialTimeout. A rejected
// host key gives a *HostKeyError (errors.Is(err, ErrHostKey)). Once
// connected, keepalives watch the connection (cfg.KeepaliveInterval).
//
// Similar to: ssh -o BatchMode=yes USER@HOST
func DialSSH(ctx context.Context, addr string, cfg SSHConfig) (*SSH, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "22")
	}
	userName := cfg.User
	if userName == "" {
		u, err := user.Current()
		if err != nil {
			return nil, fmt.Errorf("host: ssh %s: no user given and %w", addr, err)
		}
		userName = u.Username
	}
	auth, agentConn, err := cfg.authMethod()
	if err != nil {
		return nil, fmt.Errorf("host: ssh %s: %w", addr, err)
	}
	closeAgent := func() {
		if agentConn != nil {
			agentConn.Close()
		}
	}
	check, algos, err := cfg.hostKeyCheck(addr)
	if err != nil {
		closeAgent()
		return nil, fmt.Errorf("host: ssh %s: %w", addr, err)
	}
	var (
		mu         sync.Mutex // the callback runs on the handshake's goroutine
		hostKeyErr error
	)
	conf := &ssh.ClientConfig{
		User:              userName,
		Auth:              []ssh.AuthMethod{auth},
		HostKeyAlgorithms: algos,
		HostKeyCallback: func(hostname string, remote net.Addr, key ssh.PublicKey) error {
			if err := check(hostname, remote, key); err != nil {
				mu.Lock()
				defer mu.Unlock()
				hostKeyErr = newHostKeyError(addr, key, err)
				return hostKeyErr
			}
			return nil
		},
	}
	dialTimeout := orDefault(cfg.DialTimeout, DefaultSSHDialTimeout)
	dctx, cancel := context.WithTimeoutCause(ctx, dialTimeout,
		fmt.Errorf("no SSH answer within %s (DialTimeout): the host is down, a firewall drops the packets, or the port is not an SSH server", dialTimeout))
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		closeAgent()
		if dctx.Err() != nil && ctx.Err() == nil {
			err = context.Cause(dctx)
		}
		return nil, fmt.Errorf("host: ssh %s: %w", addr, err)
	}
	stop := context.AfterFunc(dctx, func() { conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, conf)
	if !stop() {
		err = context.Cause(dctx)
		if c != nil {
			c.Close()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case hostKeyErr != nil:
		closeAgent()
		return nil, hostKeyErr
	case err != nil:
		closeAgent()
		return nil, fmt.Errorf("host: ssh %s: %w", addr, err)
	}
	sc := newSSH(ssh.NewClient(c, chans, reqs), addr, userName, orDefault(cfg.SessionTimeout, DefaultSSHSessionTimeout), cfg.MaxOutputBytes)
	sc.agentConn = agentConn
	if iv := orDefault(cfg.KeepaliveInterval, DefaultSSHKeepaliveInterval); iv > 0 {
		go sc.keepalive(iv, orDefault(cfg.KeepaliveMissed, DefaultSSHKeepaliveMissed))
	}
	return sc, nil
}

func newSSH(client *ssh.Client, addr, user string, sessionTimeout time.Duration, maxOutput int) *SSH {
	return &SSH{addr: addr, user: user, client: client, sessionTimeout: sessionTimeout,
		maxOutput: orDefault(maxOutput, DefaultSSHMaxOutputBytes), closed: make(chan struct{})}
}

// NewSSH wraps a client connected by the caller (through a jump host, say).
// Close closes it.
func NewSSH(client *ssh.Client) *SSH {
	return newSSH(client, client.RemoteAddr().String(), client.User(), DefaultSSHSessionTimeout, 0)
}

// String returns "ssh USER@HOST:PORT".
func (s *SSH) String() string { return "ssh " + s.user + "@" + s.addr }

// Close closes the connection, which ends every session still running.
func (s *SSH) Close() error {
	s.closeMu.Lock()
	if !s.isClosed {
		s.isClosed = true
		close(s.closed)
	}
	s.closeMu.Unlock()
	err := s.client.Close()
	if s.agentConn != nil {
		s.agentConn.Close()
	}
	return err
}

// TCPSockets lists the TCP sockets of the remote host's network namespace.
//
// Similar to: ssh HOST cat /proc/net/tcp /proc/net/tcp6
func (s *SSH) TCPSockets(ctx context.Context) ([]TCPSocket, error) {
	return s.tcpTable(ctx, 0)
}

// tcpTable reads /proc/net/tcp{,6} remotely, of process pid when pid > 0.
func (s *SSH) tcpTable(ctx context.Context, pid int) ([]TCPSocket, error) {
	p, err := Run(ctx, s, Cmd{Argv: tcpTableCommand(pid)})
	if err != nil {
		return nil, err
	}
	return ParseTCPTable(strings.NewReader(p.Stdout().String()))
}

func newHostKeyError(addr string, key ssh.PublicKey, err error) *HostKeyError {
	var keyErr *knownhosts.KeyError
	var revoked *knownhosts.RevokedError
	known := (errors.As(err, &keyErr) && len(keyErr.Want) > 0) || errors.As(err, &revoked)
	return &HostKeyError{
		Addr:  addr,
		Key:   strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))),
		Known: known,
		Err:   err,
	}
}

// hostKeyCheck returns the host key callback and, from known_hosts, the
// host key algorithms to ask for: the types of the keys known for addr, so
// that a server offering several keys shows the one that is known.
func (cfg SSHConfig) hostKeyCheck(addr string) (ssh.HostKeyCallback, []string, error) {
	if cfg.HostKeyCallback != nil {
		return cfg.HostKeyCallback, nil, nil
	}
	files := cfg.KnownHostsFiles
	if len(files) == 0 {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, nil, err
		}
		files = []string{filepath.Join(home, ".ssh", "known_hosts")}
	}
	check, err := knownhosts.New(files...)
	if err != nil {
		return nil, nil, fmt.Errorf("known_hosts: %w", err)
	}
	return check, knownAlgorithms(check, addr), nil
}

// knownAlgorithms returns the host key algorithms in the order to ask for
// them: first those of the keys known for addr, then the others that the
// package supports (as OpenSSH orders them), so that a server with several
// host keys shows the known one, and one whose key changed type is still
// caught as a mismatch. The known keys are found by asking check about a key
// that cannot be known: its KeyError lists them.
func knownAlgorithms(check ssh.HostKeyCallback, addr string) []string {
	probe, err := ssh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))
	if err != nil {
		return nil
	}
	host, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)
	var keyErr *knownhosts.KeyError
	if !errors.As(check(addr, &net.TCPAddr{IP: net.ParseIP(host), Port: port}, probe), &keyErr) || len(keyErr.Want) == 0 {
		return nil // nothing known: keep the package's defaults
	}
	var algos []string
	seen := map[string]bool{}
	for _, k := range keyErr.Want {
		names := []string{k.Key.Type()}
		if k.Key.Type() == ssh.KeyAlgoRSA {
			names = []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256}
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				algos = append(algos, n)
			}
		}
	}
	for _, n := range ssh.SupportedAlgorithms().HostKeys {
		if !seen[n] {
			algos = append(algos, n)
		}
	}
	return algos
}

// authMethod gathers every key into one public-key method (the client
// tries each method name once) and returns the agent connection to close.
func (cfg SSHConfig) authMethod() (ssh.AuthMethod, net.Conn, error) {
	signers := append([]ssh.Signer(nil), cfg.Signers...)
	keyFiles, agentSock := cfg.KeyFiles, cfg.AgentSocket
	useAgent := cfg.Agent
	if len(cfg.Signers) == 0 && len(cfg.KeyFiles) == 0 && !cfg.Agent {
		useAgent = os.Getenv("SSH_AUTH_SOCK") != ""
		if home, err := os.UserHomeDir(); err == nil {
			for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
				if f := filepath.Join(home, ".ssh", name); fileExists(f) {
					keyFiles = append(keyFiles, f)
				}
			}
		}
	}
	for _, f := range keyFiles {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		signer, err := ssh.ParsePrivateKey(pem)
		if err != nil {
			return nil, nil, fmt.Errorf("key %s: %w", f, err)
		}
		signers = append(signers, signer)
	}
	var agentConn net.Conn
	var agentClient agent.ExtendedAgent
	if useAgent {
		if agentSock == "" {
			agentSock = os.Getenv("SSH_AUTH_SOCK")
		}
		if agentSock == "" {
			return nil, nil, errors.New("agent requested but $SSH_AUTH_SOCK is not set and no AgentSocket was given: start ssh-agent, or give a key file (-identity FILE in the examples)")
		}
		conn, err := net.Dial("unix", agentSock)
		if err != nil {
			return nil, nil, fmt.Errorf("agent: %w", err)
		}
		agentConn, agentClient = conn, agent.NewClient(conn)
	}
	if len(signers) == 0 && agentClient == nil {
		return nil, nil, errors.New("no SSH key to log in with: none of ~/.ssh/id_ed25519, id_ecdsa, id_rsa exists and no agent is running ($SSH_AUTH_SOCK is not set); give a key file (-identity FILE in the examples; SSHConfig.KeyFiles) or start ssh-agent and ssh-add the key")
	}
	return ssh.PublicKeysCallback(func() ([]ssh.Signer, error) {
		all := signers
		if agentClient != nil {
			fromAgent, err := agentClient.Signers()
			if err != nil {
				return nil, err
			}
			all = append(append([]ssh.Signer(nil), signers...), fromAgent...)
		}
		return all, nil
	}), agentConn, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
