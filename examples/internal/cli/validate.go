package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
)

// ErrBadFlag is matched by every *FlagError.
var ErrBadFlag = errors.New("bad flag value")

// FlagError is a flag value outside what the example accepts. The
// examples check every flag with these before anything touches the
// system (their validate step), and Main exits 2 on one, as the flag
// package does for a flag it cannot parse.
type FlagError struct {
	Flag  string // "-count"
	Value string // as given, quoted when a string
	Want  string // the accepted range: "1 or more"
	// Suggest is the accepted value a typo was likely meant to be
	// ("performance" for "perfomance"); "" for none.
	Suggest string
}

// Error returns "-count -1: want 1 or more", and the value likely meant:
// `-governor "perfomance": want one of ... (did you mean "performance"?)`.
func (e *FlagError) Error() string {
	s := fmt.Sprintf("%s %s: want %s", e.Flag, e.Value, e.Want)
	if e.Suggest != "" {
		s += fmt.Sprintf(" (did you mean %q?)", e.Suggest)
	}
	return s
}

// Is matches ErrBadFlag.
func (e *FlagError) Is(target error) bool { return target == ErrBadFlag }

// Usage is a refusal of flags that is no one value's range ("-peer and
// -peer-netns exclude each other"); it matches ErrBadFlag too.
func Usage(msg string) error { return usageError(msg) }

type usageError string

func (e usageError) Error() string        { return string(e) }
func (e usageError) Is(target error) bool { return target == ErrBadFlag }

// BadFlag makes err, a refusal of flags from a parser of their own
// ("-rounds B,A"), match ErrBadFlag too; nil stays nil.
func BadFlag(err error) error {
	if err == nil || errors.Is(err, ErrBadFlag) {
		return err
	}
	return badFlagError{err}
}

type badFlagError struct{ err error }

func (e badFlagError) Error() string        { return e.err.Error() }
func (e badFlagError) Unwrap() error        { return e.err }
func (e badFlagError) Is(target error) bool { return target == ErrBadFlag }

func bad(flag string, v any, want string, args ...any) error {
	val := fmt.Sprint(v)
	if s, ok := v.(string); ok {
		val = strconv.Quote(s)
	}
	return &FlagError{Flag: flag, Value: val, Want: fmt.Sprintf(want, args...)}
}

// AtLeast refuses an integer flag below lo.
func AtLeast(flag string, v, lo int) error {
	if v < lo {
		return bad(flag, v, "%d or more", lo)
	}
	return nil
}

// IntRange refuses an integer flag outside [lo, hi].
func IntRange(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return bad(flag, v, "%d to %d", lo, hi)
	}
	return nil
}

// Iterations refuses a perftest -n below perftest's minimum of 5; 0 is
// perftest's default.
func Iterations(flag string, v int) error {
	if v != 0 && v < 5 {
		return bad(flag, v, "5 or more (perftest's minimum), or 0 for perftest's default")
	}
	return nil
}

// QPTimeout refuses a perftest -u outside its 5-bit field (0 is
// perftest's default of 14).
func QPTimeout(flag string, v int) error { return IntRange(flag, v, 0, 31) }

// MTU refuses a netdev MTU the kernel does not take (IPv4's minimum of
// 68 up to 65535); 0 leaves the MTU as it is. The int is checked here,
// before it can be cut to 32 bits on its way to netlink.
func MTU(flag string, v int) error {
	if v != 0 && (v < 68 || v > 65535) {
		return bad(flag, v, "68 to 65535, or 0 to leave the MTU")
	}
	return nil
}

// Port refuses a first TCP port that, with n consecutive ports from it
// (one per pair), leaves 1–65535; 0 is the tool's default.
func Port(flag string, v, n int) error {
	n = max(n, 1)
	if v == 0 || (v >= 1 && v+n-1 <= 65535) {
		return nil
	}
	if n == 1 {
		return bad(flag, v, "1 to 65535, or 0 for the tool's default")
	}
	return bad(flag, v, "1 to %d for %d consecutive ports, or 0 for the tool's default", 65535-n+1, n)
}

// Ratio refuses a share outside (0, 1].
func Ratio(flag string, v float64) error {
	if !(v > 0 && v <= 1) {
		return bad(flag, v, "more than 0 and at most 1")
	}
	return nil
}

// NotNegative refuses a negative (or NaN) number.
func NotNegative(flag string, v float64) error {
	if !(v >= 0) {
		return bad(flag, v, "0 or more")
	}
	return nil
}

// Duration refuses a negative duration.
func Duration(flag string, d time.Duration) error {
	if d < 0 {
		return bad(flag, d, "0 or more")
	}
	return nil
}

// Netdev refuses what the kernel does not take as a netdev name
// (dev_valid_name: 1 to 15 bytes, not "." or "..", no '/', ':' or
// white space), so that the name cannot reach a path it does not name.
func Netdev(flag, name string) error {
	if name == "" || len(name) > 15 || name == "." || name == ".." || strings.ContainsAny(name, "/: \t\n\r\v\f") {
		return bad(flag, name, "a netdev name: 1 to 15 bytes, no '/', ':' or space")
	}
	return nil
}

// RDMADevice refuses what cannot be an RDMA device name (-rxe): 1 to 63
// bytes without '/' or white space.
func RDMADevice(flag, name string) error {
	if name == "" || len(name) > 63 || name == "." || name == ".." || strings.ContainsAny(name, "/ \t\n\r\v\f") {
		return bad(flag, name, "an RDMA device name: 1 to 63 bytes, no '/' or space")
	}
	return nil
}

// kernelGovernors are the cpufreq governors Linux has
// (drivers/cpufreq/cpufreq_*.c).
var kernelGovernors = []string{"conservative", "ondemand", "performance", "powersave", "schedutil", "userspace"}

// Governor refuses a name that is no cpufreq governor of Linux (a typo
// would otherwise be found only when the governor is set); whether the
// hosts' driver offers it is CheckGovernorOffered's part.
func Governor(flag, name string) error {
	if err := OneOf(flag, name, kernelGovernors...); err != nil {
		err.(*FlagError).Want = "one of the kernel's governors: " + strings.Join(kernelGovernors, ", ")
		return err
	}
	return nil
}

// availableGovernors is the command that lists every CPU's offered
// governors, one line per CPU.
var availableGovernors = []string{"sh", "-c", "cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_available_governors"}

// CheckGovernorOffered refuses a governor that the cpufreq driver of
// some CPU of a host does not offer, reading (not writing) each host's
// scaling_available_governors through its runner, named by the map's key.
// A host without cpufreq (VMs) has nothing to check: setting a governor
// there changes nothing.
func CheckGovernorOffered(ctx context.Context, flag, governor string, hosts map[string]host.Runner) error {
	for _, name := range slices.Sorted(maps.Keys(hosts)) {
		p, err := host.Run(ctx, hosts[name], host.Cmd{Argv: availableGovernors})
		var exit *host.ExitError
		if errors.As(err, &exit) {
			continue // no cpufreq: the glob matched nothing
		}
		if err != nil {
			return fmt.Errorf("%s: read the governors %s offers: %w", flag, name, err)
		}
		var common []string
		for i, line := range strings.Split(strings.TrimSpace(p.Stdout().String()), "\n") {
			f := strings.Fields(line)
			if i == 0 {
				common = f
				continue
			}
			common = slices.DeleteFunc(common, func(g string) bool { return !slices.Contains(f, g) })
		}
		if len(common) > 0 && !slices.Contains(common, governor) {
			return bad(flag, governor, "a governor every CPU of %s offers: %s", name, strings.Join(common, " "))
		}
	}
	return nil
}
