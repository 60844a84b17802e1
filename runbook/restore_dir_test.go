//go:build unix

package runbook

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestoreDirRefusesWhatItCannotRead: "rocekit-peer restore" with a
// mistyped -journal-dir used to create that folder and exit 0; a folder it
// could not read was taken for an empty one. Both are errors now, and
// restore never creates a folder.
func TestRestoreDirRefusesWhatItCannotRead(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "rocekit-peeer")
	err := ServePeer(ctx, PeerProtocol, missing, "", "restore", "", &bytes.Buffer{})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "-journal-dir") {
		t.Errorf("restore of a missing folder = %v, want ErrNotExist naming -journal-dir", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("restore created %s: %v", missing, err)
	}
	// What Peer.Restore sends: a host where nothing was journaled yet.
	if err := ServePeer(ctx, PeerProtocol, missing, "", "restore", `"if-any"`, &bytes.Buffer{}); err != nil {
		t.Errorf("restore if-any of a missing folder = %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("restore if-any created %s: %v", missing, err)
	}
	// Not a folder (what an unreadable one gives as non-root: an error).
	file := filepath.Join(t.TempDir(), "journals")
	os.WriteFile(file, []byte("x"), 0o600)
	if err := RestoreDir(ctx, file, true); err == nil {
		t.Error("RestoreDir of a file succeeded")
	}
	// A folder holding a header-only journal (a failed operation): it is
	// removed, and a file that is not a journal is refused and kept.
	dir := t.TempDir()
	header := `{"rec":"header","version":1,"pid":1,"proc_root":"/proc","sys_root":"/sys","time":"2026-11-30T00:00:00Z"}` + "\n"
	os.WriteFile(filepath.Join(dir, "1-set-mtu.jsonl"), []byte(header), 0o600)
	os.WriteFile(filepath.Join(dir, "2-notes.jsonl"), []byte("notes\n"), 0o600)
	err = RestoreDir(ctx, dir, false)
	if err == nil || !strings.Contains(err.Error(), "2-notes.jsonl") {
		t.Errorf("RestoreDir = %v, want the non-journal named", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "1-set-mtu.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("header-only journal kept: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "2-notes.jsonl")); string(b) != "notes\n" {
		t.Errorf("non-journal changed: %q", b)
	}
}
