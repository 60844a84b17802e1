package runbook

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/tune"
)

// Flags are the flags every example shares: where the far side is and
// where the journals go.
type Flags struct {
	// Netdev is this host's netdev.
	Netdev string
	// Peer is "user@host[:port]" for two-host mode over SSH.
	Peer string
	// PeerNetns runs the far side in a network namespace of this host
	// (two NICs, or a veth pair, in one machine).
	PeerNetns string
	// PeerNetdev is the far side's netdev ("" = Netdev).
	PeerNetdev string
	// PeerAgent is the rocekit-peer program on the peer.
	PeerAgent string
	// Identity and KnownHosts configure SSH (defaults: agent and
	// ~/.ssh keys, ~/.ssh/known_hosts).
	Identity, KnownHosts string
	// Journal is the local tune journal.
	Journal string
	// Timeout bounds the whole run.
	Timeout time.Duration
	// SSHTimeout bounds the SSH connection, its handshake and the opening
	// of each command's session (0: host.DefaultSSHDialTimeout). A far
	// host that stops answering mid-run is given up by keepalives within
	// about 12 s.
	SSHTimeout time.Duration
	// Log, when set, is told what Open restored from an earlier run's
	// journals (not a flag; the examples give their progress writer).
	Log io.Writer
}

// Register adds the flags to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Netdev, "netdev", "", "netdev to use on this host (required)")
	fs.StringVar(&f.Peer, "peer", "", "two-host mode: user@host[:port] of the far side, reached over SSH (needs rocekit-peer there)")
	fs.StringVar(&f.PeerNetns, "peer-netns", "", "run the far side in this network namespace of this host")
	fs.StringVar(&f.PeerNetdev, "peer-netdev", "", "the far side's netdev (default: -netdev)")
	fs.StringVar(&f.PeerAgent, "peer-agent", "rocekit-peer", "path of rocekit-peer on the peer")
	fs.StringVar(&f.Identity, "identity", "", "SSH private key file (default: agent and ~/.ssh/id_*)")
	fs.StringVar(&f.KnownHosts, "known-hosts", "", "known_hosts file (default ~/.ssh/known_hosts)")
	fs.StringVar(&f.Journal, "journal", "rocekit-journal.jsonl", "journal of the changes made here (tune.Recover restores it after a crash)")
	fs.DurationVar(&f.Timeout, "timeout", 30*time.Minute, "deadline of the whole run (0: none)")
	fs.DurationVar(&f.SSHTimeout, "ssh-timeout", host.DefaultSSHDialTimeout, "bound of the SSH connection and handshake, and of opening each command's session")
}

// Mode says how the two ends of a run are placed.
type Mode string

// The modes of a run.
const (
	Loopback Mode = "loopback" // both ends on this host, same netdev
	TwoNetns Mode = "netns"    // far end in a namespace of this host
	TwoHosts Mode = "two-host" // far end over SSH
)

// Sides are the two ends of a run. In Loopback, Far is Near.
type Sides struct {
	Mode       Mode
	Near, Far  Side
	NearNetdev string
	FarNetdev  string
}

// CheckPaths checks, before anything is changed or measured, that the
// run's outputs can be written: the folder out (an earlier run's outputs
// there are moved aside first, said on w), the store file and -journal.
func (f *Flags) CheckPaths(out, store string, w io.Writer) error {
	if err := MoveStaleOutputs(out, w); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	return CheckOutputs(OutputPath{"-out", out, true}, OutputPath{"-store", store, false}, OutputPath{"-journal", f.Journal, false})
}

// Parse parses the command line into flag.CommandLine and exits with
// status 2, naming the program, when it holds positional arguments.
func Parse(name string) {
	flag.Parse()
	if err := NoArgs(flag.CommandLine); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
}

// Open connects the far side as the flags say. An earlier run's journal
// with changes left over (a crash) is restored first.
func (f *Flags) Open(ctx context.Context) (*Sides, error) {
	if f.Netdev == "" {
		return nil, errors.New("-netdev is required")
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("needs root: the run sets MTUs, rxe links, IRQ affinity and sysctls and reads ethtool counters (run it with sudo)")
	}
	if f.Peer != "" && f.PeerNetns != "" {
		return nil, errors.New("-peer and -peer-netns exclude each other")
	}
	if f.Peer == "" && f.PeerNetns == "" && f.PeerNetdev != "" && f.PeerNetdev != f.Netdev {
		return nil, errors.New("-peer-netdev needs -peer or -peer-netns (loopback uses -netdev on both ends)")
	}
	if err := recoverStale(ctx, f.Journal, f.Log); err != nil {
		return nil, err
	}
	s := &Sides{Mode: Loopback, Near: &Local{Journal: f.Journal}, NearNetdev: f.Netdev, FarNetdev: f.PeerNetdev}
	if s.FarNetdev == "" {
		s.FarNetdev = f.Netdev
	}
	switch {
	case f.PeerNetns != "":
		j := f.Journal + ".netns-" + f.PeerNetns
		if err := recoverStale(ctx, j, f.Log); err != nil {
			return nil, err
		}
		s.Mode, s.Far = TwoNetns, &Local{Netns: f.PeerNetns, Journal: j}
	case f.Peer != "":
		cfg := host.SSHConfig{Agent: os.Getenv("SSH_AUTH_SOCK") != "", DialTimeout: f.SSHTimeout, SessionTimeout: f.SSHTimeout}
		addr := f.Peer
		if u, h, ok := strings.Cut(addr, "@"); ok {
			cfg.User, addr = u, h
		}
		if f.Identity != "" {
			cfg.KeyFiles = []string{f.Identity}
		}
		if f.KnownHosts != "" {
			cfg.KnownHostsFiles = []string{f.KnownHosts}
		}
		c, err := host.DialSSH(ctx, addr, cfg)
		if err != nil {
			return nil, err
		}
		p := &Peer{SSH: c, Agent: f.PeerAgent}
		// A run that crashed left the peer's journals: undo them first.
		if err := p.Restore(ctx); err != nil {
			c.Close()
			return nil, err
		}
		s.Mode, s.Far = TwoHosts, p
	default:
		s.Far = s.Near
		s.FarNetdev = f.Netdev
	}
	return s, nil
}

