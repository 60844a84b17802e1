package fleet

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"github.com/rocekit/rocekit/host"
)

// ErrNoCommonNetwork means two hosts have no pair of NICs that reach each
// other: no NICs on the same rail, and no NIC whose subnet holds the other
// host's NIC address.
var ErrNoCommonNetwork = errors.New("fleet: hosts share no network")

// ErrInvalidHost is wrapped by errors about a host description: no name,
// two hosts of the same name, no runner, no NIC.
var ErrInvalidHost = errors.New("fleet: invalid host")

// Host is one machine of a fleet: where its commands run and the NICs it
// is tested through.
type Host struct {
	// Name identifies the host in matrices, stores and findings.
	Name string `json:"name"`
	// Runner runs its programs (host.Local, host.SSH, ...).
	Runner host.Runner `json:"-"`
	// NICs are the NICs it is tested through.
	NICs []NIC `json:"nics"`
}

// NIC is a network port of a host, as a pair uses it.
type NIC struct {
	// Netdev is the network interface ("eth0", "enp59s0f0np0").
	Netdev string `json:"netdev"`
	// Device is its RDMA device ("rxe0", "mlx5_0"), for perftest.
	Device string `json:"device,omitempty"`
	// Addr is its IPv4 address: a server's address its client connects
	// to, and with Prefix how pairs find NICs that reach each other.
	Addr netip.Addr `json:"addr"`
	// Prefix is the subnet of Addr ("198.18.1.0/24"); zero means only
	// Addr itself.
	Prefix netip.Prefix `json:"prefix,omitzero"`
	// Rail names the network the NIC is cabled to (GPU clusters wire NIC
	// i of every host to rail i); NICs of two hosts on the same rail
	// pair up. Empty: pair by subnet.
	Rail string `json:"rail,omitempty"`
	// LineRateGbps is the link's speed in 10^9 bit/s (ethtool's Speed
	// / 1000); 0 when unknown (virtio). veth reports a fixed 10000Mb/s.
	LineRateGbps float64 `json:"line_rate_gbps,omitempty"`
	// CPUs are the CPUs local to the NIC (its NUMA node's, or
	// local_cpulist); programs of a pair on this NIC are pinned to
	// them. Empty: no pinning.
	CPUs []int `json:"cpus,omitempty"`
	// GIDIndex is the GID index (-x) on this NIC; nil leaves it to
	// perftest.
	GIDIndex *int `json:"gid_index,omitempty"`
}

// reaches reports whether n and o can form a pair: the same rail, or one's
// subnet holds the other's address.
func (n NIC) reaches(o NIC) bool {
	if n.Rail != "" || o.Rail != "" {
		return n.Rail == o.Rail
	}
	if !n.Addr.IsValid() || !o.Addr.IsValid() {
		return false
	}
	return (n.Prefix.IsValid() && n.Prefix.Contains(o.Addr)) || (o.Prefix.IsValid() && o.Prefix.Contains(n.Addr))
}

// Links returns the NIC pairs that join server and client: for each of
// server's NICs, in order, the first NIC of client that reaches it and is
// not taken yet (same rail, or a subnet that holds the other's address).
// A host with one NIC each and no addressing information pairs them as
// they are. The error wraps ErrNoCommonNetwork when there is none.
//
// Similar to: matching "ip -br addr" of two hosts by subnet, or NIC i to NIC i of each rail
func Links(server, client Host) ([][2]NIC, error) {
	if len(server.NICs) == 1 && len(client.NICs) == 1 {
		s, c := server.NICs[0], client.NICs[0]
		if s.reaches(c) || (s.Rail == "" && c.Rail == "" && !s.Prefix.IsValid() && !c.Prefix.IsValid()) {
			return [][2]NIC{{s, c}}, nil
		}
	}
	var out [][2]NIC
	taken := make([]bool, len(client.NICs))
	for _, s := range server.NICs {
		for j, c := range client.NICs {
			if !taken[j] && s.reaches(c) {
				taken[j] = true
				out = append(out, [2]NIC{s, c})
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s (%s) and %s (%s)", ErrNoCommonNetwork, server.Name, nicList(server.NICs), client.Name, nicList(client.NICs))
	}
	return out, nil
}

func nicList(ns []NIC) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += n.Netdev
		if n.Addr.IsValid() {
			s += " " + n.Addr.String()
		}
		if n.Rail != "" {
			s += " rail " + n.Rail
		}
	}
	return s
}

// checkHosts validates a fleet's host list.
func checkHosts(hosts []Host) error {
	seen := map[string]bool{}
	for i, h := range hosts {
		switch {
		case h.Name == "":
			return fmt.Errorf("%w: host %d has no name", ErrInvalidHost, i)
		case seen[h.Name]:
			return fmt.Errorf("%w: two hosts named %q", ErrInvalidHost, h.Name)
		case h.Runner == nil:
			return fmt.Errorf("%w: host %s has no runner", ErrInvalidHost, h.Name)
		case len(h.NICs) == 0:
			return fmt.Errorf("%w: host %s has no NIC", ErrInvalidHost, h.Name)
		}
		seen[h.Name] = true
	}
	return nil
}

// SplitCPUs gives each of a host's NICs its own share of its NUMA-local
// CPUs, so that pairs running at once on one host do not share cores:
// NICs with the same CPU list (the same NUMA node) divide it into
// consecutive slices, the first ones getting the extra CPU; when there
// are more NICs than CPUs they take one CPU each, round-robin. NICs with
// no CPUs stay unpinned.
//
// Similar to: set_irq_affinity_bynode.sh's core split, or ngc_multinode_perf's NUMA-local taskset per NIC
func SplitCPUs(nics []NIC) [][]int {
	out := make([][]int, len(nics))
	groups := map[string][]int{} // CPU list -> NIC indices using it
	var order []string
	for i, n := range nics {
		if len(n.CPUs) == 0 {
			continue
		}
		k := fmt.Sprint(n.CPUs)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range order {
		idx := groups[k]
		cpus := nics[idx[0]].CPUs
		if len(idx) > len(cpus) {
			for j, i := range idx {
				out[i] = []int{cpus[j%len(cpus)]}
			}
			continue
		}
		per, extra := len(cpus)/len(idx), len(cpus)%len(idx)
		at := 0
		for j, i := range idx {
			n := per
			if j < extra {
				n++
			}
			out[i] = slices.Clone(cpus[at : at+n])
			at += n
		}
	}
	return out
}
