package perftest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
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

// GIDChooser picks the GID index (-x) of one side. RunPair calls it once
// per side, before anything starts, with the runner and the device of that
// side. perftest does not import rxe: pass GIDIndex for a fixed index, or a
// GIDChooserFunc that reads the GID table (rxe.Root.GIDTable and
// rxe.SelectGID) on the side's host.
type GIDChooser interface {
	ChooseGID(ctx context.Context, r host.Runner, device string, ibPort int) (int, error)
}

// GIDIndex is a fixed GID index, the same on both sides.
//
// Similar to: ib_send_bw -x 3
type GIDIndex int

// ChooseGID returns i.
func (i GIDIndex) ChooseGID(context.Context, host.Runner, string, int) (int, error) {
	return int(i), nil
}

// GIDChooserFunc adapts a function to GIDChooser.
type GIDChooserFunc func(ctx context.Context, r host.Runner, device string, ibPort int) (int, error)

// ChooseGID calls f.
func (f GIDChooserFunc) ChooseGID(ctx context.Context, r host.Runner, device string, ibPort int) (int, error) {
	return f(ctx, r, device, ibPort)
}

// DefaultPort is perftest's out-of-band TCP port (-p), which the server
// listens on.
const DefaultPort = 18515

// Options describe one perftest run, from which the server and client
// command lines are made. Every field that perftest requires to be the same
// on both sides (§6 of the perftest reference: -a -b -c -D -m -n -q -s -R
// --report_gbits ...) exists once, so the two sides cannot disagree; Device,
// IB port, GID index and CPU pinning are per side where hosts differ. The
// zero value of every field but Test means perftest's default.
//
// Similar to: ib_send_bw -d rxe0 -x 3 -F -n 1000 --report_gbits (server)
// and the same with the server's address (client).
type Options struct {
	// Test is the program to run on both sides.
	Test Test

	// Device is the RDMA device (-d) of both sides; "" lets perftest take
	// the first one. ClientDevice, when set, is the client's instead.
	Device       string
	ClientDevice string
	// IBPort is the device port (-i); 0 means perftest's default, 1.
	IBPort int
	// GID chooses the GID index (-x) of each side; nil leaves the choice to
	// perftest. GIDIndex(n) gives -x n on both sides.
	GID GIDChooser

	// Iterations is -n (at least 5); Duration is -D in whole seconds.
	// Zero for both means perftest's default, 1000 iterations (5000 for
	// ib_write_bw).
	Iterations int
	Duration   time.Duration
	// Size is the message size in bytes (-s); 0 means perftest's default
	// (65536 for BW, 2 for latency, 8 for atomic). AllSizes is -a: every
	// size from 2 to 2^23.
	Size     int
	AllSizes bool
	// QPs is the number of queue pairs (-q), BW tests only; 0 means 1.
	QPs int
	// Connection is the transport (-c): RC, UC or UD; "" means RC.
	Connection string
	// MTU is -m: 256, 512, 1024, 2048 or 4096; 0 uses the port's active
	// MTU.
	MTU int
	// Bidirectional is -b, BW tests only.
	Bidirectional bool
	// ReportGbits is --report_gbits: BW in 10^9 bit/s instead of MiB/s.
	ReportGbits bool
	// Port is the out-of-band TCP port (-p); 0 means DefaultPort.
	Port int
	// RDMACM is -R: connect the QPs with rdma_cm (needs rdma_ucm).
	RDMACM bool
	// TXDepth (-t) and RXDepth (-r) are the queue depths; 0 means
	// perftest's default.
	TXDepth, RXDepth int
	// InlineSize is -I, the inline data size of send and write tests;
	// 0 means perftest's default.
	InlineSize int
	// QPTimeout is -u, the RC QP's transport timeout as an exponent:
	// 4.096 µs × 2^QPTimeout before a packet is sent again (perftest's
	// default 14 is 67 ms); 0 leaves the default. Raise it where the
	// peer answers late: emulated or loaded hosts make rdma_rxe
	// retransmit, and its retransmitted multi-packet sends end in
	// completion errors (measured in the lab with `lab rxe-errors`: none
	// with -u 22, failures at 14 and, on kernel 6.1, at 18).
	QPTimeout int
	// NoFreqCheck is -F: do not fail or warn when the CPU frequency
	// cannot be trusted (always wanted in VMs).
	NoFreqCheck bool
	// ServerCPUs and ClientCPUs pin each side to CPUs through
	// host.Cmd.CPUs (a thread bound to them locally, taskset over SSH);
	// empty means no pinning. The argv stays the program's own, so a
	// host.Fake still finds its script by the program name.
	ServerCPUs, ClientCPUs []int
	// JSON adds --out_json and --out_json_file=JSONFile(role) to each side;
	// RunPair reads the files back.
	JSON bool
	// JSONDir is where the JSON files go; "" means /tmp.
	JSONDir string
	// Extra flags are added to both sides, after the ones above. They must
	// not repeat a flag Options already gives.
	Extra []string
	// ServerExtra and ClientExtra are flags of one side only, for options
	// perftest lets differ (-F, -u, -l, -e, --output ...). Flags that must
	// be symmetric are refused in them unless AllowAsymmetric is set
	// (for tests of mismatched pairs).
	ServerExtra, ClientExtra []string
	AllowAsymmetric          bool

	// Timeout bounds the whole pair; 0 means Deadline's estimate.
	Timeout time.Duration
	// ServerGrace is how long RunPair lets the server run on once the
	// client ended before it stops it: after a successful client the
	// server is marked Process.StoppedAfterGrace and the pair succeeds;
	// after a failed one it had the time to print its own error. 0 means
	// 5 s.
	ServerGrace time.Duration
	// ClientGrace is how long RunPair lets the client run on once the
	// server failed, so that it prints its own error before it is
	// stopped. 0 means 5 s.
	ClientGrace time.Duration
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

// symmetricFlags must be identical on both sides (perftest -h marks them
// SYMMETRIC from 25.04; -R and --data_validation too).
var symmetricFlags = []string{
	"-a", "--all", "-A", "--atomic_type", "-b", "--bidirectional", "-c", "--connection",
	"-D", "--duration", "-f", "--margin", "-g", "--mcg", "-m", "--mtu", "-n", "--iters",
	"-O", "--dualport", "-p", "--port", "-q", "--qp", "-s", "--size", "-z", "--comm_rdma_cm",
	"-R", "--rdma_cm", "--report_gbits", "--reversed", "--run_infinitely", "--ipv6-addr",
	"--no_enhanced_reorder", "--write_with_imm", "--data_validation",
}

// longFlags maps perftest's long options to the short ones Options gives.
var longFlags = map[string]string{
	"--ib-dev": "-d", "--ib-port": "-i", "--gid-index": "-x", "--CPU-freq": "-F",
	"--connection": "-c", "--all": "-a", "--size": "-s", "--iters": "-n", "--duration": "-D",
	"--qp": "-q", "--mtu": "-m", "--bidirectional": "-b", "--tx-depth": "-t", "--rx-depth": "-r",
	"--inline_size": "-I", "--rdma_cm": "-R", "--port": "-p", "--qp-timeout": "-u",
}

// flagName returns the option name of an argument, long options as their
// short form: "-n" of "-n" and "--iters=5", "--report_gbits"; "" for a
// value.
func flagName(arg string) string {
	n := rawFlagName(arg)
	if short, ok := longFlags[n]; ok {
		return short
	}
	return n
}

func rawFlagName(arg string) string {
	if !strings.HasPrefix(arg, "-") || len(arg) < 2 {
		return ""
	}
	if _, err := strconv.ParseFloat(arg, 64); err == nil {
		return "" // a negative number is a value
	}
	if name, _, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(arg, "--") {
		return name
	}
	if !strings.HasPrefix(arg, "--") && len(arg) > 2 {
		return arg[:2] // "-n300"
	}
	return arg
}

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
		{"IBPort", o.IBPort}, {"Iterations", o.Iterations}, {"Size", o.Size}, {"QPs", o.QPs},
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

// checkPlacement refuses negative CPUs and device names or a JSONDir that
// would split the command line.
func (o Options) checkPlacement() error {
	for _, cpus := range []struct {
		name string
		v    []int
	}{{"ServerCPUs", o.ServerCPUs}, {"ClientCPUs", o.ClientCPUs}} {
		for _, c := range cpus.v {
			if c < 0 {
				return optionsErr(cpus.name, "negative CPU %d", c)
			}
		}
	}
	if strings.ContainsAny(o.Device+o.ClientDevice+o.JSONDir, "\x00 \t\n") {
		return optionsErr("Device", "device names and JSONDir cannot hold spaces or NUL")
	}
	return nil
}

// checkExtra refuses extra flags that repeat a flag Options gives, and,
// unless AllowAsymmetric, one-side flags that must be symmetric.
func (o Options) checkExtra() error {
	// Extra flags must not repeat a flag Options gives: perftest 23.04+
	// refuses duplicates, older ones take the last.
	given := map[string]bool{}
	for _, a := range o.owned() {
		if n := flagName(a); n != "" {
			given[n] = true
		}
	}
	given["-d"], given["-i"], given["-x"] = true, true, true
	for _, a := range o.Extra {
		if n := flagName(a); n != "" && given[n] {
			return optionsErr("Extra", "%s is already given by Options", a)
		}
	}
	for _, side := range []struct {
		name string
		v    []string
	}{{"ServerExtra", o.ServerExtra}, {"ClientExtra", o.ClientExtra}} {
		for _, a := range side.v {
			n := flagName(a)
			if n == "" {
				continue
			}
			if !o.AllowAsymmetric && slices.Contains(symmetricFlags, n) {
				return optionsErr(side.name, "%s must be the same on both sides: put it in Options or Extra", a)
			}
			if !o.AllowAsymmetric && given[n] {
				return optionsErr(side.name, "%s is already given by Options", a)
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

// common returns the flags that are the same on both sides, in a fixed
// order: those of the fields, then Extra.
func (o Options) common() []string { return append(o.owned(), o.Extra...) }

// owned returns the flags Options' fields give to both sides.
func (o Options) owned() []string {
	var a []string
	if o.NoFreqCheck {
		a = append(a, "-F")
	}
	if o.Connection != "" {
		a = append(a, "-c", o.Connection)
	}
	if o.AllSizes {
		a = append(a, "-a")
	}
	if o.Size > 0 {
		a = append(a, "-s", strconv.Itoa(o.Size))
	}
	if o.Iterations > 0 {
		a = append(a, "-n", strconv.Itoa(o.Iterations))
	}
	if o.Duration > 0 {
		a = append(a, "-D", strconv.Itoa(int(o.Duration/time.Second)))
	}
	if o.QPs > 0 {
		a = append(a, "-q", strconv.Itoa(o.QPs))
	}
	if o.MTU > 0 {
		a = append(a, "-m", strconv.Itoa(o.MTU))
	}
	if o.Bidirectional {
		a = append(a, "-b")
	}
	if o.TXDepth > 0 {
		a = append(a, "-t", strconv.Itoa(o.TXDepth))
	}
	if o.RXDepth > 0 {
		a = append(a, "-r", strconv.Itoa(o.RXDepth))
	}
	if o.InlineSize > 0 {
		a = append(a, "-I", strconv.Itoa(o.InlineSize))
	}
	if o.QPTimeout > 0 {
		a = append(a, "-u", strconv.Itoa(o.QPTimeout))
	}
	if o.RDMACM {
		a = append(a, "-R")
	}
	if o.ReportGbits {
		a = append(a, "--report_gbits")
	}
	return append(a, "-p", strconv.Itoa(o.port()))
}

// device returns the -d of a side.
func (o Options) device(role Role) string {
	if role == Client && o.ClientDevice != "" {
		return o.ClientDevice
	}
	return o.Device
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

// argv builds one side's command line; gid < 0 gives no -x. The client
// gets serverAddr last.
func (o Options) argv(role Role, serverAddr string, gid int) []string {
	a := []string{o.Test.Program()}
	if d := o.device(role); d != "" {
		a = append(a, "-d", d)
	}
	if o.IBPort > 0 {
		a = append(a, "-i", strconv.Itoa(o.IBPort))
	}
	if gid >= 0 {
		a = append(a, "-x", strconv.Itoa(gid))
	}
	a = append(a, o.common()...)
	if role == Server {
		a = append(a, o.ServerExtra...)
	} else {
		a = append(a, o.ClientExtra...)
	}
	if o.JSON {
		a = append(a, "--out_json", "--out_json_file="+o.JSONFile(role))
	}
	if role == Client {
		a = append(a, serverAddr)
	}
	return a
}

// CPUs returns the CPUs a side is pinned to (ServerCPUs or ClientCPUs),
// which RunPair gives the side's host.Cmd.
//
// Similar to: taskset -c 2,3 ib_send_bw ...
func (o Options) CPUs(role Role) []int {
	if role == Server {
		return o.ServerCPUs
	}
	return o.ClientCPUs
}

// ErrGIDChooser means Argv was asked for a command line while Options.GID
// must run to choose the index: use RunPair, or pass a GIDIndex.
var ErrGIDChooser = errors.New("perftest: the GID index needs its chooser to run (use RunPair or a GIDIndex)")

// ServerArgv returns the server's command line: the client's without the
// address. Options.GID must be nil or a GIDIndex.
//
// Similar to: ib_send_bw -d rxe0 -x 1 -F -n 1000 -p 18515
func (o Options) ServerArgv() ([]string, error) { return o.staticArgv(Server, "") }

// ClientArgv returns the client's command line, which connects to
// serverAddr. Options.GID must be nil or a GIDIndex.
//
// Similar to: ib_send_bw -d rxe0 -x 1 -F -n 1000 -p 18515 198.18.80.1
func (o Options) ClientArgv(serverAddr string) ([]string, error) {
	if serverAddr == "" || strings.HasPrefix(serverAddr, "-") || strings.ContainsAny(serverAddr, " \t\n\x00") {
		return nil, optionsErr("serverAddr", "%q is not a host name or address", serverAddr)
	}
	return o.staticArgv(Client, serverAddr)
}

func (o Options) staticArgv(role Role, addr string) ([]string, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	gid := -1
	switch g := o.GID.(type) {
	case nil:
	case GIDIndex:
		if g < 0 {
			return nil, optionsErr("GID", "negative GID index %d", int(g))
		}
		gid = int(g)
	default:
		return nil, ErrGIDChooser
	}
	return o.argv(role, addr, gid), nil
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
