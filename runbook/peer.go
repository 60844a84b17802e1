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
	"sync"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/didyoumean"
	"github.com/rocekit/rocekit/internal/ownfile"
	"github.com/rocekit/rocekit/tune"
)

// Peer is a side on another host. Its programs run over SSH, and it is
// read and changed by the rocekit-peer agent there (cmd/rocekit-peer, the
// same Local code, one call per command), which journals every change in
// JournalDir on that host. Restore asks the agent to undo them; after a
// crash on either host, "rocekit-peer restore" there does the same.
type Peer struct {
	SSH *host.SSH
	// Via, when set, runs the agent's calls and the programs instead of
	// SSH: a host.Srun on a node of a Slurm allocation, where there is no
	// SSH between the nodes. SSH is then unused and may be nil.
	Via host.Runner
	// Agent is the rocekit-peer program on the peer ("rocekit-peer": found
	// in the remote PATH).
	Agent string
	// JournalDir holds the peer's journals ("/var/tmp/rocekit-peer").
	JournalDir string
	// Netns is a network namespace on the peer; "" is the login's.
	Netns string
	// CallTimeout is the deadline of every agent call (0: 30 s, and 3 min
	// for prepare-rxe and restore); the agent gets it as -timeout too.
	CallTimeout time.Duration
	// MaxReplyBytes bounds each reply of the agent (0: 64 MiB).
	MaxReplyBytes int
	// KeepAgent runs one agent for every call ("rocekit-peer serve", a
	// session over one SSH session: protocol 7) instead of one process
	// per call; a call then costs a line each way. The agent's programs
	// (exec) still start one each. Close ends the session; one that ends
	// on its own (a lost link) is started again at the next call.
	// DialPeer sets it unless PeerConfig.AgentPerCall.
	KeepAgent bool

	noSince bool // the agent does not know restore-since

	sessMu sync.Mutex
	sess   *peerSession
}

// DefaultPeerJournalDir is where the agent keeps journals by default.
const DefaultPeerJournalDir = "/var/tmp/rocekit-peer"

// PeerError is an agent call that failed on the peer. errors.Is matches
// it to the sentinel error the far error matched there (Kind), so
// errors.Is(err, rxe.ErrModuleMissing) reads the same for both ends.
type PeerError struct {
	Op   string
	Kind string // the far error's class ("rxe_module_missing"); "" when unknown
	Msg  string // the agent's error message
	Err  error  // the SSH or process error
}

