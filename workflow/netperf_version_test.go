package workflow

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/rocekittest"
)

// TestToolVersion reads the version from netperf -V as netperf 2.7.0
// printed it (netperf/testdata/loopback/version); output without one is
// an error naming it.
func TestToolVersion(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("..", "netperf", "testdata", "loopback", "version", "cmd.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	side := &rocekittest.FakeSide{Label: "fake", Fake: &host.Fake{Scripts: map[string]host.FakeScript{"netperf": {Stdout: string(out)}, "netserver": {Stdout: "garbage\n"}}}}
	if v, err := toolVersion(context.Background(), side, []string{"netperf", "-V"}); err != nil || v != "2.7.0" {
		t.Errorf("netperf -V: %q, %v; want 2.7.0", v, err)
	}
	if v, err := toolVersion(context.Background(), side, []string{"netserver", "-V"}); err == nil {
		t.Errorf("garbage: %q, want an error", v)
	}
}
