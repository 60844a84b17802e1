package cli

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/rocekit/rocekit/runbook"
)

// TestOpenRun: a refused flag stops the run before the sides open (body
// not called); otherwise body runs on the opened sides and its error is
// returned (Restore, which runs after it, adds none: nothing changed).
func TestOpenRun(t *testing.T) {
	dir := t.TempDir()
	f := StepFlags{Flags: Flags{Netdev: "eth0", Journal: filepath.Join(dir, "journal.jsonl")},
		Out: filepath.Join(dir, "out"), Store: filepath.Join(dir, "rounds.jsonl")}
	refused, failed := errors.New("refused"), errors.New("body failed")
	called := false
	err := f.OpenRun(context.Background(), func() error { return refused }, io.Discard, func(*runbook.Sides) error { called = true; return nil })
	if !errors.Is(err, refused) || called {
		t.Errorf("refused flags: err %v, body called %v; want the refusal, body not called", err, called)
	}
	err = f.OpenRun(context.Background(), func() error { return nil }, io.Discard, func(s *runbook.Sides) error {
		if s == nil || s.Mode != runbook.Loopback || s.NearNetdev != "eth0" {
			t.Errorf("sides %+v, want loopback on eth0", s)
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("OpenRun = %v, want the body's error (this test needs root, as CI runs it)", err)
	}
}
