package runbook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/tune"
)

// Peer is a side on another host. Its programs run over SSH, and it is
// read and changed by the rocekit-peer agent there (cmd/rocekit-peer, the
// same Local code, one call per command), which journals every change in
// JournalDir on that host. Restore asks the agent to undo them; after a
// crash on either host, "rocekit-peer restore" there does the same.
type Peer struct {
	SSH *host.SSH
	// Agent is the rocekit-peer program on the peer ("rocekit-peer": found
	// in the remote PATH).
	Agent string
	// JournalDir holds the peer's journals ("/var/tmp/rocekit-peer").
	JournalDir string
	// Netns is a network namespace on the peer; "" is the login's.
	Netns string
}

// DefaultPeerJournalDir is where the agent keeps journals by default.
const DefaultPeerJournalDir = "/var/tmp/rocekit-peer"

// PeerError is an agent call that failed on the peer.
type PeerError struct {
	Op  string
	Msg string // the agent's error message
	Err error  // the SSH or process error
}

// Error names the operation and the agent's message.
func (e *PeerError) Error() string {
	if e.Msg != "" {
		return fmt.Sprintf("runbook: peer %s: %s", e.Op, e.Msg)
	}
	return fmt.Sprintf("runbook: peer %s: %v", e.Op, e.Err)
}

// Unwrap returns the SSH or process error.
func (e *PeerError) Unwrap() error { return e.Err }

// Name returns the SSH address.
func (p *Peer) Name() string { return p.SSH.String() }

// Runner returns the SSH connection.
func (p *Peer) Runner() host.Runner {
	if p.Netns != "" {
		return peerNetns{p.SSH, p.Netns}
	}
	return p.SSH
}

// Close closes the SSH connection.
func (p *Peer) Close() error { return p.SSH.Close() }

