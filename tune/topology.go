package tune

import (
	"net/netip"
)

// Kinds of change that build a test topology: a named network namespace
// and a veth pair. Each is journaled before it is made, so Restore, or
// Recover after a crash, removes what was created and only that: a
// namespace or veth that was there before the change has it as its old
// value and is left alone.
const (
	// KindNetns creates or removes a named network namespace
	// (Target.Netns).
	KindNetns Kind = "netns"
	// KindVeth creates or removes a veth pair: Target.Netdev in
	// Target.Netns, its peer as Value.Veth says.
	KindVeth Kind = "veth"
)

// NetnsState is whether a named network namespace exists.
type NetnsState struct {
	Present bool `json:"present"`
}

// VethState is a veth pair: present with its peer, the peer's namespace,
// the MTU and the address (CIDR) of each end, or absent. Both ends are up
// once made.
type VethState struct {
	Present   bool   `json:"present"`
	Peer      string `json:"peer,omitempty"`
	PeerNetns string `json:"peer_netns,omitempty"`
	MTU       int    `json:"mtu,omitempty"`
	Addr      string `json:"addr,omitempty"`      // "198.18.0.1/24"
	PeerAddr  string `json:"peer_addr,omitempty"` // "198.18.0.2/24"
}

// AddNetns creates a named network namespace; Restore deletes it.
//
// Similar to: ip netns add NAME
func AddNetns(name string) Change {
	return Change{Kind: KindNetns, Target: Target{Netns: name}, New: Value{Netns: &NetnsState{Present: true}}}
}

// AddVeth creates a veth pair: netdev in netns (named, "" for the
// caller's) with addr, its peer in peerNetns with peerAddr (addresses in
// CIDR form, "" for none), both with mtu (0 for the kernel's 1500) and up.
// Restore deletes it (deleting one end deletes both).
//
// Similar to: ip link add NETDEV netns NS type veth peer name PEER netns PEERNS;
// ip -n NS addr add ADDR dev NETDEV; ip -n NS link set NETDEV up (and the peer's)
func AddVeth(netns, netdev, peerNetns, peer string, mtu int, addr, peerAddr string) Change {
	return Change{Kind: KindVeth, Target: Target{Netns: netns, Netdev: netdev},
		New: Value{Veth: &VethState{Present: true, Peer: peer, PeerNetns: peerNetns, MTU: mtu, Addr: addr, PeerAddr: peerAddr}}}
}

// validateTopology checks a netns or veth change's value.
func validateTopology(k Kind, t Target, v Value) error {
	switch k {
	case KindNetns:
		if t.Netns == "" {
			return invalid("netns", "", "no namespace name")
		}
		if v.Netns == nil {
			return invalid("netns", t.Netns, "no state given")
		}
		return nil
	}
	if v.Veth == nil {
		return invalid("veth", t.Netdev, "no state given")
	}
	if !v.Veth.Present {
		return nil
	}
	if err := ValidateNetdev(v.Veth.Peer); err != nil {
		return err
	}
	if v.Veth.Peer == t.Netdev && v.Veth.PeerNetns == t.Netns {
		return invalid("veth", t.Netdev, "peer has the same name in the same namespace")
	}
	if err := ValidateNetns(v.Veth.PeerNetns); err != nil {
		return err
	}
	if v.Veth.MTU != 0 {
		if err := ValidateMTU(v.Veth.MTU); err != nil {
			return err
		}
	}
	for _, a := range []string{v.Veth.Addr, v.Veth.PeerAddr} {
		if a == "" {
			continue
		}
		if _, err := netip.ParsePrefix(a); err != nil {
			return invalid("veth address", a, "not an address in CIDR form (%v)", err)
		}
	}
	return nil
}

// validateTopologyTarget checks a netns or veth target.
func validateTopologyTarget(k Kind, t Target) error {
	if k == KindVeth {
		return ValidateNetdev(t.Netdev)
	}
	if t.Netns == "" {
		return invalid("netns", "", "no namespace name")
	}
	return nil
}

// matchesTopology reports whether got holds what want sets.
func matchesTopology(k Kind, want, got Value) bool {
	if k == KindNetns {
		return want.Netns != nil && got.Netns != nil && want.Netns.Present == got.Netns.Present
	}
	return want.Veth != nil && got.Veth != nil && want.Veth.Present == got.Veth.Present &&
		(!want.Veth.Present || want.Veth.Peer == got.Veth.Peer)
}

// topologyString formats a netns or veth value: "netns present",
// "veth to b/v1", "no veth".
func topologyString(v Value) []string {
	var parts []string
	if v.Netns != nil {
		parts = append(parts, map[bool]string{true: "netns present", false: "no netns"}[v.Netns.Present])
	}
	if v.Veth != nil {
		if v.Veth.Present {
			s := "veth to "
			if v.Veth.PeerNetns != "" {
				s += v.Veth.PeerNetns + "/"
			}
			parts = append(parts, s+v.Veth.Peer)
		} else {
			parts = append(parts, "no veth")
		}
	}
	return parts
}
