package capture

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSnapshotWalkGlobAndMissing(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{
		"dev/ports/1/state":      "4: ACTIVE\n",
		"dev/ports/1/gids/0":     "fe80:0000:0000:0000:5054:00ff:fe12:3456\n",
		"dev/ports/1/gids/1":     "0000:0000:0000:0000:0000:0000:0000:0000\n",
		"dev/ports/1/gids/2":     "0000:0000:0000:0000:0000:0000:0000:0000\n",
		"dev/ports/1/gids/10":    "0000:0000:0000:0000:0000:0000:0000:0000\n",
		"dev/node_type":          "1: CA",
		"dev/ports/1/write-only": "",
	})
	if err := os.Chmod(filepath.Join(src, "dev/ports/1/write-only"), 0o200); err != nil {
		t.Fatal(err)
	}
	// The walk follows a link given as the root, like /sys/class/infiniband/rxe0.
	if err := os.Symlink(filepath.Join(src, "dev"), filepath.Join(src, "class-dev")); err != nil {
		t.Fatal(err)
	}
	r, c := testRunner(t), &caseRun{dir: t.TempDir()}
	snap := &Snapshot{NumberedBelow: 2, Paths: []string{
		filepath.Join(src, "class-dev/ports/1"),
		filepath.Join(src, "class-dev/*"),
		filepath.Join(src, "missing"),
		filepath.Join(src, "nothing-*"),
	}}
	r.runSnapshot(context.Background(), c, snap)

	var got []string
	for _, res := range c.results {
		got = append(got, strings.TrimPrefix(res.Command, "cat "+src)+" required="+map[bool]string{true: "yes", false: "no"}[res.required]+" errno="+res.Errno)
	}
	want := []string{
		"/class-dev/ports/1/gids/0 required=no errno=",
		"/class-dev/ports/1/gids/1 required=no errno=",
		"/class-dev/ports/1/state required=no errno=",
		"/class-dev/node_type required=no errno=",
		"/missing required=yes errno=ENOENT",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sides (-want +got):\n%s", diff)
	}
	state := c.results[2].Side
	if state.Role != RoleFile || !state.OK() || state.Stdout != "tree"+src+"/class-dev/ports/1/state" {
		t.Errorf("state side = %+v", state)
	}
	if got := readFile(t, c.dir, state.Stdout); got != "4: ACTIVE\n" {
		t.Errorf("copied state = %q", got)
	}
	if got := readFile(t, c.dir, c.results[3].Stdout); got != "1: CA" {
		t.Errorf("copied node_type = %q, want the bytes without a newline", got)
	}
	missing := c.results[4].Side
	if missing.Stdout != "" || missing.Exit != 1 || !strings.Contains(missing.Error, "no such file") || outcomeOf(c.results) != OutcomeFailed {
		t.Errorf("missing side = %+v, outcome %s", missing, outcomeOf(c.results))
	}
	if len(c.rec.Log) != 2 || !strings.Contains(c.rec.Log[0], "skipped 2 files") || !strings.Contains(c.rec.Log[1], "nothing-*") {
		t.Errorf("log = %q, want notes about the skipped GID slots and the pattern without matches", c.rec.Log)
	}
}

func TestSnapshotKeepsEINVAL(t *testing.T) {
	const speed = "/sys/class/net/lo/speed" // reading lo's speed fails with EINVAL
	if _, err := os.ReadFile(speed); err == nil || !strings.Contains(err.Error(), "invalid argument") {
		t.Skipf("%s does not fail with EINVAL here (%v)", speed, err)
	}
	r, c := testRunner(t), &caseRun{dir: t.TempDir()}
	r.runSnapshot(context.Background(), c, &Snapshot{Root: "before", Paths: []string{"/sys/class/net/lo/spe?d", "/sys/class/net/lo/mtu"}})
	if len(c.results) != 2 {
		t.Fatalf("got %d sides, want 2", len(c.results))
	}
	einval, mtu := c.results[0], c.results[1]
	if einval.Errno != "EINVAL" || einval.Stdout != "" || einval.required || outcomeOf(c.results) != OutcomeOK {
		t.Errorf("speed side = %+v, want EINVAL as data", einval)
	}
	want, _ := os.ReadFile("/sys/class/net/lo/mtu")
	if mtu.Stdout != "before/sys/class/net/lo/mtu" || readFile(t, c.dir, mtu.Stdout) != string(want) {
		t.Errorf("mtu side = %+v", mtu)
	}
}

func TestUnreferencedFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{CaseFile: "{}", "client.stdout": "", "client.stderr": "", "client.json": "{}", "tree/proc/stat": "cpu"})
	got, err := unreferencedFiles(dir, []Side{{Stdout: "client.stdout", Stderr: "client.stderr"}, {Stdout: "tree/proc/stat"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"client.json"}, got); diff != "" {
		t.Errorf("unreferencedFiles (-want +got):\n%s", diff)
	}
}
