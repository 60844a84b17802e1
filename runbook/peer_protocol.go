package runbook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/rocekit/rocekit/firewall"
	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/ownfile"
	"github.com/rocekit/rocekit/internal/sysfs"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/limits"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/sysroot"
	"github.com/rocekit/rocekit/tune"
)

// PeerProtocol is the version of the rocekit-peer protocol: the near side
// passes it with -protocol, the agent refuses another and says which it
// speaks, so that an agent from another build never answers with zero
// values. Version 3: Netdev lost numa_node and its warnings became
// warnjson.Errors. Version 4: exec (the peer's programs run through the
// agent, journaled) and restore-since. Version 5: every exported sentinel
// of the packages the agent links is a kind of its own (an agent of 4
// sent several as not_exist), set-txqueuelen, and the reply's self_cpu_ns
// (the agent's own CPU time). Version 6: a lasting operation
// (watch-udp-sockets) may print progress lines before its reply, the
// first {"ready":true} once it runs, so the near side starts the tool
// after the agent's own start-up; an agent of 5 never says it. Version 7:
// a session (rocekit-peer serve, Peer.KeepAgent): one agent answers every
// call of a Peer, each request and reply a line carrying its id.
const PeerProtocol = 7

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
	// Ready marks a progress line: the operation is under way and its
	// reply follows on a later line.
	Ready bool `json:"ready,omitempty"`
	// ID is the request a session's line answers (peerRequest.ID); 0
	// outside a session, and on its first line.
	ID uint64 `json:"id,omitempty"`
	// Session marks a session's first line: the agent serves requests.
	Session bool `json:"session,omitempty"`
}

// peerFault is an error as it crosses SSH: its kind names the sentinel
// the near side matches it to again.
type peerFault struct {
	Kind    string `json:"kind,omitempty"`
	Op      string `json:"op"`
	Message string `json:"message"`
}

