package host

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os/exec"
	"runtime"
	"strings"
)

// Sentinel errors. Callers test for them with errors.Is; the typed errors
// below wrap them, or the cause, and keep the details. A missing binary is
// reported with the standard library's exec.ErrNotFound (errors.Is(err,
// exec.ErrNotFound)), and a process killed because its context ended wraps
// that context's cause (errors.Is(err, context.DeadlineExceeded)).
var (
	// ErrUnsupportedOS is returned by runners that need Linux when the package
	// is built for another system.
	ErrUnsupportedOS = fmt.Errorf("host: not supported on %s/%s", runtime.GOOS, runtime.GOARCH)

	// ErrInvalidCmd means a Cmd cannot be run as given: no argv, a NUL byte
	// in an argument, or a malformed environment entry.
	ErrInvalidCmd = errors.New("host: invalid command")

	// ErrNoNamespace means the named network namespace does not exist
	// (there is no /run/netns/NAME). It matches fs.ErrNotExist too.
	ErrNoNamespace error = &notExistError{"host: no such network namespace"}

	// ErrKilled is the reason recorded in an ExitError when the process was
	// ended by Process.Kill or Process.Stop.
	ErrKilled = errors.New("host: killed on request")

	// ErrNotListening is wrapped by the readiness helpers when the port did
	// not reach LISTEN state before the context ended or the process exited.
	ErrNotListening = errors.New("host: port not listening")

	// ErrHostKey is matched by every HostKeyError: the SSH server's host key
	// is unknown, different from the known one, or revoked.
	ErrHostKey = errors.New("host: ssh host key not accepted")

	// ErrNotFound is exec.ErrNotFound, which a missing program's
	// StartError wraps: the packages above match it without importing
	// os/exec (host is the only package that starts processes).
	ErrNotFound = exec.ErrNotFound

	// ErrParse is wrapped by every parse failure of ParseTCPTable.
	ErrParse = errors.New("host: cannot parse")
)

// StartError means a command could not be started: the binary was not found
// (wraps exec.ErrNotFound), the namespace does not exist (ErrNoNamespace),
// the SSH session could not be opened, or the context had already ended.
type StartError struct {
	Where string   // the runner, as its String method prints it
	Argv  []string // the command as given
	Err   error
}

// Error says what could not be started where, and why.
func (e *StartError) Error() string {
	return fmt.Sprintf("host: start %s on %s: %v", argvName(e.Argv), e.Where, e.Err)
}

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }

// ExitError means a started process did not end successfully: it exited
// with a non-zero code, was killed by a signal, or its end could not be
// observed (Err, such as a lost SSH connection). It keeps the tail of the
// process's standard error. When rocekit killed the process, Killed says
// why: the cause of the context given to Start (context.Canceled,
// context.DeadlineExceeded, or a custom cause) or ErrKilled; errors.Is sees
// through to it.
type ExitError struct {
	Where  string
	Argv   []string
	Status ExitStatus
	Stderr string // the last StderrTailBytes of standard error
	Killed error  // why rocekit killed the process group, or nil
	Err    error  // why the exit status is unknown, or nil
}

// StderrTailBytes is how much of standard error an ExitError keeps.
const StderrTailBytes = 4096

// Error gives the command, the place, the status, why it was killed, and
// the last line of standard error.
func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "host: %s on %s: %v", argvName(e.Argv), e.Where, e.Status)
	if e.Killed != nil {
		fmt.Fprintf(&b, " (killed: %v)", e.Killed)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if last := lastLine(e.Stderr); last != "" {
		fmt.Fprintf(&b, ": %s", last)
	}
	return b.String()
}

// Unwrap returns Killed and Err, those that are set.
func (e *ExitError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Killed, e.Err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// HostKeyError means the SSH server at Addr presented a host key that the
// known_hosts files do not accept. Known is true when the files hold a
// different key for the host (a possible man-in-the-middle), false when the
// host is not in them at all. errors.Is(err, ErrHostKey) holds.
type HostKeyError struct {
	Addr  string
	Key   string // the presented key, in authorized_keys format
	Known bool
	Err   error // the knownhosts error (*knownhosts.KeyError, *knownhosts.RevokedError)
}

// Error names the server and the presented key.
func (e *HostKeyError) Error() string {
	what := "unknown host"
	if e.Known {
		what = "host key differs from known_hosts"
	}
	fix := fmt.Sprintf("if this is the right host, add its key: ssh-keyscan -p %s %s >> ~/.ssh/known_hosts (or -known-hosts FILE in the examples)", portOf(e.Addr), hostOf(e.Addr))
	if e.Known {
		fix = fmt.Sprintf("if the host was reinstalled, remove the old key with ssh-keygen -R %s and add the new one; otherwise do not connect", hostOf(e.Addr))
	}
	return fmt.Sprintf("host: ssh %s: %s (%v); presented %s; %s", e.Addr, what, e.Err, e.Key, fix)
}

func hostOf(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return h
}

func portOf(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "22"
	}
	return p
}

// LostError means the SSH connection to Addr was given up while commands
// ran on it: the keepalives went unanswered (the host or the network is
// gone) or the connection broke. The commands on it end with it.
type LostError struct {
	Addr string
	Err  error
}

// Error names the host and why the connection was given up.
func (e *LostError) Error() string {
	return fmt.Sprintf("host: ssh %s: connection lost: %v", e.Addr, e.Err)
}

// Unwrap returns the cause.
func (e *LostError) Unwrap() error { return e.Err }

// Unwrap returns the knownhosts error.
func (e *HostKeyError) Unwrap() error { return e.Err }

// Is reports whether target is ErrHostKey.
func (e *HostKeyError) Is(target error) bool { return target == ErrHostKey }

func argvName(argv []string) string {
	if len(argv) == 0 {
		return "(no command)"
	}
	return argv[0]
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// notExistError is a sentinel that also matches fs.ErrNotExist (host
// imports nothing of the module, so not internal/sentinel).
type notExistError struct{ msg string }

func (e *notExistError) Error() string { return e.msg }

// Is reports whether target is fs.ErrNotExist.
func (e *notExistError) Is(target error) bool { return target == fs.ErrNotExist }
