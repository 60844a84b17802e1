//go:build unix

package runbook

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedJournal writes, in dir, a journal that would set an MTU back if
// it were replayed: a crashed run's, or one someone planted.
func plantedJournal(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "00000000000000000001-set-mtu.jsonl")
	header := `{"rec":"header","version":1,"pid":1,"proc_root":"/proc","sys_root":"/sys","time":"2026-11-30T00:00:00Z"}` + "\n"
	change := `{"rec":"change","seq":1,"time":"2026-11-30T00:00:01Z","entry":{"seq":1,"kind":"mtu","target":{"netdev":"rocekit-none0"},"old":{"mtu":1280},"new":{"mtu":9000}}}` + "\n"
	if err := os.WriteFile(p, []byte(header+change), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPeerJournalDirMustBeOurs: the agent's journal folder (by default
// /var/tmp/rocekit-peer) used to be taken whatever its owner and mode, and
// every -peer dial replays it as root. A folder others can write, a link,
// or (as root) a folder of user nobody is refused for restore and for
// every operation, and nothing in it is replayed or created.
func TestPeerJournalDirMustBeOurs(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	dirs := map[string]string{}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777|fs.ModeSticky)
	dirs["world-writable"] = open
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o700)
	link := filepath.Join(base, "link")
	os.Symlink(real, link)
	dirs["link"] = link
	if os.Geteuid() == 0 {
		theirs := filepath.Join(base, "theirs")
		os.Mkdir(theirs, 0o700)
		dirs["nobody's"] = theirs
	}
	for name, dir := range dirs {
		j := plantedJournal(t, dir)
		if name == "nobody's" {
			os.Chown(dir, 65534, 65534)
			os.Chown(j, 65534, 65534)
		}
		before, _ := os.ReadFile(j)
		var b bytes.Buffer
		err := ServePeer(ctx, PeerProtocol, dir, "", "restore", `"if-any"`, &b)
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: restore = %v, want fs.ErrPermission naming %s", name, err, dir)
		}
		if !strings.Contains(b.String(), `"kind":"permission"`) {
			t.Errorf("%s: reply %s", name, b.String())
		}
		if err := ServePeer(ctx, PeerProtocol, dir, "", "set-mtu", `{"netdev":"rocekit-none0","mtu":1500}`, &bytes.Buffer{}); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s: set-mtu = %v, want fs.ErrPermission", name, err)
		}
		if err := ServePeer(ctx, PeerProtocol, dir, "", "restore-since", `{"since":"2001-01-01T00:00:00Z"}`, &bytes.Buffer{}); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s: restore-since = %v, want fs.ErrPermission", name, err)
		}
		if after, _ := os.ReadFile(j); !bytes.Equal(before, after) {
			t.Errorf("%s: journal replayed: %q", name, after)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s: folder holds %v", name, ents)
		}
	}
	// A journal of another owner in our own folder is refused, kept.
	if os.Geteuid() == 0 {
		own := filepath.Join(base, "own")
		os.Mkdir(own, 0o700)
		j := plantedJournal(t, own)
		os.Chown(j, 65534, 65534)
		err := RestoreDir(ctx, own, false)
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "uid 65534") {
			t.Errorf("nobody's journal: %v", err)
		}
		if _, err := os.Stat(j); err != nil {
			t.Errorf("nobody's journal removed: %v", err)
		}
	}
}
