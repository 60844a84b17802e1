package topo

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/tune"
)

// ErrInvalidSpec is wrapped by NewPair's error for a spec it refuses
// before anything is made.
var ErrInvalidSpec = errors.New("topo: invalid spec")

// testNet is where a topology's addresses must be: 198.18.0.0/15, the
// benchmarking range (RFC 2544).
var testNet = netip.MustParsePrefix("198.18.0.0/15")

// PairSpec is a two-namespace topology.
type PairSpec struct {
	// Name prefixes everything made: namespaces NAME-a and NAME-b, veth
	// ends NAME-a0 and NAME-b0 (at most 12 bytes; required).
	Name string
	// Subnet holds both ends' addresses (.1 on A, .2 on B); it must lie in
	// 198.18.0.0/15. The zero value means 198.18.100.0/24.
	Subnet netip.Prefix
	// MTU of both ends; 0 leaves the kernel's 1500.
	MTU int
	// RXE adds an rxe link NAME-rxe on end A (the kernel needs rdma_rxe).
	// One end only: rdma_rxe sends RoCE from a UDP socket in the initial
	// namespace, so RDMA between two namespaces does not flow. Tried on
	// 6.12 in the lab: rxe links on both veth ends come up with their
	// GIDs and ib_send_bw connects over TCP, then the client fails with
	// "Failed status 5" and exit 17.
	RXE bool
}

// End is one side of a topology.
type End struct {
	Netns  string     // the namespace
	Netdev string     // the veth end in it
	Addr   netip.Addr // its address
}

// Runner runs commands in the end's namespace.
//
// Similar to: ip netns exec NETNS PROG
func (e End) Runner() host.Runner { return host.Netns{Name: e.Netns} }

// Pair is a topology NewPair made: its two ends and the rxe link on A,
// if asked for. Close removes it.
type Pair struct {
	A, B End
	// Subnet is the subnet of both addresses.
	Subnet netip.Prefix
	// RXE is the rxe link on A's netdev, or "".
	RXE string

	session *tune.Session
	closed  bool
}

// Journal returns the path of the journal the topology is recorded in:
// what tune.Recover takes after a crash.
func (p *Pair) Journal() string { return p.session.Path() }

// NewPair creates the namespaces, the veth pair with addresses (both ends
// and lo up) and, with spec.RXE, the rxe link, journaling each step in
// journalPath before it is made. If a step fails, what was made is
// removed before NewPair returns its error (an *tune.UndoError joined to
// it if that failed too). Needs root.
//
// Similar to: ip netns add NAME-a; ip netns add NAME-b; ip link add ...
// type veth peer ...; ip addr add ...; ip link set ... up; rdma link add ...
func NewPair(ctx context.Context, journalPath string, spec PairSpec) (*Pair, error) {
	p, err := plan(spec)
	if err != nil {
		return nil, err
	}
	s, err := tune.Begin(journalPath, tune.Options{})
	if err != nil {
		return nil, err
	}
	p.session = s
	bits := p.Subnet.Bits()
	steps := [][]tune.Change{
		{tune.AddNetns(p.A.Netns), tune.AddNetns(p.B.Netns)},
		{tune.LinkUp(p.A.Netns, "lo", true), tune.LinkUp(p.B.Netns, "lo", true),
			tune.AddVeth(p.A.Netns, p.A.Netdev, p.B.Netns, p.B.Netdev, spec.MTU,
				netip.PrefixFrom(p.A.Addr, bits).String(), netip.PrefixFrom(p.B.Addr, bits).String())},
	}
	if spec.RXE {
		p.RXE = spec.Name + "-rxe"
		steps = append(steps, []tune.Change{tune.AddRXE(p.A.Netns, p.RXE, p.A.Netdev)})
	}
	for _, changes := range steps {
		// Each step is checked against the system as the earlier ones
		// left it (a veth needs its namespaces to exist).
		if _, err := s.Apply(ctx, changes...); err != nil {
			return nil, errors.Join(fmt.Errorf("topo: %s: %w", spec.Name, err), p.Close(context.WithoutCancel(ctx)))
		}
	}
	return p, nil
}

// plan checks a spec and names the ends.
func plan(spec PairSpec) (*Pair, error) {
	if spec.Name == "" || len(spec.Name) > 12 {
		return nil, fmt.Errorf("%w: name %q: 1 to 12 bytes (netdev names are at most 15)", ErrInvalidSpec, spec.Name)
	}
	if !spec.Subnet.IsValid() {
		spec.Subnet = netip.MustParsePrefix("198.18.100.0/24")
	}
	sub := spec.Subnet.Masked()
	if !sub.Addr().Is4() || sub.Bits() > 30 || !testNet.Contains(sub.Addr()) || sub.Bits() < testNet.Bits() {
		return nil, fmt.Errorf("%w: subnet %s: an IPv4 /15 to /30 inside %s", ErrInvalidSpec, spec.Subnet, testNet)
	}
	a := sub.Addr().Next()
	p := &Pair{
		A:      End{Netns: spec.Name + "-a", Netdev: spec.Name + "-a0", Addr: a},
		B:      End{Netns: spec.Name + "-b", Netdev: spec.Name + "-b0", Addr: a.Next()},
		Subnet: sub,
	}
	for _, c := range []tune.Change{tune.AddNetns(p.A.Netns), tune.AddNetns(p.B.Netns)} {
		if err := tune.ValidateNetns(c.Target.Netns); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
		}
	}
	return p, nil
}

// Close removes what NewPair made, newest first, and closes the journal:
// the rxe link, the veth, the namespaces. It is safe to call twice, and
// on a nil *Pair (a failed NewPair's result).
//
// Similar to: rdma link delete NAME-rxe; ip netns delete NAME-b; ip netns delete NAME-a
func (p *Pair) Close(ctx context.Context) error {
	if p == nil || p.session == nil || p.closed {
		return nil
	}
	p.closed = true
	_, err := p.session.Restore(ctx)
	return errors.Join(err, p.session.Close())
}
