package host

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// MaxNetnsName is the longest namespace name: a file name in NetnsDir.
const MaxNetnsName = 255

// ErrInvalidNetnsName is matched by every *NetnsNameError.
var ErrInvalidNetnsName = errors.New("host: invalid network namespace name")

// NetnsNameError is a network namespace name that is not a plain file
// name in NetnsDir: "../../proc/self/ns/net" would open the caller's own
// namespace (or any other file) where a named one was asked for.
type NetnsNameError struct {
	Name   string
	Reason string
}

// Error quotes the name and says what is wrong with it.
func (e *NetnsNameError) Error() string {
	return fmt.Sprintf("host: network namespace name %q: %s", e.Name, e.Reason)
}

// Is matches ErrInvalidNetnsName.
func (e *NetnsNameError) Is(target error) bool { return target == ErrInvalidNetnsName }

// ValidNetnsName checks a named network namespace's name before it
// becomes a path (NetnsDir/NAME) or an argument of "ip netns exec": 1 to
// MaxNetnsName bytes, no '/', not "." and no "..", no whitespace or
// control characters, not starting with '-' (ip would read an option). It
// is the one check every package applies (nic, rxe, tune, runbook,
// rocekit-peer); "" (the caller's namespace) is for the caller to allow.
func ValidNetnsName(name string) error {
	bad := func(reason string) error { return &NetnsNameError{Name: name, Reason: reason} }
	switch {
	case name == "":
		return bad("empty")
	case len(name) > MaxNetnsName:
		return bad(fmt.Sprintf("longer than %d bytes", MaxNetnsName))
	case strings.ContainsRune(name, '/'):
		return bad("contains '/'")
	case name == "." || strings.Contains(name, ".."):
		return bad(`is "." or contains ".."`)
	case strings.HasPrefix(name, "-"):
		return bad("starts with '-'")
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == 0 || r == unicode.ReplacementChar {
			return bad("contains whitespace, a control character or invalid UTF-8")
		}
	}
	return nil
}
