package runbook

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
)

// PeerConfig says how DialPeer reaches the far host and its agent.
type PeerConfig struct {
	// Target is "[user@]host[:port]".
	Target string
	// Identity is a private key file ("": the SSH agent when
	// SSH_AUTH_SOCK is set, and ~/.ssh/id_*).
	Identity string
	// KnownHosts is a known_hosts file ("": ~/.ssh/known_hosts).
	KnownHosts string
	// Timeout bounds the connection, its handshake and the opening of each
	// command's session (0: host.DefaultSSHDialTimeout). A far host that
	// stops answering mid-run is given up by keepalives within about 12 s.
	Timeout time.Duration
	// Agent, JournalDir and Netns are the Peer's fields of the same names.
	Agent, JournalDir, Netns string
	// CallTimeout and MaxReplyBytes bound each agent call and its reply,
	// as the Peer's fields of the same names (0: their defaults).
	CallTimeout   time.Duration
	MaxReplyBytes int
	// AgentPerCall starts the agent afresh for every call (protocol 6's
	// way) instead of keeping one for all (Peer.KeepAgent).
	AgentPerCall bool
}

// DialPeer connects to the far host over SSH and returns it as a Peer. It
// changes nothing: call Restore on it first to undo what a run that
// crashed left there.
//
// Similar to: ssh -i IDENTITY -o UserKnownHostsFile=KNOWN_HOSTS user@host
func DialPeer(ctx context.Context, c PeerConfig) (*Peer, error) {
	if c.Netns != "" {
		if err := host.ValidNetnsName(c.Netns); err != nil {
			return nil, err
		}
	}
	cfg := host.SSHConfig{Agent: os.Getenv("SSH_AUTH_SOCK") != "", DialTimeout: c.Timeout, SessionTimeout: c.Timeout}
	addr := c.Target
	if u, h, ok := strings.Cut(addr, "@"); ok {
		cfg.User, addr = u, h
	}
	if c.Identity != "" {
		cfg.KeyFiles = []string{c.Identity}
	}
	if c.KnownHosts != "" {
		cfg.KnownHostsFiles = []string{c.KnownHosts}
	}
	ssh, err := host.DialSSH(ctx, addr, cfg)
	if err != nil {
		return nil, err
	}
	return &Peer{SSH: ssh, Agent: c.Agent, JournalDir: c.JournalDir, Netns: c.Netns, CallTimeout: c.CallTimeout, MaxReplyBytes: c.MaxReplyBytes, KeepAgent: !c.AgentPerCall}, nil
}
