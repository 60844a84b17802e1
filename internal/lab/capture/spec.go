package capture

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Groups of cases: the tool family, the first part of a case id.
const (
	GroupPerftest = "perftest"
	GroupNetperf  = "netperf"
	GroupRDMA     = "rdma"
	GroupSysfs    = "sysfs"
	GroupProc     = "proc"
	GroupEthtool  = "ethtool"
	GroupSetup    = "setup"
)

// Placeholders that the table may use in argv and paths; [Run] replaces them.
const (
	// PlaceholderGID is the RoCE v2 GID index of RXEAddr on rxe0 port 1.
	PlaceholderGID = "{gid}"
	// PlaceholderNICA is the NIC that is moved into nsA (eth0 in the lab).
	PlaceholderNICA = "{nicA}"
	// PlaceholderNICB is the NIC that is moved into nsB (eth1 in the lab).
	PlaceholderNICB = "{nicB}"
	// PlaceholderSelfPID is the PID of the capture process; "ip link set DEV netns PID"
	// moves a link back into capture's own namespace.
	PlaceholderSelfPID = "{selfpid}"
)

// Fixed names and addresses of the lab topology, all in 198.18.0.0/15.
const (
	RXEDevice      = "rxe0"
	RXEPort        = 1
	RXEVeth        = "veth0"
	RXEVethPeer    = "veth1"
	RXEAddr        = "198.18.0.1"
	RXEAddrPrefix  = "198.18.0.1/24"
	RXEPeerPrefix  = "198.18.1.1/24"
	NetnsA         = "nsA"
	NetnsB         = "nsB"
	NetperfAPrefix = "198.18.2.1/24"
	NetperfBPrefix = "198.18.2.2/24"
	NetperfBAddr   = "198.18.2.2"
)

// Phase is a piece of setup that cases depend on. [Run] performs a phase, and records it as
// the case "setup/<phase>", right before the first selected case that needs it.
type Phase string

const (
	// PhaseVeth creates veth0/veth1 in capture's namespace with 198.18.0.1/24 and 198.18.1.1/24.
	PhaseVeth Phase = "veth"
	// PhaseRXE loads rdma_rxe, creates rxe0 on veth0, waits until it is ACTIVE and finds the
	// RoCE v2 GID index of 198.18.0.1. It needs PhaseVeth.
	PhaseRXE Phase = "rxe"
	// PhaseNICs makes sure the two netperf NICs exist (or creates them as a veth pair).
	PhaseNICs Phase = "nics"
	// PhaseNetns moves the netperf NICs into nsA and nsB, addresses them and brings them up.
	// It needs PhaseNICs.
	PhaseNetns Phase = "netns"
)

// Readiness says how capture knows that a server accepts its client.
type Readiness int

const (
	// ReadyTCPListen waits for a LISTEN socket on the pair's port in
	// /proc/<server pid>/net/tcp or tcp6 (the namespace of the server).
	ReadyTCPListen Readiness = iota
	// ReadyRDMACMListen waits until "rdma res show cm_id" lists a LISTEN cm_id on the port
	// (perftest -R, which opens no TCP socket).
	ReadyRDMACMListen
)

// Spec defines one case of the table.
type Spec struct {
	// Group is the tool family and the first part of the id (GroupPerftest, ...).
	Group string
	// Name is a short kebab-case id within the group.
	Name string
	// Tool names the tool whose version the record carries (see versionSource).
	Tool string
	// Note says what the case shows; it is copied into case.json.
	Note string
	// Expect is the normal outcome.
	Expect Expect
	// Needs lists the setup phases the case depends on.
	Needs []Phase
	// Steps run in order; each adds one or more sides.
	Steps []Step
}

// ID returns "<group>/<name>".
func (s Spec) ID() string { return s.Group + "/" + s.Name }

// Step is one thing a case does. Exactly one field is set.
type Step struct {
	// Run runs one command to completion.
	Run *Command
	// Pair runs a server, waits until it is ready, runs the client and ends the server.
	Pair *Pair
	// Files copies files from /proc or /sys.
	Files *Snapshot
}

// Command is one process of a case.
type Command struct {
	// Role names the side and its output files (<role>.stdout, <role>.stderr).
	Role string
	// Argv is the command; it may contain placeholders.
	Argv []string
	// Netns is the network namespace to run in ("" for capture's own).
	Netns string
	// Stdbuf runs the command under "stdbuf -oL -eL", so that a killed process still leaves
	// its output.
	Stdbuf bool
	// Timeout bounds the run; 0 means DefaultTimeout. Options.TimeoutScale multiplies it.
	Timeout time.Duration
}

// DefaultTimeout bounds a command whose Timeout is 0.
const DefaultTimeout = 30 * time.Second

// Pair is a server and its client.
type Pair struct {
	// Server is started first; a nil Server means a client without a server.
	Server *Command
	// Client runs once the server is ready (or has exited, or did not become ready in time).
	Client Command
	// Port is the server's control port, for the readiness check.
	Port int
	// Ready says how to see that the server listens.
	Ready Readiness
	// StopServer ends the server after the client (netserver keeps running otherwise).
	StopServer bool
	// ServerGrace is how long a server that ends by itself (perftest) may take to exit after
	// its client; 0 means DefaultServerGrace.
	ServerGrace time.Duration
}

// DefaultServerGrace bounds how long a server may run on after its client.
const DefaultServerGrace = 15 * time.Second

// Snapshot copies files into the case directory, one RoleFile side per file.
type Snapshot struct {
	// Root is the directory in the case directory that mirrors the file system; "" means "tree".
	Root string
	// Paths are files, directories (copied recursively, regular files only) or glob patterns
	// (matching regular files only). A read error of a file found by a walk or a glob is data
	// (empty GID slots fail with EINVAL); a read error of a file named exactly fails the case.
	Paths []string
	// NumberedBelow, when positive, makes walks skip files whose name is a number at or
	// above it: rxe's GID table has 1024 slots, nearly all of them empty.
	NumberedBelow int
	// Netns reads the files in a network namespace with "ip netns exec NETNS cat PATH"
	// (for per-namespace files such as /proc/net/snmp). Paths must then be plain files.
	Netns string
}

// DefaultSnapshotRoot is the directory that mirrors the file system in a case directory.
const DefaultSnapshotRoot = "tree"

var caseIDPattern = regexp.MustCompile(`^[a-z]+/[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidID reports whether id is "<group>/<kebab-name>".
func ValidID(id string) bool { return caseIDPattern.MatchString(id) }

// commandLine joins argv into one line as a POSIX shell would read it back.
func commandLine(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./{}-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fields splits a table string into argv elements; the table never needs quoting.
func fields(s string) []string { return strings.Fields(s) }

// placeholders replaces the table's placeholders with the values of one run.
type placeholders struct {
	GIDIndex   int
	NICA, NICB string
	SelfPID    int
}

func (p placeholders) replacer() *strings.Replacer {
	return strings.NewReplacer(
		PlaceholderGID, fmt.Sprint(p.GIDIndex),
		PlaceholderNICA, p.NICA,
		PlaceholderNICB, p.NICB,
		PlaceholderSelfPID, fmt.Sprint(p.SelfPID),
	)
}

func (p placeholders) expandAll(argv []string) []string {
	r := p.replacer()
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}
