package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/runbook"
)

// ErrInvalidHostSpec is wrapped by the errors of ParseHostSpec (a
// *HostSpecError) and by OpenSides for a list with two local hosts.
var ErrInvalidHostSpec = errors.New("fleet: invalid host spec")

// TargetLocal is the Target of this host.
const TargetLocal = "local"

// SrunPrefix starts the Target of a node of the Slurm allocation,
// reached with srun: "srun:NODE".
const SrunPrefix = "srun:"

// HostSpec is one host of a fleet and how to reach it, as a command line
// names it (ParseHostSpec): its name in the matrix, its target and the
// netdevs to test there.
type HostSpec struct {
	Name string
	// Target is TargetLocal (this host), "user@addr[:port]" (over SSH,
	// rocekit-peer there) or SrunPrefix+NODE (srun, no SSH).
	Target  string
	Netdevs []string
}

// HostSpecError is a host spec that does not parse. It wraps
// ErrInvalidHostSpec.
type HostSpecError struct {
	Spec string // the spec as given
	Msg  string // what is wrong
}

// Error returns the spec, quoted, and what is wrong with it.
func (e *HostSpecError) Error() string { return fmt.Sprintf("%q: %s", e.Spec, e.Msg) }

// Unwrap returns ErrInvalidHostSpec.
func (e *HostSpecError) Unwrap() error { return ErrInvalidHostSpec }

// ParseHostSpec reads NAME=TARGET:NETDEV[+NETDEV...]: "a=local:eth0",
// "b=root@198.18.1.2:eth0+eth1", "n1=srun:n1:eth0". The target is what
// stands before the last colon, so an SSH port or an srun node keeps its
// own.
func ParseHostSpec(s string) (HostSpec, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return HostSpec{}, &HostSpecError{s, "want NAME=local:NETDEV or NAME=user@host:NETDEV[+NETDEV]"}
	}
	i := strings.LastIndex(rest, ":")
	if i <= 0 || i == len(rest)-1 {
		return HostSpec{}, &HostSpecError{s, "no :NETDEV after the target"}
	}
	target, nds := rest[:i], strings.Split(rest[i+1:], "+")
	for _, n := range nds {
		if n == "" || strings.ContainsAny(n, " /") {
			return HostSpec{}, &HostSpecError{s, fmt.Sprintf("bad netdev %q", n)}
		}
	}
	return HostSpec{Name: name, Target: target, Netdevs: nds}, nil
}

// SlurmHostSpecs makes every node of a Slurm host list (of the caller's
// allocation, SLURM_JOB_NODELIST, when list is empty) a host of its own
// name, reached with srun, tested on netdevs ("eth0+eth1"). r runs
// scontrol (host.SlurmNodes).
//
// Similar to: for n in $(scontrol show hostnames $SLURM_JOB_NODELIST); do -host $n=srun:$n:NETDEV; done
func SlurmHostSpecs(ctx context.Context, r host.Runner, list, netdevs string) ([]HostSpec, error) {
	nodes, err := host.SlurmNodes(ctx, r, list)
	if err != nil {
		return nil, err
	}
	var specs []HostSpec
	for _, n := range nodes {
		s, err := ParseHostSpec(n + "=" + SrunPrefix + n + ":" + netdevs)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}

// OpenOptions says how OpenSides reaches the hosts.
type OpenOptions struct {
	// Identity and KnownHosts configure SSH (defaults: agent and
	// ~/.ssh keys, ~/.ssh/known_hosts).
	Identity, KnownHosts string
	// Agent is the rocekit-peer program on the other hosts.
	Agent string
	// Timeout bounds the SSH dial and the opening of each session (0:
	// the default).
	Timeout time.Duration
	// SlurmJob is the job whose nodes srun runs on ("": $SLURM_JOB_ID).
	SlurmJob string
	// Journal is the journal of the local host's changes.
	Journal string
}

// OpenSides connects every host, up to DefaultPrepareLimit at once: a
// runbook.Local for TargetLocal (one host at most), a runbook.Peer
// through srun for SrunPrefix+NODE, over SSH otherwise; each Peer's
// leftover journals are restored first. The sides that opened are
// returned beside an error naming every host that did not (nil where it
// failed), for RestoreSides.
func OpenSides(ctx context.Context, specs []HostSpec, o OpenOptions) ([]runbook.Side, error) {
	names := make([]string, len(specs))
	locals := 0
	for i, h := range specs {
		names[i] = h.Name
		if h.Target == TargetLocal {
			if locals++; locals > 1 {
				return nil, fmt.Errorf("%w: only one host can be local", ErrInvalidHostSpec)
			}
		}
	}
	return Prepare(ctx, names, 0, func(ctx context.Context, i int) (runbook.Side, error) {
		h := specs[i]
		if h.Target == TargetLocal {
			return &runbook.Local{Journal: o.Journal}, nil
		}
		if node, ok := strings.CutPrefix(h.Target, SrunPrefix); ok {
			p := &runbook.Peer{Via: host.Srun{Node: node, JobID: o.SlurmJob}, Agent: o.Agent}
			if err := p.Restore(ctx); err != nil {
				return p, fmt.Errorf("restoring an earlier run's changes: %w", err)
			}
			return p, nil
		}
		p, err := runbook.DialPeer(ctx, runbook.PeerConfig{Target: h.Target, Identity: o.Identity, KnownHosts: o.KnownHosts,
			Timeout: o.Timeout, Agent: o.Agent})
		if err != nil {
			return nil, err
		}
		if err := p.Restore(ctx); err != nil {
			return p, fmt.Errorf("restoring an earlier run's changes: %w", err)
		}
		return p, nil
	})
}

// RestoreSides undoes every side's changes and closes it, with a fresh
// context of two minutes (the run's may be cancelled); nil sides are
// skipped.
func RestoreSides(sides []runbook.Side) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var errs []error
	for _, s := range sides {
		if s != nil {
			errs = append(errs, s.Restore(ctx), s.Close())
		}
	}
	return errors.Join(errs...)
}
