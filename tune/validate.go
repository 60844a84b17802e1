package tune

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/rxe"
)

// Limits the kernel puts on names and values.
const (
	MaxNetdevName   = 15    // IFNAMSIZ - 1
	MaxRXEName      = 63    // IB_DEVICE_NAME_MAX - 1
	MaxNetnsName    = 255   // a file name in /run/netns (host.MaxNetnsName)
	MaxGovernorName = 15    // CPUFREQ_NAME_LEN - 1
	MinMTU          = 68    // IPv4's minimum (RFC 791)
	MaxMTU          = 65536 // lo's MTU; Ethernet stops at 65535 (ETH_MAX_MTU)
	MaxIRQ          = 1<<20 - 1
	MaxGIDIndex     = 1<<16 - 1
)

func invalid(field, value, format string, args ...any) error {
	return &InputError{Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}

// checkName applies the rules every name that becomes a path element or a
// netlink attribute shares: not empty, no '/', not "." or "..", no "..",
// no whitespace or control characters.
func checkName(field, s string, max int) error {
	switch {
	case s == "":
		return invalid(field, s, "empty")
	case len(s) > max:
		return invalid(field, s, "longer than %d bytes", max)
	case strings.ContainsRune(s, '/'):
		return invalid(field, s, "contains '/'")
	case s == "." || strings.Contains(s, ".."):
		return invalid(field, s, "is or contains \"..\"")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == 0 {
			return invalid(field, s, "contains whitespace or a control character")
		}
	}
	return nil
}

// ValidateNetdev checks an interface name the way the kernel's
// dev_valid_name does: 1 to 15 bytes, no '/', ':' or whitespace, not "."
// or "..".
func ValidateNetdev(name string) error {
	if err := checkName("netdev", name, MaxNetdevName); err != nil {
		return err
	}
	if strings.ContainsRune(name, ':') {
		return invalid("netdev", name, "contains ':' (an alias, not a netdev)")
	}
	return nil
}

// ValidateNetns checks a named network namespace with
// host.ValidNetnsName, the check every package shares: a file name under
// /run/netns. "" (the caller's namespace) is valid. The *InputError wraps
// host's *host.NetnsNameError.
func ValidateNetns(name string) error {
	if name == "" {
		return nil
	}
	if err := host.ValidNetnsName(name); err != nil {
		ie := &InputError{Field: "netns", Value: name, Reason: err.Error(), Err: err}
		var ne *host.NetnsNameError
		if errors.As(err, &ne) {
			ie.Reason = ne.Reason
		}
		return ie
	}
	return nil
}

// ValidateRXEName checks an rxe link name: 1 to 63 bytes, no '/', no '%'
// (the kernel would take it as a format), no whitespace.
func ValidateRXEName(name string) error {
	if err := checkName("rxe link", name, MaxRXEName); err != nil {
		return err
	}
	if strings.ContainsRune(name, '%') {
		return invalid("rxe link", name, "contains '%%'")
	}
	return nil
}

// ValidateIRQ checks an IRQ number's range. Session.Apply also checks that
// /proc/irq/N exists.
func ValidateIRQ(n int) error {
	if n < 0 || n > MaxIRQ {
		return invalid("irq", strconv.Itoa(n), "out of range 0-%d", MaxIRQ)
	}
	return nil
}

// ValidateCPUs checks that a CPU list is not empty and names online CPUs
// only.
func ValidateCPUs(cpus, online irq.CPUList) error {
	if len(cpus) == 0 {
		return invalid("cpus", "", "empty list")
	}
	if off := cpus.Without(online); len(off) > 0 {
		return invalid("cpus", cpus.String(), "CPUs %s are not online (online: %s)", off, online)
	}
	return nil
}

// ValidateGovernor checks a cpufreq governor name.
func ValidateGovernor(name string) error {
	return checkName("governor", name, MaxGovernorName)
}

// ValidateMTU checks an MTU against the range any Ethernet netdev can take;
// the device may refuse less (its max_mtu).
func ValidateMTU(mtu int) error {
	if mtu < MinMTU || mtu > MaxMTU {
		return invalid("mtu", strconv.Itoa(mtu), "out of range %d-%d", MinMTU, MaxMTU)
	}
	return nil
}

// ValidateGIDIndex checks a GID index (perftest's -x) against a port's
// table: in range and a used slot.
func ValidateGIDIndex(t rxe.GIDTable, index int) error {
	v := strconv.Itoa(index)
	if index < 0 || index > MaxGIDIndex || (t.Slots > 0 && index >= t.Slots) {
		return invalid("gid index", v, "out of range 0-%d of %s port %d", max(t.Slots, 1)-1, t.Device, t.Port)
	}
	if _, ok := t.Entry(index); !ok {
		return invalid("gid index", v, "slot is empty on %s port %d", t.Device, t.Port)
	}
	return nil
}

// ValidatePath checks that path, once cleaned, lies under root (both
// absolute), so that a name joined into it cannot climb out.
func ValidatePath(root, path string) error {
	if !filepath.IsAbs(root) {
		return invalid("root", root, "not an absolute path")
	}
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return invalid("path", path, "not under %s", root)
	}
	return nil
}