// Is matches the sentinel of Kind, and what that sentinel matches
// (fs.ErrNotExist for rxe.ErrModuleMissing), as the far error did.
func (e *PeerError) Is(target error) bool {
	s := sentinelOf(e.Kind)
	return s != nil && (s == target || errors.Is(s, target))
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

// Name names the connection: the SSH address, or Via.
func (p *Peer) Name() string { return p.runner().String() }

// runner is the connection: Via, or else SSH.
func (p *Peer) runner() host.Runner {
	if p.Via != nil {
		return p.Via
	}
	return p.SSH
}

// Runner runs the peer's programs over the connection (Via, or SSH)
// through the agent, which journals each (rocekit-peer exec), so that
// Restore, or the next run's, ends one a lost link or a killed driver
// left behind; in Netns when set.
func (p *Peer) Runner() host.Runner { return peerRunner{p} }

// Close ends the agent's session, if any (the agent ends the calls still
// under way, and is killed if it has not exited within 10 s), and closes
// the SSH connection, if any.
func (p *Peer) Close() error {
	p.sessMu.Lock()
	if p.sess != nil {
		p.sess.close(10 * time.Second)
		p.sess = nil
	}
	p.sessMu.Unlock()
	if p.SSH == nil {
		return nil
	}
	return p.SSH.Close()
}

// call runs "AGENT -journal-dir D -netns N OP ARG-JSON" and decodes the
// JSON it prints into out.
func (p *Peer) call(ctx context.Context, op string, arg, out any) error {
	return p.callSeeing(ctx, op, arg, out, nil)
}

// callSeeing is call with each line of the agent's output seen as it
// arrives (its progress lines, then its reply), when see is set.
func (p *Peer) callSeeing(ctx context.Context, op string, arg, out any, see func(line string)) error {
	if peerOpNamed(op) == nil {
		return &PeerError{Op: op, Err: errors.New("not an operation of the peer table (peer_ops.go)")}
	}
	a, err := json.Marshal(arg)
	if err != nil {
		return err
	}
	if p.KeepAgent {
		return p.sessionCall(ctx, op, a, out, see)
	}
	agent, dir := p.agentAndDir()
	timeout, max := p.callTimeout(op), p.maxReply()
	tooLarge := &PeerReplyTooLargeError{Op: op, Max: max}
	cctx, cancel := context.WithTimeoutCause(ctx, timeout, &PeerTimeoutError{Op: op, Timeout: timeout})
	defer cancel()
	rctx, stop := context.WithCancelCause(cctx)
	defer stop(nil)
	var mu sync.Mutex
	n := 0
	count := func(line string) { // every byte that crosses, kept or not
		mu.Lock()
		defer mu.Unlock()
		if n += len(line) + 1; n > max {
			stop(tooLarge)
		}
	}
	seeOut := count
	if see != nil {
		seeOut = func(line string) { count(line); see(line) }
	}
	proc, err := host.Run(rctx, p.runner(), host.Cmd{Argv: []string{agent, "-protocol", fmt.Sprint(PeerProtocol), "-journal-dir", dir, "-netns", p.Netns,
		"-timeout", timeout.String(), op, string(a)}, MaxOutputBytes: max, OnStdout: seeOut, OnStderr: count})
	if cause := context.Cause(rctx); rctx.Err() != nil && ctx.Err() == nil {
		return &PeerError{Op: op, Err: cause}
	}
	if proc != nil {
		if lines, _ := proc.Stdout().Dropped(); lines > 0 {
			return &PeerError{Op: op, Err: tooLarge}
		}
	}
	var ee *host.ExitError
	if proc == nil || (err != nil && !errors.As(err, &ee)) {
		return &PeerError{Op: op, Err: err}
	}
	rerr := readReply(op, proc.Stdout().Bytes(), proc.Stderr().Bytes(), out)
	var pe *PeerError
	if errors.As(rerr, &pe) && pe.Err == nil {
		pe.Err = err // the exit status, when the agent failed
	}
	return rerr
}

// agentAndDir are the agent and its journal folder, defaults filled in.
func (p *Peer) agentAndDir() (agent, dir string) {
	agent, dir = p.Agent, p.JournalDir
	if agent == "" {
		agent = "rocekit-peer"
	}
	if dir == "" {
		dir = DefaultPeerJournalDir
	}
	return agent, dir
}

// PrepareRXE runs Local.PrepareRXE on the peer.
func (p *Peer) PrepareRXE(ctx context.Context, c RXEConfig) (RXE, error) {
	return callAs[RXE](ctx, p, "prepare-rxe", c)
}

// SetMTU runs Local.SetMTU on the peer.
func (p *Peer) SetMTU(ctx context.Context, netdev string, mtu int) error {
	return p.call(ctx, "set-mtu", mtuArg{netdev, mtu}, nil)
}

// Netdev runs Local.Netdev on the peer.
func (p *Peer) Netdev(ctx context.Context, netdev string) (Netdev, error) {
	return callAs[Netdev](ctx, p, "netdev", netdev)
}

// Counters runs Local.Counters on the peer.
func (p *Peer) Counters(ctx context.Context, netdev string) (Counters, error) {
	return callAs[Counters](ctx, p, "counters", netdev)
}

// SpreadIRQs runs Local.SpreadIRQs on the peer.
func (p *Peer) SpreadIRQs(ctx context.Context, netdev string) (Spread, error) {
	return callAs[Spread](ctx, p, "spread-irqs", netdev)
}

// SetGovernor runs Local.SetGovernor on the peer.
func (p *Peer) SetGovernor(ctx context.Context, governor string) (GovernorResult, error) {
	return callAs[GovernorResult](ctx, p, "set-governor", governor)
}

// PauseIRQBalance runs Local.PauseIRQBalance on the peer: journaled in
// its agent's folder, resumed by Restore.
func (p *Peer) PauseIRQBalance(ctx context.Context) ([]int, error) {
	pids, err := callAs[[]int](ctx, p, "pause-irqbalance", nil)
	return pids, noOperation(err)
}

// Verify reads back every change the peer's agent made and has not
// restored (VerifyDir on its journal folder): the drift check of
// two-host rounds.
func (p *Peer) Verify(ctx context.Context) ([]tune.Drift, error) {
	w, err := callAs[[]driftWire](ctx, p, "verify", nil)
	if err != nil {
		return nil, noOperation(err)
	}
	out := make([]tune.Drift, len(w))
	for i, d := range w {
		out[i] = tune.Drift{Entry: d.Entry, Got: d.Got}
		if d.Err != "" {
			out[i].Err = errors.New(d.Err)
		}
	}
	return out, nil
}

// noOperation makes an agent's "unknown operation" (an agent older than
// the operation) ErrPeerNoOperation.
func noOperation(err error) error {
	var pe *PeerError
	if errors.As(err, &pe) && pe.Kind == "tune_invalid_input" && strings.Contains(pe.Msg, "unknown operation") {
		return fmt.Errorf("%w: %v", ErrPeerNoOperation, err)
	}
	return err
}

// driftWire is a tune.Drift as it crosses SSH: its error as text.
type driftWire struct {
	Entry tune.Entry `json:"entry"`
	Got   tune.Value `json:"got"`
	Err   string     `json:"err,omitempty"`
}

func driftsWire(ds []tune.Drift) []driftWire {
	out := make([]driftWire, len(ds))
	for i, d := range ds {
		out[i] = driftWire{Entry: d.Entry, Got: d.Got}
		if d.Err != nil {
			out[i].Err = d.Err.Error()
		}
	}
	return out
}

// VerifyDir reads back the changes of every journal of dir, oldest first
// as one history (tune.VerifyJournals): what the agent's calls set that
// no longer holds. A folder that does not exist held no journal.
func VerifyDir(ctx context.Context, dir string) ([]tune.Drift, error) {
	if err := ownfile.CheckPrivateDir(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("journal folder: %w (nothing was read back)", err)
	}
	names, err := journalsIn(dir)
	if err != nil {
		return nil, err
	}
	return tune.VerifyJournals(ctx, names)
}

// journalsIn lists dir's journals, oldest (the least name) first.
func journalsIn(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("journal folder: %w", err)
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(names)
	return names, nil
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
	ssh   host.Runner
	netns string
}

// Start runs c under "ip netns exec" on the peer.
func (n peerNetns) Start(ctx context.Context, c host.Cmd) (*host.Process, error) {
	if err := host.ValidNetnsName(n.netns); err != nil {
		return nil, &host.StartError{Where: n.String(), Argv: c.Argv, Err: err}
	}
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
func (n peerNetns) String() string {
	if n.ssh == nil {
		return "ssh netns " + n.netns
	}
	return n.ssh.String() + " netns " + n.netns
}

// ServePeer is the agent's side of Peer: it runs one operation on a Local
// side journaled in a new file of journalDir and writes the reply to w, a
// JSON object with the protocol version and the result, or the error
// classified so that the near side can match it to its sentinel again.
// protocol is the version the caller speaks (-protocol); another than
// PeerProtocol is refused. cmd/rocekit-peer is a thin main around it.
func ServePeer(ctx context.Context, protocol int, journalDir, netns, op, arg string, w io.Writer) error {
	if err := checkProtocol(protocol); err != nil {
		return errors.Join(err, writeReply(w, peerReply{Error: faultOf(op, err)}))
	}
	ready := func() { _ = writeReply(w, peerReply{Ready: true}) } // a lost line only delays the caller
	res, err := servePeer(ctx, journalDir, netns, op, arg, ready)
	r := replyOf(op, res, err)
	if r.Error != nil && err == nil {
		err = errors.New(r.Error.Message) // the result did not marshal
	}
	return errors.Join(err, writeReply(w, r))
}

func servePeer(ctx context.Context, journalDir, netns, op, arg string, ready func()) (any, error) {
	if netns != "" {
		if err := host.ValidNetnsName(netns); err != nil {
			return nil, err
		}
	}
	o := peerOpNamed(op)
	if o == nil {
		var names []string
		for _, o := range peerOps {
			names = append(names, o.Name)
		}
		return nil, fmt.Errorf("%w: unknown operation %q%s (rocekit-peer -h lists them)", tune.ErrInvalidInput, op, didyoumean.Suffix(op, names))
	}
	s := peerServe{op: op, dir: journalDir, ready: ready}
	if o.folder {
		return o.serve(ctx, s, arg)
	}
	if err := ownfile.MkdirPrivate(journalDir); err != nil {
		return nil, fmt.Errorf("journal folder: %w", err)
	}
	s.l = &Local{Netns: netns, Journal: filepath.Join(journalDir, fmt.Sprintf("%020d-%s.jsonl", time.Now().UnixNano(), op))}
	// The journal stays for Restore; the session only closes its file.
	defer s.l.Close()
	return o.serve(ctx, s, arg)
}

// RestoreDir recovers every journal in dir, newest first (tune.Recover),
// and removes those it restored completely. A folder it cannot read is an
// error; a missing one is an error unless missingOK (a host where nothing
// was ever journaled), so that a mistyped folder is not taken for "nothing
// to restore".
//
// The folder must be the running user's own, not a link, and writable by
// no one else (ownfile.CheckPrivateDir); otherwise nothing in it is
// replayed and the error (matching fs.ErrPermission) names its owner and
// mode. Each journal is checked again by tune.Recover.
func RestoreDir(ctx context.Context, dir string, missingOK bool) error {
	if err := ownfile.CheckPrivateDir(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("journal folder: %w (nothing was restored)", err)
	}
	names, err := journalsIn(dir)
	if errors.Is(err, os.ErrNotExist) && missingOK {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w (nothing was restored; check -journal-dir, and run as the user that made the changes, normally root)", err)
	}
	return recoverNewestFirst(ctx, names)
}

// recoverNewestFirst recovers the journals named, newest (the greatest
// name) first, and removes those it restored completely.
func recoverNewestFirst(ctx context.Context, names []string) error {
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
