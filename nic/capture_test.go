package nic

import (
	"testing"
	"testing/fstest"

	"github.com/rocekit/rocekit/internal/fixturefs"
	"github.com/rocekit/rocekit/sysroot"
)

// scenario is one section of a capture made by testdata/capture.sh (see
// internal/fixturefs): the kernel files as they were, and command outputs.
type scenario struct {
	files fstest.MapFS
	cmds  map[string]string
	sc    *fixturefs.Scenario
}

// root returns a Root over the scenario's files; files whose read failed in
// the guest fail the same way.
func (s *scenario) root() Root { return Root(sysroot.FromFS(s.sc.FS())) }

// loadCapture reads a capture, gzip-compressed or not.
func loadCapture(t testing.TB, name string) map[string]*scenario {
	t.Helper()
	out := map[string]*scenario{}
	for k, sc := range fixturefs.Load(t, name) {
		out[k] = &scenario{files: sc.Files, cmds: sc.Cmds, sc: sc}
	}
	return out
}
