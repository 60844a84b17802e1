package perftest

import (
	"bytes"
	"iter"
	"strings"
)

// failurePattern recognises one failure message of perftest: a line that
// contains every string of all. When lines of several kinds appear (both
// sides' output, or a cascade on one side), the kind with the highest prio
// wins: the root cause comes first, its consequences (the peer's handshake
// error, a generic "Failed to complete run_iter") rank lower.
type failurePattern struct {
	all  []string
	kind ErrorKind
	prio int
}

var failurePatterns = []failurePattern{
	// 26.01.5+ negotiate_params(): " %s mismatch: local=%s, remote=%s".
	{[]string{"mismatch: local="}, KindParamMismatch, 100},
	{[]string{"Failed to negotiate parameters"}, KindParamMismatch, 100},

	{[]string{"Gid index should be between"}, KindGIDIndex, 90},
	{[]string{"Incompatibility issue with GID types"}, KindGIDIndex, 90},
	{[]string{"Please Try to use a different IP version"}, KindGIDIndex, 90},

	{[]string{"Invalid Command or flag"}, KindInvalidOption, 85},
	{[]string{"Invalid Command line"}, KindInvalidOption, 85},
	{[]string{"Parser function exited with Error"}, KindInvalidOption, 85},
	{[]string{"Invalid verbosity level output flag"}, KindInvalidOption, 85},
	{[]string{"Duplicated argument"}, KindInvalidOption, 85},
	{[]string{"Duration mode currently doesn't support running on all sizes"}, KindInvalidOption, 85},
	{[]string{"report per port feature work only with"}, KindInvalidOption, 85},
	{[]string{"unrecognized option"}, KindInvalidOption, 85},
	{[]string{"invalid option --"}, KindInvalidOption, 85},
	{[]string{"option requires an argument"}, KindInvalidOption, 85},

	{[]string{"IB device", "not found"}, KindDeviceNotFound, 80},
	{[]string{"Unable to find the Infiniband/RoCE device"}, KindDeviceNotFound, 80},
	{[]string{"Did not detect devices"}, KindDeviceNotFound, 80},
	{[]string{"If device exists, check if driver is up"}, KindDeviceNotFound, 80},
	{[]string{"No IB devices found"}, KindDeviceNotFound, 80},
	{[]string{"Couldn't get context for the device"}, KindDeviceNotFound, 80},
	{[]string{"Port number", "state is"}, KindDeviceNotFound, 80},
	{[]string{"Couldn't set the link layer"}, KindDeviceNotFound, 80},

	{[]string{"Completion with error at"}, KindCompletion, 70},
	{[]string{"Failed status"}, KindCompletion, 70},
	{[]string{"scnt=", "ccnt="}, KindCompletion, 70},
	{[]string{"rcnt="}, KindCompletion, 70},
	// --run_infinitely (run_infinitely_bw*): the server's only word of it.
	{[]string{"Error occurred while running infinitely"}, KindCompletion, 70},

	{[]string{"Did not get Message for"}, KindTimeout, 65},
	{[]string{"Total Received=", "Total Iters Required="}, KindTimeout, 65},

	{[]string{"Failed to modify QP"}, KindQPTransition, 60},
	{[]string{"Failed to modify UD QP"}, KindQPTransition, 60},
	{[]string{"Unable to Connect the HCA's through the link"}, KindQPTransition, 60},

	{[]string{"is below bw limit"}, KindBelowLimit, 55},
	{[]string{"is below msg_rate limit"}, KindBelowLimit, 55},

	{[]string{"Couldn't allocate"}, KindResources, 50},
	{[]string{"Couldn't create"}, KindResources, 50},
	{[]string{"Couldn't register"}, KindResources, 50},
	{[]string{"Failed to create QP"}, KindResources, 50},
	{[]string{"Failed to create CQ"}, KindResources, 50},
	{[]string{"Failed to allocate"}, KindResources, 50},

	{[]string{"rdma_create_event_channel failed"}, KindConnectFailed, 40},
	{[]string{"Unable to create RDMA_CM resources"}, KindConnectFailed, 40},
	{[]string{"resources needed by comm struct"}, KindConnectFailed, 40},
	{[]string{"Unable to perform rdma_client function"}, KindConnectFailed, 40},
	{[]string{"Unable to perform rdma_server function"}, KindConnectFailed, 40},
	{[]string{"Couldn't connect to"}, KindConnectFailed, 40},
	{[]string{"Couldn't listen to port"}, KindConnectFailed, 40},
	{[]string{"accept() failed"}, KindConnectFailed, 40},
	{[]string{"Unable to open file descriptor for socket connection"}, KindConnectFailed, 40},
	{[]string{"Unable to init the socket connection"}, KindConnectFailed, 40},
	{[]string{"Problem in resolving basic address and port"}, KindConnectFailed, 40},

	// ctx_close_connection: the last exchange, after the results. Above
	// the handshake messages printed with it, below every root cause.
	{[]string{"Failed to close connection between server and client"}, KindTeardown, 35},

	{[]string{"ethernet_read_keys"}, KindHandshake, 30},
	{[]string{"ethernet_write_keys"}, KindHandshake, 30},
	{[]string{"Couldn't read remote address"}, KindHandshake, 30},
	{[]string{"socket/rdma_cm"}, KindHandshake, 30},
	// perftest's own spelling in ctx_xchg_data's messages.
	{[]string{"socket/rdam_cm"}, KindHandshake, 30},
	{[]string{"Failed to exchange data between server and clients"}, KindHandshake, 30},
	{[]string{"not compatible with versions older than"}, KindHandshake, 30},

	// A run loop that failed without a completion error of its own: the
	// consequence of something else, unless nothing else was printed.
	{[]string{"Failed to complete run_iter"}, KindCompletion, 20},
	// A flushed work request while the connection is torn down.
	{[]string{"Bad wc status"}, KindCompletion, 20},
}

