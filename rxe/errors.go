package rxe

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/rocekit/rocekit/internal/sentinel"
)

// Sentinel errors. Operations return an *Error whose Kind is one of these, so
// callers write errors.Is(err, rxe.ErrLinkExists); the kernel's errno stays
// reachable too (errors.Is(err, unix.EEXIST)). ErrModuleMissing,
// ErrNetdevNotFound and ErrDeviceNotFound also match fs.ErrNotExist.
var (
	// ErrUnsupportedOS: the operation needs Linux.
	ErrUnsupportedOS = errors.New("rxe: not supported on " + runtime.GOOS)
	// ErrNoRDMA: the kernel has no RDMA netlink (EPROTONOSUPPORT), i.e. no
	// CONFIG_INFINIBAND or ib_core cannot be loaded.
	ErrNoRDMA = errors.New("rxe: kernel has no RDMA support")
	// ErrModuleMissing: rdma_rxe is neither loaded, built in, nor installed.
	ErrModuleMissing = sentinel.NotExist("rxe: rdma_rxe module not available")
	// ErrNetdevNotFound: the netdev does not exist in the handle's namespace.
	ErrNetdevNotFound = sentinel.NotExist("rxe: netdev not found")
	// ErrLinkExists: the link name is taken or the netdev already carries an
	// rxe link.
	ErrLinkExists = errors.New("rxe: link already exists")
	// ErrNetdevUnusable: the kernel refuses rxe on this netdev (a VLAN).
	// The Error's Diagnosis gives the way around (a macvlan over it).
	ErrNetdevUnusable = errors.New("rxe: netdev cannot carry an rxe link")
	// ErrLinkAddUnsupported: the kernel's RDMA netlink has no "link add"
	// (EOPNOTSUPP: before Linux 5.1 soft-RoCE links were made through
	// rdma_rxe's module parameter, rxe_cfg's way).
	ErrLinkAddUnsupported = errors.New("rxe: kernel cannot add RDMA links over netlink")
	// ErrDeviceNotFound: no RDMA device or port of that name or number.
	ErrDeviceNotFound = sentinel.NotExist("rxe: RDMA device not found")
	// ErrNotSoftLink: the device is not a soft (rxe, siw) link and cannot
	// be deleted.
	ErrNotSoftLink = errors.New("rxe: not a soft RDMA link")
	// ErrNoGID: the table holds no GID the selection can use.
	ErrNoGID = errors.New("rxe: no usable GID")
	// ErrIncompatibleGIDs: two ends chose GIDs that cannot talk to each other.
	ErrIncompatibleGIDs = errors.New("rxe: incompatible GIDs")
	// ErrParse: a kernel file has unexpected content.
	ErrParse = errors.New("rxe: cannot parse kernel file")
)

// Error describes a failed operation. Kind is a sentinel above, Err the
// underlying cause (an errno, a netlink or command error).
type Error struct {
	Op        string // "link add", "link delete", "load module", ...
	Name      string // RDMA link name, if any
	Netdev    string // netdev name, if any
	Kind      error  // sentinel error
	Err       error  // cause
	Diagnosis string // what was checked and failed, or what to do instead
	Output    []byte // output of a command (modprobe), if one ran
}

// Error formats the operation, its kind, cause, diagnosis and output.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("rxe: ")
	b.WriteString(e.Op)
	if e.Name != "" {
		fmt.Fprintf(&b, " %s", e.Name)
	}
	if e.Netdev != "" {
		fmt.Fprintf(&b, " (netdev %s)", e.Netdev)
	}
	if e.Kind != nil {
		fmt.Fprintf(&b, ": %s", strings.TrimPrefix(e.Kind.Error(), "rxe: "))
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Diagnosis != "" {
		fmt.Fprintf(&b, " (%s)", e.Diagnosis)
	}
	if out := strings.TrimSpace(string(e.Output)); out != "" {
		fmt.Fprintf(&b, "; output: %s", out)
	}
	return b.String()
}

// Unwrap returns Kind and Err, so errors.Is matches both.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// parseError reports a kernel file whose content does not parse.
func parseError(what, content string, cause error) error {
	if cause != nil {
		return fmt.Errorf("%w: %s %q: %w", ErrParse, what, content, cause)
	}
	return fmt.Errorf("%w: %s %q", ErrParse, what, content)
}