// recoverStale restores a journal an earlier run left with pending
// changes, and says on log (when not nil) what it undid.
func recoverStale(ctx context.Context, path string, log io.Writer) error {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	rep, err := tuneRecover(ctx, path)
	if log != nil && len(rep.Undone) > 0 {
		fmt.Fprintf(log, "restored what an earlier run left in %s:\n", path)
		for _, e := range rep.Undone {
			fmt.Fprintf(log, "  %s\n", e.UndoString())
		}
	}
	if err != nil {
		if errors.Is(err, tune.ErrLocked) {
			// Another run is using it right now: recovering it would undo
			// that run's changes under it.
			return fmt.Errorf("-journal: %w", err)
		}
		return fmt.Errorf("journal %s from an earlier run: %w", path, err)
	}
	return nil
}

// Restore undoes both sides' changes with a fresh one-minute context (the
// run's may be cancelled already: Ctrl-C) and closes them. This host comes
// first: it is always reachable, the far one may not be.
func (s *Sides) Restore() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := []error{s.Near.Restore(ctx), s.Near.Close()}
	if s.Far != s.Near {
		errs = append(errs, s.Far.Restore(ctx), s.Far.Close())
	}
	return errors.Join(errs...)
}

// ErrInterrupted is the cause of a run's context cancelled by SIGINT
// (Ctrl-C) or SIGTERM: processes killed for it report it, not "signal KILL".
var ErrInterrupted = errors.New("interrupted")

// Context returns the run's context: cancelled by SIGINT or SIGTERM (cause
// ErrInterrupted, naming the signal), or when timeout passes (0: no
// deadline), so that deferred restores run. A second signal while they run
// exits at once with status 130, after saying on standard error that
// changes may be left and how to undo them.
func Context(timeout time.Duration) (context.Context, context.CancelFunc) {
	return contextOn(timeout, os.Stderr, func() { os.Exit(130) })
}

func contextOn(timeout time.Duration, w io.Writer, exit func()) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(w, "\n%v: stopping and restoring what this run changed; press Ctrl-C again to exit at once without restoring\n", sig)
			cancel(fmt.Errorf("%w by %v", ErrInterrupted, sig))
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(w, "\nexiting without restoring: changes made so far may be left on this host and the peer.\n"+
				"Undo them by running the same example again (it restores its -journal before it starts),\n"+
				"or by hand: rocekit-peer restore on the peer (its journals are in "+DefaultPeerJournalDir+").")
			exit()
		case <-done:
		}
	}()
	stop := func() {
		signal.Stop(sigs)
		select {
		case <-done:
		default:
			close(done)
		}
		cancel(context.Canceled)
	}
	if timeout <= 0 {
		return ctx, stop
	}
	tctx, tcancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("the run's -timeout of %s passed", timeout))
	return tctx, func() { tcancel(); stop() }
}

// PrepareRXE prepares rxe on both ends (once in loopback) with the same
// link name and MTU, announcing each on prog (nil: silent). rdma device
// names are global to a kernel, so a far end in a namespace here gets
// name+"p".
func (s *Sides) PrepareRXE(ctx context.Context, name string, mtu int, prog *Progress) (far, near RXEInfo, err error) {
	farName := name
	if s.Mode == TwoNetns {
		farName = name + "p"
	}
	prog.step("prepare rxe on %s (%s)", s.Far.Name(), s.FarNetdev)
	if far, err = s.Far.PrepareRXE(ctx, RXEConfig{Netdev: s.FarNetdev, Name: farName, MTU: mtu}); err != nil {
		return far, near, fmt.Errorf("%s: %w", s.Far.Name(), err)
	}
	if s.Mode == Loopback {
		return far, far, nil
	}
	prog.step("prepare rxe on %s (%s)", s.Near.Name(), s.NearNetdev)
	if near, err = s.Near.PrepareRXE(ctx, RXEConfig{Netdev: s.NearNetdev, Name: name, MTU: mtu}); err != nil {
		return far, near, fmt.Errorf("%s: %w", s.Near.Name(), err)
	}
	return far, near, nil
}

// SetMTU sets the MTU on both ends (once in loopback).
func (s *Sides) SetMTU(ctx context.Context, mtu int) error {
	if err := s.Far.SetMTU(ctx, s.FarNetdev, mtu); err != nil {
		return fmt.Errorf("%s: %w", s.Far.Name(), err)
	}
	if s.Mode == Loopback {
		return nil
	}
	if err := s.Near.SetMTU(ctx, s.NearNetdev, mtu); err != nil {
		return fmt.Errorf("%s: %w", s.Near.Name(), err)
	}
	return nil
}

// Main runs an example's run function under Context(timeout) and exits 1
// with "name: error" on standard error when it fails. run must restore
// what it changed before it returns (the deferred Sides.Restore).
func Main(name string, timeout time.Duration, run func(ctx context.Context) error) {
	ctx, cancel := Context(timeout)
	err := run(ctx)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