// classifyLine returns the failure kind of a line and its priority, or
// KindUnknown and 0.
func classifyLine(line string) (ErrorKind, int) {
	for i := range failurePatterns {
		p := &failurePatterns[i]
		ok := true
		for _, s := range p.all {
			if !strings.Contains(line, s) {
				ok = false
				break
			}
		}
		if ok {
			return p.kind, p.prio
		}
	}
	return KindUnknown, 0
}

// failures collects the failure lines of one or more outputs.
type failures struct {
	lines []string
	kinds []ErrorKind
	best  ErrorKind
	prio  int
}

func (f *failures) add(line string, kind ErrorKind, prio int) {
	f.lines = append(f.lines, line)
	f.kinds = append(f.kinds, kind)
	if prio > f.prio {
		f.best, f.prio = kind, prio
	}
}

// err returns the *Error the collected lines make, or nil.
func (f *failures) err() *Error {
	if len(f.lines) == 0 {
		return nil
	}
	var decided []string
	for i, l := range f.lines {
		if f.kinds[i] == f.best {
			decided = append(decided, l)
		}
	}
	return &Error{
		Kind:    f.best,
		Message: joinTrimmed(decided, "; "),
		Raw:     strings.Join(f.lines, "\n"),
	}
}

// Classify looks for perftest failure messages in outputs (stdout and
// stderr of one side or of both, in any order) and returns them as an
// *Error, or nil when there are none. When several kinds appear, the root
// cause wins: a parameter mismatch over a completion error, a completion
// error on the client over the server's handshake error that followed it.
//
// Similar to: grep -E 'Couldn.t|Unable|Failed|Completion with error' server.err client.err
func Classify(outputs ...[]byte) error {
	var f failures
	for _, out := range outputs {
		for line := range lines(out) {
			if kind, prio := classifyLine(string(line)); kind != KindUnknown {
				f.add(string(line), kind, prio)
			}
		}
	}
	if e := f.err(); e != nil {
		return e
	}
	return nil
}

// lines yields the lines of data as nextLine cuts them.
func lines(data []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for len(data) > 0 {
			var line []byte
			line, data = nextLine(data)
			if !yield(line) {
				return
			}
		}
	}
}

// nextLine splits data at the first newline and returns the line without
// its "\n" or "\r\n", and the rest.
func nextLine(data []byte) (line, rest []byte) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return bytes.TrimSuffix(data, []byte("\r")), nil
	}
	return bytes.TrimSuffix(data[:i], []byte("\r")), data[i+1:]
}