// peerKinds are the sentinel errors an agent error is classified by: every
// exported Err* of the packages the agent links (TestEverySentinelCrossesSSH
// finds them in the source and fails on one missing here). The most
// specific come first: a package's own before the internal ones it wraps,
// those matching fs.ErrPermission or fs.ErrNotExist before the os ones,
// which come last but for ownfile's. errors.Is(err, S) holds on the near side for the
// *PeerError of a far error that matched S there, and for what S itself
// matches (fs.ErrNotExist for rxe.ErrModuleMissing). A far error carries
// one kind: the first it matches. The names of protocol 4's first kinds
// ("rxe_module_missing") are kept, so agents of this protocol agree.
var peerKinds = []struct {
	kind string
	err  error
}{
	{"protocol", ErrPeerProtocol},
	{"peer_timeout", ErrPeerTimeout}, {"peer_no_operation", ErrPeerNoOperation}, {"peer_reply_too_large", ErrPeerReplyTooLarge},
	{"invalid_sides", ErrInvalidSides}, {"no_ipv4", ErrNoIPv4},
	{"rxe_module_missing", rxe.ErrModuleMissing}, {"rxe_no_rdma", rxe.ErrNoRDMA},
	{"rxe_netdev_not_found", rxe.ErrNetdevNotFound}, {"rxe_link_exists", rxe.ErrLinkExists},
	{"rxe_netdev_unusable", rxe.ErrNetdevUnusable}, {"rxe_device_not_found", rxe.ErrDeviceNotFound},
	{"rxe_no_gid", rxe.ErrNoGID}, {"rxe_netdev_down", rxe.ErrNetdevDown},
	{"rxe_link_add_unsupported", rxe.ErrLinkAddUnsupported}, {"rxe_not_soft_link", rxe.ErrNotSoftLink},
	{"rxe_incompatible_gids", rxe.ErrIncompatibleGIDs}, {"rxe_parse", rxe.ErrParse}, {"rxe_unsupported_os", rxe.ErrUnsupportedOS},
	{"nic_netdev_not_found", nic.ErrNetdevNotFound}, {"nic_not_supported", nic.ErrNotSupported},
	{"nic_invalid_value", nic.ErrInvalidValue}, {"nic_verify", nic.ErrVerify},
	{"nic_path_mtu", nic.ErrPathMTU}, {"nic_probe", nic.ErrProbe}, {"nic_parse", nic.ErrParse},
	{"nic_ethtool_text", nic.ErrEthtoolText}, {"nic_unsupported_os", nic.ErrUnsupportedOS},
	{"irq_not_writable", irq.ErrNotWritable}, {"irq_invalid_cpus", irq.ErrInvalidCPUs}, {"irq_no_device", irq.ErrNoDevice},
	{"irq_no_cpufreq", irq.ErrNoCpufreq}, {"irq_irqbalance", irq.ErrIRQBalance}, {"irq_no_header", irq.ErrNoHeader},
	{"irq_parse", irq.ErrParse}, {"irq_read_only", irq.ErrReadOnly}, {"irq_unsupported_os", irq.ErrUnsupportedOS},
	{"invalid_netns_name", host.ErrInvalidNetnsName}, {"tune_invalid_input", tune.ErrInvalidInput}, {"tune_locked", tune.ErrLocked}, {"tune_pending", tune.ErrPending},
	{"tune_journal", tune.ErrJournal}, {"tune_undo", tune.ErrUndo},
	{"tune_closed", tune.ErrClosed}, {"tune_no_session", tune.ErrNoSession},
	{"kmsg_permission", kmsg.ErrPermission}, {"kmsg_parse", kmsg.ErrParse},
	{"firewall_parse", firewall.ErrParse},
	{"perftest_port_busy", perftest.ErrPortBusy}, {"perftest_pair_timeout", perftest.ErrPairTimeout},
	{"perftest_header_mismatch", perftest.ErrHeaderMismatch}, {"perftest_server_exited", perftest.ErrServerExited},
	{"perftest_invalid_options", perftest.ErrInvalidOptions}, {"perftest_command", perftest.ErrCommand},
	{"perftest_concatenated", perftest.ErrConcatenated}, {"perftest_interleaved", perftest.ErrInterleaved},
	{"perftest_truncated", perftest.ErrTruncated}, {"perftest_unrecognized", perftest.ErrUnrecognized},
	{"perftest_tool_failed", perftest.ErrToolFailed}, {"perftest_no_result", perftest.ErrNoResult}, {"perftest_parse", perftest.ErrParse},
	{"netperf_port_busy", netperf.ErrPortBusy}, {"netperf_run_timeout", netperf.ErrRunTimeout},
	{"netperf_invalid_options", netperf.ErrInvalidOptions}, {"netperf_failed", netperf.ErrFailed},
	{"netperf_truncated", netperf.ErrTruncated}, {"netperf_no_result", netperf.ErrNoResult},
	{"netperf_unrecognized", netperf.ErrUnrecognized}, {"netperf_too_large", netperf.ErrTooLarge}, {"netperf_parse", netperf.ErrParse},
	{"report_regression", report.ErrRegression}, {"report_no_direction", report.ErrNoDirection},
	{"report_unknown_name", report.ErrUnknownName}, {"report_invalid_round", report.ErrInvalidRound},
	{"report_no_data", report.ErrNoData}, {"report_archive", report.ErrArchive}, {"report_corrupt", report.ErrCorrupt},
	{"report_stop_scan", report.ErrStopScan},
	{"report_not_store", report.ErrNotStore}, {"report_no_store", report.ErrNoStore}, {"report_no_perftest_options", report.ErrNoPerftestOptions},
	{"limits_input", limits.ErrInput}, {"limits_pcie_speed", limits.ErrPCIeSpeed},
	{"host_invalid_cmd", host.ErrInvalidCmd}, {"host_killed", host.ErrKilled}, {"host_not_listening", host.ErrNotListening},
	{"host_host_key", host.ErrHostKey}, {"host_no_allocation", host.ErrNoAllocation}, {"host_no_namespace", host.ErrNoNamespace},
	{"host_not_found", host.ErrNotFound}, {"host_parse", host.ErrParse}, {"host_unsupported_os", host.ErrUnsupportedOS},
	{"sysroot_fs", sysroot.ErrFS},
	// Internal packages' sentinels, behind the public ones that wrap them.
	{"sysfs_no_device", sysfs.ErrNoDevice}, {"sysfs_no_os_path", sysfs.ErrNoOSPath}, {"sysfs_parse", sysfs.ErrParse},
	{"sysfs_read_only", sysfs.ErrReadOnly}, {"sysfs_too_large", sysfs.ErrTooLarge}, {"sysfs_unsupported_os", sysfs.ErrUnsupportedOS},
	{"permission", os.ErrPermission}, {"not_exist", os.ErrNotExist},
	// After permission: an *ownfile.Error matches both, and protocol 4's
	// near sides know it as "permission".
	{"not_own", ownfile.ErrNotOwn},
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

// replyOf is the reply of an operation that returned res and err.
func replyOf(op string, res any, err error) peerReply {
	if err != nil {
		return peerReply{Error: faultOf(op, err)}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return peerReply{Error: faultOf(op, err)}
	}
	return peerReply{Result: b}
}

// checkProtocol refuses a caller of another protocol version.
func checkProtocol(protocol int) error {
	if protocol != PeerProtocol {
		return fmt.Errorf("%w: this rocekit-peer speaks protocol %d, the caller %d: install the caller's build of rocekit-peer", ErrPeerProtocol, PeerProtocol, protocol)
	}
	return nil
}

// readReply decodes the answer of an agent started for one call from its
// standard output, its last line (progress lines come before it), and
// counts the agent's CPU.
func readReply(op string, stdout, stderr []byte, out any) error {
	cpu, err := decodeReply(op, []byte(lastLine(string(stdout))), stderr, out)
	agentCPU.Add(cpu)
	return err
}

// decodeReply decodes one reply line into out and returns the agent's
// own CPU it reports (ns); stderr tells an agent that predates the
// protocol (it refuses -protocol).
func decodeReply(op string, line, stderr []byte, out any) (cpuNs int64, err error) {
	var r peerReply
	if err := json.Unmarshal(line, &r); err != nil || r.Protocol == 0 || r.Ready {
		if strings.Contains(string(stderr), "-protocol") {
			return 0, &PeerError{Op: op, Kind: "protocol", Msg: fmt.Sprintf("the rocekit-peer on the far host predates protocol versions (it does not know -protocol); this build speaks %d: install this build's rocekit-peer there", PeerProtocol)}
		}
		return 0, &PeerError{Op: op, Msg: fmt.Sprintf("the agent's answer is not a rocekit-peer reply (%q)", tailString(line, stderr))}
	}
	cpuNs = max(r.SelfCPUNs, 0)
	if r.Protocol != PeerProtocol {
		return cpuNs, &PeerError{Op: op, Kind: "protocol", Msg: fmt.Sprintf("the rocekit-peer on the far host speaks protocol %d, this build %d: install this build's rocekit-peer there", r.Protocol, PeerProtocol)}
	}
	if r.Error != nil {
		return cpuNs, &PeerError{Op: op, Kind: r.Error.Kind, Msg: r.Error.Message}
	}
	if out == nil || len(r.Result) == 0 {
		return cpuNs, nil
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return cpuNs, &PeerError{Op: op, Err: fmt.Errorf("agent reply: %w", err)}
	}
	return cpuNs, nil
}

// onceReady is a callSeeing watcher that calls ready once, at the
// agent's first progress line that says so; nil for a nil ready.
func onceReady(ready func()) func(line string) {
	if ready == nil {
		return nil
	}
	var once sync.Once
	return func(line string) {
		var r peerReply
		if json.Unmarshal([]byte(line), &r) == nil && r.Ready && r.Protocol == PeerProtocol {
			once.Do(ready)
		}
	}
}

func tailString(stdout, stderr []byte) string {
	s := strings.TrimSpace(string(stderr) + string(stdout))
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	return s
}
