package perftest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrInvalidOptions is wrapped by every *OptionsError: Options that perftest
// would refuse, or that cannot give a meaningful pair. RunPair checks them
// before it starts anything.
var ErrInvalidOptions = errors.New("perftest: invalid options")

// OptionsError names the option that is wrong and why.
type OptionsError struct {
	Field string // the Options field: "Duration", "QPs", ...
	Msg   string // what is wrong with it
}

// Error returns "perftest: invalid options: FIELD: what is wrong".
func (e *OptionsError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrInvalidOptions, e.Field, e.Msg)
}

// Unwrap returns ErrInvalidOptions.
func (e *OptionsError) Unwrap() error { return ErrInvalidOptions }

func optionsErr(field, format string, args ...any) error {
	return &OptionsError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Test is one of the eight perftest BW and latency programs.
type Test int

// The tests: a verb (send, RDMA write, RDMA read, atomic) and a measure
// (bandwidth or latency). The zero value is no test.
const (
	SendBW    Test = iota + 1 // ib_send_bw
	WriteBW                   // ib_write_bw
	ReadBW                    // ib_read_bw
	AtomicBW                  // ib_atomic_bw
	SendLat                   // ib_send_lat
	WriteLat                  // ib_write_lat
	ReadLat                   // ib_read_lat
	AtomicLat                 // ib_atomic_lat
)

var testPrograms = [...]string{
	SendBW: "ib_send_bw", WriteBW: "ib_write_bw", ReadBW: "ib_read_bw", AtomicBW: "ib_atomic_bw",
	SendLat: "ib_send_lat", WriteLat: "ib_write_lat", ReadLat: "ib_read_lat", AtomicLat: "ib_atomic_lat",
}

// Tests returns every Test, BW tests first.
func Tests() []Test {
	return []Test{SendBW, WriteBW, ReadBW, AtomicBW, SendLat, WriteLat, ReadLat, AtomicLat}
}

// Valid reports whether t is one of the eight tests.
func (t Test) Valid() bool { return t >= SendBW && t <= AtomicLat }

// Program returns the perftest program of t: "ib_send_bw", ...
func (t Test) Program() string {
	if !t.Valid() {
		return ""
	}
	return testPrograms[t]
}

// String returns Program, or "Test(N)" for an invalid value.
func (t Test) String() string {
	if !t.Valid() {
		return "Test(" + strconv.Itoa(int(t)) + ")"
	}
	return testPrograms[t]
}

// MarshalText returns the program name, so a recorded Options reads
// "test": "ib_send_bw"; an invalid Test is an error.
func (t Test) MarshalText() ([]byte, error) {
	if !t.Valid() {
		return nil, optionsErr("Test", "no test chosen (%v)", t)
	}
	return []byte(testPrograms[t]), nil
}

// UnmarshalText reads a program name ("ib_send_bw"); "" is no test.
func (t *Test) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*t = 0
		return nil
	}
	tt, ok := TestOf(string(b))
	if !ok {
		return optionsErr("Test", "%q is not a perftest BW or latency program", b)
	}
	*t = tt
	return nil
}

// TestOf returns the Test of a program name or path ("ib_send_bw",
// "/usr/bin/ib_write_lat").
func TestOf(program string) (Test, bool) {
	program = program[strings.LastIndexByte(program, '/')+1:]
	for _, t := range Tests() {
		if testPrograms[t] == program {
			return t, true
		}
	}
	return 0, false
}

// Latency reports whether t is a latency test (ib_*_lat).
func (t Test) Latency() bool { return t >= SendLat && t <= AtomicLat }

// verb returns 0 send, 1 write, 2 read, 3 atomic.
func (t Test) verb() int { return int(t-SendBW) % 4 }

// Connection types perftest accepts with -c. Which ones a test supports
// depends on its verb: UD only with send, UC with send and write.
const (
	RC = "RC"
	UC = "UC"
	UD = "UD"
)

// DefaultPort is perftest's out-of-band TCP port (-p), which the server
// listens on.
const DefaultPort = 18515