// call runs "AGENT -journal-dir D -netns N OP ARG-JSON" and decodes the
// JSON it prints into out.
func (p *Peer) call(ctx context.Context, op string, arg, out any) error {
	a, err := json.Marshal(arg)
	if err != nil {
		return err
	}
	agent, dir := p.Agent, p.JournalDir
	if agent == "" {
		agent = "rocekit-peer"
	}
	if dir == "" {
		dir = DefaultPeerJournalDir
	}
	proc, err := host.Run(ctx, p.SSH, host.Cmd{Argv: []string{agent, "-journal-dir", dir, "-netns", p.Netns, op, string(a)}})
	if err != nil {
		var ee *host.ExitError
		if errors.As(err, &ee) && ee.Stderr != "" {
			return &PeerError{Op: op, Msg: strings.TrimSpace(lastLine(ee.Stderr)), Err: err}
		}
		return &PeerError{Op: op, Err: err}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(proc.Stdout().Bytes(), out); err != nil {
		return &PeerError{Op: op, Err: fmt.Errorf("agent reply: %w", err)}
	}
	return nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// PrepareRXE runs Local.PrepareRXE on the peer.
func (p *Peer) PrepareRXE(ctx context.Context, c RXEConfig) (RXEInfo, error) {
	var r RXEInfo
	return r, p.call(ctx, "prepare-rxe", c, &r)
}

// SetMTU runs Local.SetMTU on the peer.
func (p *Peer) SetMTU(ctx context.Context, netdev string, mtu int) error {
	return p.call(ctx, "set-mtu", mtuArg{netdev, mtu}, nil)
}

// Netdev runs Local.Netdev on the peer.
func (p *Peer) Netdev(ctx context.Context, netdev string) (NetdevInfo, error) {
	var r NetdevInfo
	return r, p.call(ctx, "netdev", netdev, &r)
}

// Counters runs Local.Counters on the peer.
func (p *Peer) Counters(ctx context.Context, netdev string) (Counters, error) {
	var r Counters
	return r, p.call(ctx, "counters", netdev, &r)
}

// SpreadIRQs runs Local.SpreadIRQs on the peer.
func (p *Peer) SpreadIRQs(ctx context.Context, netdev string) (Spread, error) {
	var r Spread
	return r, p.call(ctx, "spread-irqs", netdev, &r)
}

// SetGovernor runs Local.SetGovernor on the peer.
func (p *Peer) SetGovernor(ctx context.Context, governor string) (GovernorResult, error) {
	var r GovernorResult
	return r, p.call(ctx, "set-governor", governor, &r)
}

// Restore undoes every journal in the peer's JournalDir, newest first.
func (p *Peer) Restore(ctx context.Context) error {
	return p.call(ctx, "restore", "if-any", nil)
}

// SetSysctl runs Local.SetSysctl on the peer.
func (p *Peer) SetSysctl(ctx context.Context, key, value string) error {
	return p.call(ctx, "set-sysctl", sysctlArg{key, value}, nil)
}

type sysctlArg struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type mtuArg struct {
	Netdev string `json:"netdev"`
	MTU    int    `json:"mtu"`
}

// peerNetns runs commands in a namespace of the peer with "ip netns exec".
type peerNetns struct {
	ssh   *host.SSH
	netns string
}

// Start runs c under "ip netns exec" on the peer.
func (n peerNetns) Start(ctx context.Context, c host.Cmd) (*host.Process, error) {
	c.Argv = append([]string{"ip", "netns", "exec", n.netns}, c.Argv...)
	return n.ssh.Start(ctx, c)
}

// TCPSockets reads the namespace's /proc/net/tcp and tcp6.
func (n peerNetns) TCPSockets(ctx context.Context) ([]host.TCPSocket, error) {
	out, err := output(ctx, n, "cat", "/proc/net/tcp", "/proc/net/tcp6")
	if err != nil {
		return nil, err
	}
	return host.ParseTCPTable(bytes.NewReader(out))
}

// String names the peer and the namespace.
func (n peerNetns) String() string { return n.ssh.String() + " netns " + n.netns }

// ServePeer is the agent's side of Peer: it runs one operation on a Local
// side journaled in a new file of journalDir and writes the JSON result to
// w. cmd/rocekit-peer is a thin main around it.
func ServePeer(ctx context.Context, journalDir, netns, op, arg string, w io.Writer) error {
	if op == "restore" {
		// "if-any" (what Peer.Restore sends): a folder that does not
		// exist held no journal. Without it, as typed by a person, a
		// missing folder is an error: a mistyped -journal-dir.
		return RestoreDir(ctx, journalDir, arg == `"if-any"`)
	}
	if err := os.MkdirAll(journalDir, 0o700); err != nil {
		return err
	}
	l := &Local{Netns: netns, Journal: filepath.Join(journalDir, fmt.Sprintf("%020d-%s.jsonl", time.Now().UnixNano(), op))}
	// The journal stays for Restore; the session only closes its file.
	defer l.Close()
	var (
		res any
		err error
	)
	switch op {
	case "prepare-rxe":
		var c RXEConfig
		if err = json.Unmarshal([]byte(arg), &c); err == nil {
			res, err = l.PrepareRXE(ctx, c)
		}
	case "set-mtu":
		var m mtuArg
		if err = json.Unmarshal([]byte(arg), &m); err == nil {
			err = l.SetMTU(ctx, m.Netdev, m.MTU)
			res = struct{}{}
		}
	case "host":
		res, err = l.Host(ctx)
	case "set-sysctl":
		var a sysctlArg
		if err = json.Unmarshal([]byte(arg), &a); err == nil {
			err = l.SetSysctl(ctx, a.Key, a.Value)
			res = struct{}{}
		}
	case "port-counters":
		var dev string
		if err = json.Unmarshal([]byte(arg), &dev); err == nil {
			res, err = l.PortCounters(ctx, dev)
		}
	case "netdev", "counters", "spread-irqs", "set-governor":
		var s string
		if err = json.Unmarshal([]byte(arg), &s); err != nil {
			break
		}
		switch op {
		case "netdev":
			res, err = l.Netdev(ctx, s)
		case "counters":
			res, err = l.Counters(ctx, s)
		case "spread-irqs":
			res, err = l.SpreadIRQs(ctx, s)
		case "set-governor":
			res, err = l.SetGovernor(ctx, s)
		}
	default:
		return fmt.Errorf("unknown operation %q", op)
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(res)
}

// RestoreDir recovers every journal in dir, newest first (tune.Recover),
// and removes those it restored completely. A folder it cannot read is an
// error; a missing one is an error unless missingOK (a host where nothing
// was ever journaled), so that a mistyped folder is not taken for "nothing
// to restore".
func RestoreDir(ctx context.Context, dir string, missingOK bool) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) && missingOK {
		return nil
	}
	if err != nil {
		return fmt.Errorf("journal folder: %w (nothing was restored; check -journal-dir, and run as the user that made the changes, normally root)", err)
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(names)
	var errs []error
	for _, name := range slices.Backward(names) {
		if _, err := tune.Recover(ctx, name); err != nil {
			errs = append(errs, err)
			continue
		}
		// Recover removes a journal without changes itself.
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
