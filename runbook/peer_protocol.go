package runbook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/tune"
)

// PeerProtocol is the version of the rocekit-peer protocol: the near side
// passes it with -protocol, the agent refuses another and says which it
// speaks, so that an agent from another build never answers with zero
// values. Version 3: NetdevInfo lost numa_node and its warnings became
// warnjson.Errors. Version 4: exec (the peer's programs run through the
// agent, journaled) and restore-since.
const PeerProtocol = 4

// ErrPeerProtocol is matched by a *PeerError whose agent speaks another
// protocol version than this build.
var ErrPeerProtocol = errors.New("runbook: rocekit-peer protocol mismatch")

// peerReply is the agent's answer on its standard output, a JSON object
// on one line.
type peerReply struct {
	Protocol int             `json:"protocol"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *peerFault      `json:"error,omitempty"`
	// SelfCPUNs is the agent's own CPU time when it replied (getrusage
	// RUSAGE_SELF, ns): summed in PeerAgentCPU. Absent from older agents,
	// so the protocol version stays.
	SelfCPUNs int64 `json:"self_cpu_ns,omitempty"`
}

// peerFault is an error as it crosses SSH: its kind names the sentinel
// the near side matches it to again.
type peerFault struct {
	Kind    string `json:"kind,omitempty"`
	Op      string `json:"op"`
	Message string `json:"message"`
}

// peerKinds are the sentinel errors an agent error is classified by, the
// most specific first. errors.Is(err, S) holds on the near side for the
// *PeerError of a far error that matched S there.
var peerKinds = []struct {
	kind string
	err  error
}{
	{"protocol", ErrPeerProtocol},
	{"rxe_module_missing", rxe.ErrModuleMissing}, {"rxe_no_rdma", rxe.ErrNoRDMA},
	{"rxe_netdev_not_found", rxe.ErrNetdevNotFound}, {"rxe_link_exists", rxe.ErrLinkExists},
	{"rxe_netdev_unusable", rxe.ErrNetdevUnusable}, {"rxe_device_not_found", rxe.ErrDeviceNotFound},
	{"rxe_no_gid", rxe.ErrNoGID},
	{"nic_netdev_not_found", nic.ErrNetdevNotFound}, {"nic_not_supported", nic.ErrNotSupported},
	{"nic_invalid_value", nic.ErrInvalidValue}, {"nic_verify", nic.ErrVerify},
	{"irq_not_writable", irq.ErrNotWritable}, {"irq_invalid_cpus", irq.ErrInvalidCPUs}, {"irq_no_device", irq.ErrNoDevice},
	{"invalid_netns_name", host.ErrInvalidNetnsName}, {"tune_invalid_input", tune.ErrInvalidInput}, {"tune_locked", tune.ErrLocked}, {"tune_pending", tune.ErrPending},
	{"tune_journal", tune.ErrJournal}, {"tune_undo", tune.ErrUndo},
	{"no_ipv4", ErrNoIPv4},
	{"permission", os.ErrPermission}, {"not_exist", os.ErrNotExist},
}

// faultOf classifies an error for the wire.
func faultOf(op string, err error) *peerFault {
	f := &peerFault{Op: op, Message: err.Error()}
	for _, k := range peerKinds {
		if errors.Is(err, k.err) {
			f.Kind = k.kind
			break
		}
	}
	return f
}

// sentinelOf is the sentinel of a kind; nil for an unknown kind.
func sentinelOf(kind string) error {
	for _, k := range peerKinds {
		if k.kind == kind {
			return k.err
		}
	}
	return nil
}

// writeReply writes the agent's answer.
func writeReply(w io.Writer, r peerReply) error {
	r.Protocol = PeerProtocol
	r.SelfCPUNs = selfCPU().Nanoseconds()
	return json.NewEncoder(w).Encode(r)
}

// readReply decodes the agent's answer from its standard output; stderr
// tells an agent that predates the protocol (it refuses -protocol).
func readReply(op string, stdout, stderr []byte, out any) error {
	var r peerReply
	if err := json.Unmarshal(stdout, &r); err != nil || r.Protocol == 0 {
		if strings.Contains(string(stderr), "-protocol") {
			return &PeerError{Op: op, Kind: "protocol", Msg: fmt.Sprintf("the rocekit-peer on the far host predates protocol versions (it does not know -protocol); this build speaks %d: install this build's rocekit-peer there", PeerProtocol)}
		}
		return &PeerError{Op: op, Msg: fmt.Sprintf("the agent's answer is not a rocekit-peer reply (%q)", tailString(stdout, stderr))}
	}
	if r.SelfCPUNs > 0 {
		agentCPU.Add(r.SelfCPUNs)
	}
	if r.Protocol != PeerProtocol {
		return &PeerError{Op: op, Kind: "protocol", Msg: fmt.Sprintf("the rocekit-peer on the far host speaks protocol %d, this build %d: install this build's rocekit-peer there", r.Protocol, PeerProtocol)}
	}
	if r.Error != nil {
		return &PeerError{Op: op, Kind: r.Error.Kind, Msg: r.Error.Message}
	}
	if out == nil || len(r.Result) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return &PeerError{Op: op, Err: fmt.Errorf("agent reply: %w", err)}
	}
	return nil
}

func tailString(stdout, stderr []byte) string {
	s := strings.TrimSpace(string(stderr) + string(stdout))
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	return s
}