// End is what one end of a pair runs on: its RDMA device, device port and
// GID index, the CPUs it is pinned to and flags of its own. Two hosts
// differ in these (rxe0 here, mlx5_1 there; GID 1 here, 3 there), so the
// server and the client each have an End; what the two must share is in
// Options. The zero End leaves every choice to perftest.
//
// Similar to: taskset -c 2 ib_send_bw -d rxe0 -i 1 -x 3
type End struct {
	// Device is the RDMA device (-d); "" lets perftest take the first
	// one.
	Device string `json:"device,omitempty"`
	// IBPort is the device port (-i), not the GID index (the runbooks'
	// "-i 1" is this); 0 means perftest's default, 1.
	IBPort int `json:"ib_port,omitempty"`
	// GIDIndex is the GID index (-x); nil leaves the choice to perftest.
	// new(3) gives -x 3. rxe.SelectGID picks one on the end's host.
	GIDIndex *int `json:"gid_index,omitempty"`
	// CPUs pin the end through host.Cmd.CPUs (a thread bound to them
	// locally, taskset over SSH); empty means no pinning. The argv stays
	// the program's own, so a host.Fake still finds its script by the
	// program name.
	CPUs []int `json:"cpus,omitempty"`
	// Extra are flags of this end only, after Options.Extra, for the
	// options perftest lets differ (-l, -e, --output ...). Flags that
	// must be symmetric, or that Options gives, are refused in them
	// unless Options.AllowAsymmetric is set (for tests of mismatched
	// pairs).
	Extra []string `json:"extra,omitempty"`
}

// gid returns the -x of the end, or -1 when there is none.
func (e End) gid() int {
	if e.GIDIndex == nil {
		return -1
	}
	return *e.GIDIndex
}

// Options describe one perftest run, from which the server and client
// command lines are made. Every field that perftest requires to be the same
// on both sides (§6 of the perftest reference: -a -b -c -D -m -n -q -s -R
// --report_gbits ...) exists once, so the two sides cannot disagree; what
// hosts differ in (device, IB port, GID index, CPUs, flags of one side)
// is in Server and Client. The zero value of every field but Test means
// perftest's default. Flags lists the perftest option of each field.
//
// Similar to: ib_send_bw -d rxe0 -x 3 -F -n 1000 --report_gbits (server)
// and the same with the server's address (client).
type Options struct {
	// Test is the program to run on both sides.
	Test Test `json:"test,omitempty"`

	// Server and Client are each end's device, IB port, GID index, CPUs
	// and flags of its own.
	Server End `json:"server,omitzero"`
	Client End `json:"client,omitzero"`

	// Iterations is -n (at least 5); Duration is -D in whole seconds.
	// Zero for both means perftest's default, 1000 iterations (5000 for
	// ib_write_bw).
	Iterations int           `json:"iterations,omitempty"`
	Duration   time.Duration `json:"duration_ns,omitempty"`
	// Size is the message size in bytes (-s); 0 means perftest's default
	// (65536 for BW, 2 for latency, 8 for atomic). AllSizes is -a: every
	// size from 2 to 2^23.
	Size     int  `json:"size,omitempty"`
	AllSizes bool `json:"all_sizes,omitempty"`
	// QPs is the number of queue pairs (-q), BW tests only; 0 means 1.
	QPs int `json:"qps,omitempty"`
	// Connection is the transport (-c): RC, UC or UD; "" means RC.
	Connection string `json:"connection,omitempty"`
	// MTU is -m: 256, 512, 1024, 2048 or 4096; 0 uses the port's active
	// MTU.
	MTU int `json:"mtu,omitempty"`
	// Bidirectional is -b, BW tests only.
	Bidirectional bool `json:"bidirectional,omitempty"`
	// ReportGbits is --report_gbits: BW in 10^9 bit/s instead of MiB/s.
	ReportGbits bool `json:"report_gbits,omitempty"`
	// Port is the out-of-band TCP port (-p); 0 means DefaultPort.
	Port int `json:"port,omitempty"`
	// RDMACM is -R: connect the QPs with rdma_cm (needs rdma_ucm).
	RDMACM bool `json:"rdma_cm,omitempty"`
	// TXDepth (-t) and RXDepth (-r) are the queue depths; 0 means
	// perftest's default.
	TXDepth int `json:"tx_depth,omitempty"`
	RXDepth int `json:"rx_depth,omitempty"`
	// InlineSize is -I, the inline data size of send and write tests;
	// 0 means perftest's default.
	InlineSize int `json:"inline_size,omitempty"`
	// QPTimeout is -u, the RC QP's transport timeout as an exponent:
	// 4.096 µs × 2^QPTimeout before a packet is sent again (perftest's
	// default 14 is 67 ms); 0 leaves the default. Raise it where the
	// peer answers late: emulated or loaded hosts make rdma_rxe
	// retransmit, and its retransmitted multi-packet sends end in
	// completion errors (measured in the lab with `lab rxe-errors`: none
	// with -u 22, failures at 14 and, on kernel 6.1, at 18).
	QPTimeout int `json:"qp_timeout,omitempty"`
	// NoFreqCheck is -F: do not warn (or, where there is no cpufreq,
	// fail) when the CPU frequency cannot be trusted. Leave it false on
	// hosts with cpufreq so that perftest's warning is kept.
	NoFreqCheck bool `json:"no_freq_check,omitempty"`
	// JSON adds --out_json and --out_json_file=JSONFile(role) to each side;
	// RunPair reads the files back.
	JSON bool `json:"json,omitempty"`
	// JSONDir is where the JSON files go; "" means /tmp.
	JSONDir string `json:"json_dir,omitempty"`
	// Extra flags are added to both sides, after the ones above. They must
	// not repeat a flag Options already gives.
	Extra []string `json:"extra,omitempty"`
	// AllowAsymmetric lets End.Extra carry flags that must be symmetric
	// or that Options gives (for tests of mismatched pairs).
	AllowAsymmetric bool `json:"allow_asymmetric,omitempty"`

	// Timeout bounds the whole pair; 0 means Deadline's estimate.
	Timeout time.Duration `json:"timeout_ns,omitempty"`
	// ServerGrace is how long RunPair lets the server run on once the
	// client ended before it stops it: after a successful client the
	// server is marked Process.StoppedAfterGrace and the pair succeeds;
	// after a failed one it had the time to print its own error. 0 means
	// 5 s.
	ServerGrace time.Duration `json:"server_grace_ns,omitempty"`
	// ClientGrace is how long RunPair lets the client run on once the
	// server failed, so that it prints its own error before it is
	// stopped. 0 means 5 s.
	ClientGrace time.Duration `json:"client_grace_ns,omitempty"`
}

