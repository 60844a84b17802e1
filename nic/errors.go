package nic

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/rocekit/rocekit/internal/sentinel"
)

// Sentinel errors. Operations return an *Error whose Kind is one of these,
// so callers write errors.Is(err, nic.ErrNotSupported); the errno stays
// reachable too (errors.Is(err, unix.EOPNOTSUPP)).
var (
	// ErrUnsupportedOS: the operation needs Linux.
	ErrUnsupportedOS = errors.New("nic: not supported on " + runtime.GOOS)
	// ErrNetdevNotFound: no netdev of that name in the handle's namespace.
	// errors.Is(err, fs.ErrNotExist) holds too.
	ErrNetdevNotFound = sentinel.NotExist("nic: netdev not found")
	// ErrNotSupported: the driver does not implement the ethtool operation
	// or feature (EOPNOTSUPP, e.g. ring parameters on veth). Record it; it
	// is not a failure of the run.
	ErrNotSupported = errors.New("nic: not supported by the driver")
	// ErrInvalidValue: the kernel refused a value (EINVAL, ERANGE: an MTU
	// above the device maximum, more channels than the hardware has).
	ErrInvalidValue = errors.New("nic: invalid value")
	// ErrVerify: a change was accepted but reading it back gave another
	// value.
	ErrVerify = errors.New("nic: value did not take effect")
	// ErrPathMTU: perftest reported a path MTU the netdev MTUs do not give.
	ErrPathMTU = errors.New("nic: unexpected RoCE path MTU")
	// ErrParse: a kernel file has unexpected content.
	ErrParse = errors.New("nic: cannot parse kernel file")
	// ErrEthtoolText: the text given as `ethtool -S` output holds no
	// counter, or could not be read (a line too long).
	ErrEthtoolText = errors.New("nic: cannot parse ethtool -S text")
)

// Error describes a failed operation on a netdev.
type Error struct {
	Op     string // "set mtu", "get ring", ...
	Netdev string
	Kind   error // a sentinel above, or nil
	Err    error // cause: errno, netlink or ethtool error, or what differed
	// Netdevs lists the netdevs that do exist in the namespace, for a
	// netdev not found (ip -br link's names).
	Netdevs []string
}

// Error formats the operation, the netdev, the kind and the cause.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nic: %s %s", e.Op, e.Netdev)
	if e.Kind != nil {
		fmt.Fprintf(&b, ": %s", strings.TrimPrefix(e.Kind.Error(), "nic: "))
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if len(e.Netdevs) > 0 {
		fmt.Fprintf(&b, " (netdevs here: %s)", strings.Join(e.Netdevs, ", "))
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

func parseError(what string, line int, content string, cause error) error {
	if cause != nil {
		return fmt.Errorf("%w: %s line %d: %q: %w", ErrParse, what, line, content, cause)
	}
	return fmt.Errorf("%w: %s line %d: %q", ErrParse, what, line, content)
}
