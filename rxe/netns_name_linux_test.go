package rxe

import (
	"errors"
	"testing"

	"github.com/rocekit/rocekit/host"
)

// A namespace name that is a path is refused before it is opened.
func TestOpenRefusesNetnsPath(t *testing.T) {
	h, err := Open(Options{Netns: "../../proc/self/ns/net"})
	if err == nil {
		h.Close()
	}
	if !errors.Is(err, host.ErrInvalidNetnsName) {
		t.Errorf("Open(Netns ../../proc/self/ns/net) = %v, want host.ErrInvalidNetnsName", err)
	}
}
