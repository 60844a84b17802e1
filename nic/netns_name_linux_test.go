package nic

import (
	"errors"
	"testing"

	"github.com/rocekit/rocekit/host"
)

// A namespace name that is a path is refused before it is opened:
// "../../proc/self/ns/net" under /run/netns is the caller's own namespace.
func TestOpenRefusesNetnsPath(t *testing.T) {
	for _, name := range []string{"../../proc/self/ns/net", "a/b", ".."} {
		h, err := Open(Options{Netns: name})
		if err == nil {
			h.Close()
		}
		if !errors.Is(err, host.ErrInvalidNetnsName) {
			t.Errorf("Open(Netns %q) = %v, want host.ErrInvalidNetnsName", name, err)
		}
	}
}