func validateRXEValue(t Target, v Value) error {
	if v.RXE == nil {
		return invalid("rxe link", t.Link, "no state given")
	}
	if v.RXE.Present {
		return ValidateNetdev(v.RXE.Netdev)
	}
	return nil
}

// MaxSysctlValue bounds a sysctl value written through a journal.
const MaxSysctlValue = 4096

// ValidateSysctlKey checks a sysctl name: dotted ("net.core.rmem_max") or
// a path under /proc/sys ("net/ipv4/conf/eth0.100/rp_filter"), each
// level of letters, digits, '_', '-' (and '.' in the path form, for VLAN
// netdevs), none "." or "..", so that it stays under /proc/sys. Any
// such key can be read (ReadSysctl); a change (Sysctl) takes net.* keys
// only.
func ValidateSysctlKey(key string) error {
	if key == "" || len(key) > 256 {
		return invalid("sysctl", key, "empty or longer than 256 bytes")
	}
	sep := "."
	if strings.Contains(key, "/") {
		sep = "/"
	}
	for _, level := range strings.Split(key, sep) {
		if level == "" || level == "." || level == ".." {
			return invalid("sysctl", key, "has an empty, \".\" or \"..\" level")
		}
		for _, r := range level {
			ok := r == '_' || r == '-' || (r == '.' && sep == "/") || r == ':' ||
				(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
			if !ok {
				return invalid("sysctl", key, "contains %q", r)
			}
		}
	}
	return nil
}

// validateSysctlTarget checks the key of a sysctl change, made or undone:
// a valid key (ValidateSysctlKey) of the network stack, net.* (net/...).
// tune is a network tuning journal: kernel.core_pattern or kernel.modprobe
// name a program the kernel runs as root, so a key outside net.* is
// refused even from a journal of our own.
func validateSysctlTarget(key string) error {
	if err := ValidateSysctlKey(key); err != nil {
		return err
	}
	if !strings.HasPrefix(key, "net.") && !strings.HasPrefix(key, "net/") {
		return invalid("sysctl", key, "not a net.* key: tune sets the network stack's parameters only (kernel.*, vm.*, fs.* are refused)")
	}
	return nil
}

// validateSysctlValue checks a value to write, new or old: one line of
// printable text, fields separated by blanks. A newline would make the
// kernel take the first line only, and read back differ; a control
// character has no business in a kernel parameter.
func validateSysctlValue(key string, v *string) error {
	switch {
	case v == nil:
		return invalid("sysctl", key, "no value given")
	case len(*v) > MaxSysctlValue:
		return invalid("sysctl", key, "value longer than %d bytes", MaxSysctlValue)
	case !utf8.ValidString(*v):
		return invalid("sysctl", key, "value %q is not UTF-8 text", *v)
	}
	for _, r := range *v {
		if r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
			what := "a control character"
			if r == '\n' || r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029' {
				what = "a line break (the kernel would take the first line only)"
			}
			return invalid("sysctl", key, "value %q holds %s", *v, what)
		}
	}
	return nil
}

func validateFeatures(netdev string, f map[string]bool) error {
	if len(f) == 0 {
		return invalid("features", netdev, "no feature given")
	}
	for name := range f {
		if err := checkName("feature", name, 64); err != nil {
			return err
		}
	}
	return nil
}
