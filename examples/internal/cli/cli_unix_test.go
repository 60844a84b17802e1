//go:build unix

package cli

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/tune"
)

// TestStartupLeavesALiveJournalAlone: two runs started in one folder share
// the default -journal; the second used to recover the first's live
// journal, undoing its MTU under it. Now it stops, naming the flag.
func TestStartupLeavesALiveJournalAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rocekit-journal.jsonl")
	header := `{"rec":"header","version":1,"pid":4242,"proc_root":"/proc","sys_root":"/sys","time":"2026-11-30T00:00:00Z"}` + "\n"
	change := `{"rec":"change","seq":1,"time":"2026-11-30T00:00:01Z","entry":{"seq":1,"kind":"mtu","target":{"netdev":"eth0"},"old":{"mtu":1500},"new":{"mtu":9000}}}` + "\n"
	if err := os.WriteFile(path, []byte(header+change), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	err = recoverStale(context.Background(), path, nil)
	if !errors.Is(err, tune.ErrLocked) || !strings.Contains(err.Error(), "-journal") || !strings.Contains(err.Error(), "process 4242") {
		t.Errorf("startup on a live journal = %v, want ErrLocked naming -journal and PID 4242", err)
	}
	if b, _ := os.ReadFile(path); string(b) != header+change {
		t.Errorf("live journal changed: %q", b)
	}
}

// TestContextSignals: the first Ctrl-C cancels the run with ErrInterrupted
// (processes killed for it say "interrupted by interrupt", not "signal
// KILL"); the second exits at once, saying what may be left and how to
// undo it. Before, the second Ctrl-C was swallowed.
func TestContextSignals(t *testing.T) {
	var out strings.Builder
	exited := make(chan struct{})
	ctx, cancel := contextOn(time.Hour, &out, func() { close(exited) })
	defer cancel()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT did not cancel the run")
	}
	if err := context.Cause(ctx); !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "interrupted by interrupt") {
		t.Errorf("cause %v", err)
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("a second SIGINT did not exit")
	}
	if !strings.Contains(out.String(), "exiting without restoring") || !strings.Contains(out.String(), "rocekit-peer restore") {
		t.Errorf("said:\n%s", out.String())
	}
}

// TestCheckPaths: an unwritable -out or -store used to be found after the
// first round was measured; now the run stops before it starts, naming
// the flag. An earlier run's outputs are moved aside, not mixed.
func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, nil, 0o644)
	f := &Flags{Journal: filepath.Join(dir, "j.jsonl")}
	var log strings.Builder
	if err := f.CheckPaths(filepath.Join(file, "out"), filepath.Join(dir, "s.jsonl"), &log); err == nil || !strings.HasPrefix(err.Error(), "-out ") {
		t.Errorf("-out under a file: %v", err)
	}
	if err := f.CheckPaths(filepath.Join(dir, "out"), filepath.Join(dir, "missing", "s.jsonl"), &log); err == nil || !strings.HasPrefix(err.Error(), "-store ") {
		t.Errorf("-store in a missing folder: %v", err)
	}
	if err := f.CheckPaths(filepath.Join(dir, "out"), dir, &log); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("-store is a folder: %v", err)
	}
	out := filepath.Join(dir, "out")
	if err := f.CheckPaths(out, filepath.Join(dir, "s.jsonl"), &log); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"report.md", "old.tar.gz"} {
		os.WriteFile(filepath.Join(out, name), []byte("old"), 0o644)
	}
	if err := f.CheckPaths(out, filepath.Join(dir, "s.jsonl"), &log); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 || ents[0].Name() != OutMarker {
		t.Errorf("-out holds %v, want only the new run's %s", ents, OutMarker)
	}
	moved, _ := filepath.Glob(out + ".prev-*/report.md")
	if len(moved) != 1 || !strings.Contains(log.String(), "were moved to") {
		t.Errorf("earlier outputs moved to %v; said %q", moved, log.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 { // a-file, out, out.prev-*: no probe file left
		t.Errorf("folder holds %d entries", len(entries))
	}
}

func TestNoArgs(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	rounds := fs.String("rounds", "", "")
	fs.Parse([]string{"-rounds", "A", "B", "-l", "5"})
	if err := NoArgs(fs); err == nil || !strings.Contains(err.Error(), `"B"`) || *rounds != "A" {
		t.Errorf("NoArgs = %v", err)
	}
}
