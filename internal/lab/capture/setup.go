package capture

import "time"

// SetupStep is one command of a setup phase.
type SetupStep struct {
	Command
	// Until makes the step a poll: the command reruns until its stdout contains Until, or
	// until its Timeout passes. The record keeps the last run.
	Until string
	// Undo reverses the step at teardown. It runs only if the step succeeded, in reverse order.
	Undo []string
	// Optional steps may fail without failing the phase.
	Optional bool
}

// SetupPhase is the data of one Phase.
type SetupPhase struct {
	Phase    Phase
	Requires []Phase
	Note     string
	Steps    []SetupStep
}

const (
	setupTimeout = 20 * time.Second
	pollTimeout  = 30 * time.Second
)

func step(role, argv string) SetupStep {
	return SetupStep{Command: Command{Role: role, Argv: fields(argv), Timeout: setupTimeout}}
}

func (s SetupStep) undo(argv string) SetupStep {
	s.Undo = fields(argv)
	return s
}

func (s SetupStep) until(text string) SetupStep {
	s.Until = text
	s.Timeout = pollTimeout
	return s
}

func (s SetupStep) optional() SetupStep {
	s.Optional = true
	return s
}

// setupPhase returns the steps of phase p.
func setupPhase(p Phase, nics NICKind) (SetupPhase, bool) {
	switch p {
	case PhaseVeth:
		return SetupPhase{Phase: p, Note: "veth pair for rxe0: veth0 198.18.0.1/24, veth1 198.18.1.1/24, both up", Steps: []SetupStep{
			step("link-add", "ip link add "+RXEVeth+" type veth peer name "+RXEVethPeer).undo("ip link del " + RXEVeth),
			step("addr-veth0", "ip addr add "+RXEAddrPrefix+" dev "+RXEVeth),
			step("addr-veth1", "ip addr add "+RXEPeerPrefix+" dev "+RXEVethPeer),
			step("up-veth0", "ip link set "+RXEVeth+" up"),
			step("up-veth1", "ip link set "+RXEVethPeer+" up"),
		}}, true
	case PhaseRXE:
		return SetupPhase{Phase: p, Requires: []Phase{PhaseVeth},
			Note: "rdma_rxe on veth0: modprobe, rdma link add, poll rdma link show until ACTIVE; the log names the RoCE v2 GID index of 198.18.0.1",
			Steps: []SetupStep{
				step("modprobe-rxe", "modprobe rdma_rxe"),
				step("modprobe-ucm", "modprobe rdma_ucm").optional(),
				step("rdma-link-add", "rdma link add "+RXEDevice+" type rxe netdev "+RXEVeth).undo("rdma link delete " + RXEDevice),
				step("wait-active", "rdma link show "+RXEDevice+"/1").until("state ACTIVE"),
			}}, true
	case PhaseNICs:
		if nics == NICVeth {
			return SetupPhase{Phase: p, Note: "netperf NICs: a veth pair made by capture (-veth-for-netperf)", Steps: []SetupStep{
				step("link-add", "ip link add "+PlaceholderNICA+" type veth peer name "+PlaceholderNICB).undo("ip link del " + PlaceholderNICA),
			}}, true
		}
		return SetupPhase{Phase: p, Note: "netperf NICs: the lab's two virtio-net NICs on one QEMU hub", Steps: []SetupStep{
			step("show-nic-a", "ip link show "+PlaceholderNICA),
			step("show-nic-b", "ip link show "+PlaceholderNICB),
		}}, true
	case PhaseNetns:
		var steps []SetupStep
		for _, n := range []struct{ ns, nic, prefix, tag string }{
			{NetnsA, PlaceholderNICA, NetperfAPrefix, "a"},
			{NetnsB, PlaceholderNICB, NetperfBPrefix, "b"},
		} {
			steps = append(steps,
				step("netns-add-"+n.tag, "ip netns add "+n.ns).undo("ip netns del "+n.ns),
				step("move-nic-"+n.tag, "ip link set "+n.nic+" netns "+n.ns).undo("ip -n "+n.ns+" link set "+n.nic+" netns "+PlaceholderSelfPID),
				step("addr-nic-"+n.tag, "ip -n "+n.ns+" addr add "+n.prefix+" dev "+n.nic),
				step("up-lo-"+n.tag, "ip -n "+n.ns+" link set lo up"),
				step("up-nic-"+n.tag, "ip -n "+n.ns+" link set "+n.nic+" up"),
			)
		}
		for _, n := range []struct{ ns, nic, tag string }{{NetnsA, PlaceholderNICA, "a"}, {NetnsB, PlaceholderNICB, "b"}} {
			steps = append(steps, step("wait-up-nic-"+n.tag, "ip -n "+n.ns+" link show "+n.nic).until("state UP"))
		}
		return SetupPhase{Phase: p, Requires: []Phase{PhaseNICs},
			Note:  "netperf namespaces: first NIC in nsA 198.18.2.1/24, second in nsB 198.18.2.2/24, both up",
			Steps: steps}, true
	}
	return SetupPhase{}, false
}

// undoCommand is the teardown command of a step; its role names the phase and the step, so
// that roles stay unique within the teardown record.
func undoCommand(p Phase, st SetupStep) Command {
	return Command{Role: "undo-" + string(p) + "-" + st.Role, Argv: st.Undo, Timeout: setupTimeout}
}

// phaseOrder returns p after everything it requires, each once.
func phaseOrder(p Phase, nics NICKind) []Phase {
	var order []Phase
	seen := map[Phase]bool{}
	var visit func(Phase)
	visit = func(q Phase) {
		if seen[q] {
			return
		}
		seen[q] = true
		if sp, ok := setupPhase(q, nics); ok {
			for _, r := range sp.Requires {
				visit(r)
			}
		}
		order = append(order, q)
	}
	visit(p)
	return order
}