// End returns the End of a role: Server or Client.
func (o Options) End(role Role) End {
	if role == Server {
		return o.Server
	}
	return o.Client
}

// endOf returns a pointer to the End of a role.
func (o *Options) endOf(role Role) *End {
	if role == Server {
		return &o.Server
	}
	return &o.Client
}

// serverGrace returns ServerGrace or its default.
func (o Options) serverGrace() time.Duration {
	if o.ServerGrace > 0 {
		return o.ServerGrace
	}
	return defaultGrace
}

// clientGrace returns ClientGrace or its default.
func (o Options) clientGrace() time.Duration {
	if o.ClientGrace > 0 {
		return o.ClientGrace
	}
	return defaultGrace
}

// Role is a side of a pair.
type Role string

// The two roles.
const (
	Server Role = "server"
	Client Role = "client"
)

var validMTUs = []int{256, 512, 1024, 2048, 4096}

// maxSize is the largest -s perftest takes for RC (2^31-1 would overflow its
// buffers on most hosts; -a goes up to 2^23).
const maxSize = 1 << 30

// Validate checks the combinations perftest refuses (or that hang): -D
// with -a, -D with -n, -q or -b on a latency test, a size on atomic tests
// other than 8, UD on anything but send, inline data on read and atomic,
// negative values. It returns an *OptionsError.
func (o Options) Validate() error {
	if !o.Test.Valid() {
		return optionsErr("Test", "no test chosen (%v)", o.Test)
	}
	for _, check := range []func() error{o.checkCounts, o.checkSize, o.checkTransport, o.checkLimits, o.checkPlacement, o.checkExtra} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkCounts refuses negative numbers and the -n and -D combinations
// perftest refuses.
func (o Options) checkCounts() error {
	for _, f := range []struct {
		name string
		v    int
	}{
		{"Iterations", o.Iterations}, {"Size", o.Size}, {"QPs", o.QPs},
		{"MTU", o.MTU}, {"Port", o.Port}, {"TXDepth", o.TXDepth}, {"RXDepth", o.RXDepth},
		{"InlineSize", o.InlineSize}, {"QPTimeout", o.QPTimeout},
	} {
		if f.v < 0 {
			return optionsErr(f.name, "negative value %d", f.v)
		}
	}
	if o.Duration < 0 {
		return optionsErr("Duration", "negative duration %v", o.Duration)
	}
	if o.Timeout < 0 {
		return optionsErr("Timeout", "negative timeout %v", o.Timeout)
	}
	if o.Iterations > 0 && o.Iterations < 5 {
		return optionsErr("Iterations", "%d is below perftest's minimum of 5", o.Iterations)
	}
	if o.Duration > 0 {
		if o.Duration%time.Second != 0 {
			return optionsErr("Duration", "%v is not a whole number of seconds (-D takes seconds)", o.Duration)
		}
		if o.Iterations > 0 {
			return optionsErr("Duration", "-D and -n exclude each other: set Iterations or Duration")
		}
		if o.AllSizes {
			return optionsErr("Duration", "-D cannot be used with -a (perftest: \"Duration mode currently doesn't support running on all sizes\")")
		}
	}
	return nil
}

// checkSize refuses -s with -a, sizes perftest cannot allocate, and sizes
// atomics do not have.
func (o Options) checkSize() error {
	if o.AllSizes && o.Size != 0 {
		return optionsErr("Size", "-s and -a exclude each other")
	}
	if o.Size > maxSize {
		return optionsErr("Size", "%d bytes is more than %d", o.Size, maxSize)
	}
	verb := o.Test.verb()
	if verb == 3 && o.Size != 0 && o.Size != 8 {
		return optionsErr("Size", "atomic operations are 8 bytes, not %d", o.Size)
	}
	if verb == 3 && o.AllSizes {
		return optionsErr("AllSizes", "atomic tests have one size (8 bytes)")
	}
	return nil
}

// checkTransport refuses what the test's verb or the connection type
// cannot do: -q and -b on latency tests, UC and UD beyond their verbs,
// inline data on read and atomic, an MTU IB does not have.
func (o Options) checkTransport() error {
	verb := o.Test.verb()
	if o.Test.Latency() {
		if o.QPs > 1 {
			return optionsErr("QPs", "-q is for BW tests only (%v)", o.Test)
		}
		if o.Bidirectional {
			return optionsErr("Bidirectional", "-b is for BW tests only (%v)", o.Test)
		}
	}
	if o.MTU != 0 && !slices.Contains(validMTUs, o.MTU) {
		return optionsErr("MTU", "%d is not one of 256, 512, 1024, 2048, 4096", o.MTU)
	}
	switch o.Connection {
	case "", RC:
	case UC:
		if verb >= 2 {
			return optionsErr("Connection", "UC does not support %v (RDMA read and atomics need RC)", o.Test)
		}
	case UD:
		if verb != 0 {
			return optionsErr("Connection", "UD supports send only, not %v", o.Test)
		}
		if o.MTU != 0 && o.Size > o.MTU {
			return optionsErr("Size", "UD messages must fit the MTU: %d > %d", o.Size, o.MTU)
		}
	default:
		return optionsErr("Connection", "%q is not RC, UC or UD", o.Connection)
	}
	if o.InlineSize > 0 && verb >= 2 {
		return optionsErr("InlineSize", "-I is for send and write tests only (%v)", o.Test)
	}
	return nil
}

// checkLimits refuses values above perftest's or the protocol's maximum.
func (o Options) checkLimits() error {
	if o.QPTimeout > 31 {
		return optionsErr("QPTimeout", "%d is above the 5-bit field's 31", o.QPTimeout)
	}
	if o.InlineSize > 1024 {
		return optionsErr("InlineSize", "%d is above perftest's maximum of 1024 (912 before 24.x)", o.InlineSize)
	}
	if o.Port > 65535 {
		return optionsErr("Port", "%d is not a TCP port", o.Port)
	}
	return nil
}

// checkPlacement refuses negative IB ports, GID indices and CPUs, and
// device names or a JSONDir that would split the command line.
func (o Options) checkPlacement() error {
	for _, role := range []Role{Server, Client} {
		e, name := o.End(role), endName(role)
		if e.IBPort < 0 {
			return optionsErr(name+".IBPort", "negative value %d", e.IBPort)
		}
		if e.GIDIndex != nil && *e.GIDIndex < 0 {
			return optionsErr(name+".GIDIndex", "negative GID index %d", *e.GIDIndex)
		}
		for _, c := range e.CPUs {
			if c < 0 {
				return optionsErr(name+".CPUs", "negative CPU %d", c)
			}
		}
		if strings.HasPrefix(e.Device, "-") || strings.ContainsAny(e.Device, "\x00 \t\n") {
			return optionsErr(name+".Device", "%q: device names cannot start with - or hold spaces or NUL", e.Device)
		}
	}
	if strings.ContainsAny(o.JSONDir, "\x00 \t\n") {
		return optionsErr("JSONDir", "JSONDir cannot hold spaces or NUL")
	}
	return nil
}

// endName is the Options field of a role's End: "Server", "Client".
func endName(role Role) string {
	if role == Server {
		return "Server"
	}
	return "Client"
}

// checkExtra refuses extra flags that repeat a flag Options gives, and,
// unless AllowAsymmetric, one-side flags that must be symmetric.
func (o Options) checkExtra() error {
	// Extra flags must not repeat a flag Options gives: perftest 23.04+
	// refuses duplicates, older ones take the last.
	for _, a := range o.Extra {
		if f, ok := lookupFlag(a); ok && f.modelled() && (f.end || len(f.emit(&o, Server)) > 0) {
			return optionsErr("Extra", "%s is already given by Options (%s)", a, f.Field)
		}
	}
	if o.AllowAsymmetric {
		return nil
	}
	for _, role := range []Role{Server, Client} {
		for _, a := range o.End(role).Extra {
			f, ok := lookupFlag(a)
			switch {
			case !ok:
			case f.Symmetric:
				return optionsErr(endName(role)+".Extra", "%s must be the same on both sides: put it in Options or Extra", a)
			case f.modelled() && len(f.emit(&o, role)) > 0:
				return optionsErr(endName(role)+".Extra", "%s is already given by Options (%s)", a, f.Field)
			}
		}
	}
	return nil
}

// port returns the TCP port the server listens on.
func (o Options) port() int {
	if o.Port == 0 {
		return DefaultPort
	}
	return o.Port
}

// JSONFile returns the --out_json_file of a side:
// JSONDir/perftest-PORT-ROLE.json.
func (o Options) JSONFile(role Role) string {
	dir := o.JSONDir
	if dir == "" {
		dir = "/tmp"
	}
	return strings.TrimSuffix(dir, "/") + "/perftest-" + strconv.Itoa(o.port()) + "-" + string(role) + ".json"
}

// CPUs returns the CPUs a side is pinned to (its End's CPUs), which
// RunPair gives the side's host.Cmd.
//
// Similar to: taskset -c 2,3 ib_send_bw ...
func (o Options) CPUs(role Role) []int { return o.End(role).CPUs }

// ServerArgv returns the server's command line: the client's without the
// address (and with the server's End).
//
// Similar to: ib_send_bw -d rxe0 -x 1 -F -n 1000 -p 18515
func (o Options) ServerArgv() ([]string, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o.argv(Server, ""), nil
}

// ClientArgv returns the client's command line, which connects to
// serverAddr.
//
// Similar to: ib_send_bw -d rxe0 -x 1 -F -n 1000 -p 18515 198.18.80.1
func (o Options) ClientArgv(serverAddr string) ([]string, error) {
	if err := checkAddr(serverAddr); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o.argv(Client, serverAddr), nil
}

// checkAddr refuses a server address that is not one word.
func checkAddr(serverAddr string) error {
	if serverAddr == "" || strings.HasPrefix(serverAddr, "-") || strings.ContainsAny(serverAddr, " \t\n\x00") {
		return optionsErr("serverAddr", "%q is not a host name or address", serverAddr)
	}
	return nil
}

// Deadline estimates how long a pair with these options may take before
// RunPair gives up on it: a startup allowance plus the run at a pessimistic
// rate (1 MB/s and 2 ms per iteration for BW, 50 ms per iteration for
// latency, as soft-RoCE in an emulated VM manages; -D plus its margins).
// Set Options.Timeout for a bound of your own.
func (o Options) Deadline() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	const startup = 30 * time.Second
	if o.Duration > 0 {
		return startup + 2*o.Duration
	}
	iters := o.Iterations
	if iters == 0 {
		iters = 1000
		if o.Test == WriteBW {
			iters = 5000
		}
	}
	var sizes []int
	switch {
	case o.AllSizes:
		for s := 2; s <= 1<<23; s *= 2 {
			sizes = append(sizes, s)
		}
	case o.Size > 0:
		sizes = []int{o.Size}
	case o.Test.verb() == 3:
		sizes = []int{8}
	case o.Test.Latency():
		sizes = []int{2}
	default:
		sizes = []int{65536}
	}
	mult := max(o.QPs, 1)
	if o.Bidirectional {
		mult *= 2
	}
	perIter := 2 * time.Millisecond
	if o.Test.Latency() {
		perIter = 50 * time.Millisecond
	}
	d := startup
	for _, s := range sizes {
		bytes := float64(s) * float64(iters) * float64(mult)
		d += time.Duration(bytes/1e6*float64(time.Second)) + time.Duration(iters*mult)*perIter
	}
	return d
}
