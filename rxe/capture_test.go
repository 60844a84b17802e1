package rxe

import (
	"testing"

	"github.com/rocekit/rocekit/internal/fixturefs"
)

// scenario is one section of a capture made by testdata/capture.sh (see
// internal/fixturefs): the kernel files as they were (Files), and command
// outputs (Cmds).
type scenario struct{ *fixturefs.Scenario }

// root returns a Root over the scenario's files; files whose read failed in
// the guest fail the same way.
func (s *scenario) root() Root { return Root(s.Root()) }

// loadCapture reads a capture, gzip-compressed or not.
func loadCapture(t testing.TB, name string) map[string]*scenario {
	t.Helper()
	out := map[string]*scenario{}
	for k, sc := range fixturefs.Load(t, name) {
		out[k] = &scenario{sc}
	}
	return out
}
