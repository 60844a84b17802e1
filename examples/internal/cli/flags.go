package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
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

// CheckPaths checks, before anything is changed or measured, that the
// run's outputs can be written: -store and -journal are two files; the
// folder out (an earlier run's outputs there are moved aside first, said
// on w; a folder of someone else's files is refused) gets OutMarker; the
// store file is a round store (report.Store.Check) and -journal a file of
// the running user's own, not a link.
func (f *Flags) CheckPaths(out, store string, w io.Writer) error {
	if store != "" && f.Journal != "" && samePath(store, f.Journal) {
		return fmt.Errorf("-store %s and -journal %s are one file: the store would append rounds to the journal; give each a file of its own", store, f.Journal)
	}
	if err := MoveStaleOutputs(out, w); err != nil {
		return fmt.Errorf("-out %s: %w", out, err)
	}
	if err := CheckOutputs(OutputPath{"-out", out, true}, OutputPath{"-store", store, false}, OutputPath{"-journal", f.Journal, false}); err != nil {
		return err
	}
	if err := report.OpenStore(store).Check(); err != nil {
		return fmt.Errorf("-store %s: %w", store, err)
	}
	if err := markOut(out); err != nil {
		return fmt.Errorf("-out %s: %w", out, err)
	}
	return nil
}

// OpenChecked is CheckPaths(out, store, log), then Open telling log what
// it restored: the start of a run that writes -out and -store.
func (f *Flags) OpenChecked(ctx context.Context, out, store string, log io.Writer) (*runbook.Sides, error) {
	if err := f.CheckPaths(out, store, log); err != nil {
		return nil, err
	}
	f.Log = log
	return f.Open(ctx)
}

// Open builds the run's sides as the flags say: this host, and the far
// end on it (loopback), in -peer-netns, or on -peer over SSH. What an
// earlier run that crashed left in their journals is restored first (said
// on f.Log).
func (f *Flags) Open(ctx context.Context) (*runbook.Sides, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if err := recoverStale(ctx, f.Journal, f.Log); err != nil {
		return nil, err
	}
	s := &runbook.Sides{Mode: runbook.Loopback, Near: &runbook.Local{Journal: f.Journal}, NearNetdev: f.Netdev, FarNetdev: f.PeerNetdev}
	if s.FarNetdev == "" {
		s.FarNetdev = f.Netdev
	}
	switch {
	case f.PeerNetns != "":
		j := f.Journal + ".netns-" + f.PeerNetns
		if err := recoverStale(ctx, j, f.Log); err != nil {
			return nil, err
		}
		s.Mode, s.Far = runbook.TwoNetns, &runbook.Local{Netns: f.PeerNetns, Journal: j}
	case f.Peer != "":
		p, err := f.dialPeer(ctx)
		if err != nil {
			return nil, err
		}
		s.Mode, s.Far = runbook.TwoHosts, p
	default:
		s.Far = s.Near
	}
	return s, nil
}

// check refuses flags that do not make a run, and a run without root.
func (f *Flags) check() error {
	if err := f.Validate(); err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return errors.New("needs root: the run sets MTUs, rxe links, IRQ affinity and sysctls and reads ethtool counters (run it with sudo)")
	}
	if f.PeerNetns != "" {
		if err := host.ValidNetnsName(f.PeerNetns); err != nil {
			return fmt.Errorf("-peer-netns: %w", err)
		}
	}
	return nil
}

// Validate checks the shared flags without touching the system, each
// refusal naming its flag (all of them at once): the first part of an
// example's validate step, which runs before Open.
func (f *Flags) Validate() error {
	var errs []error
	if f.Netdev == "" {
		errs = append(errs, Usage("-netdev is required"))
	} else {
		errs = append(errs, Netdev("-netdev", f.Netdev))
	}
	if f.PeerNetdev != "" {
		errs = append(errs, Netdev("-peer-netdev", f.PeerNetdev))
	}
	if f.Timeout < 0 {
		errs = append(errs, bad("-timeout", f.Timeout, "0 or more (0: no deadline)"))
	}
	errs = append(errs, Duration("-ssh-timeout", f.SSHTimeout))
	switch {
	case f.Peer != "" && f.PeerNetns != "":
		errs = append(errs, Usage("-peer and -peer-netns exclude each other"))
	case f.Peer == "" && f.PeerNetns == "" && f.PeerNetdev != "" && f.PeerNetdev != f.Netdev:
		errs = append(errs, Usage("-peer-netdev needs -peer or -peer-netns (loopback uses -netdev on both ends)"))
	}
	return errors.Join(errs...)
}

// dialPeer connects -peer and restores what a run that crashed left
// there.
func (f *Flags) dialPeer(ctx context.Context) (*runbook.Peer, error) {
	p, err := runbook.DialPeer(ctx, runbook.PeerConfig{Target: f.Peer, Identity: f.Identity, KnownHosts: f.KnownHosts,
		Timeout: f.SSHTimeout, Agent: f.PeerAgent})
	if err != nil {
		return nil, err
	}
	if err := p.Restore(ctx); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// recoverStale restores a journal an earlier run left with pending
// changes, and says on log (when not nil) what it undid.
func recoverStale(ctx context.Context, path string, log io.Writer) error {
	// Lstat: a link there is refused by Recover, not taken for no journal.
	if _, err := os.Lstat(path); err != nil {
		return nil
	}
	rep, err := tune.Recover(ctx, path)
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
