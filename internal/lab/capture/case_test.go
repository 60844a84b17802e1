package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func sampleCase() *Case {
	return &Case{
		ID:          "perftest/send-bw-gbits",
		Suite:       "bookworm",
		Kernel:      "6.1.0-37-amd64",
		Captured:    time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Tool:        "perftest",
		ToolVersion: "4.5+0.17-1 (Version: 6.06)",
		Note:        "ib_send_bw --report_gbits",
		Expect:      ExpectOK,
		Sides: []Side{
			{Role: RoleServer, Command: "ib_send_bw -d rxe0 -x 1 -F -n 300 --report_gbits -p 18516", Wrapper: "stdbuf -oL -eL",
				Exit: 0, Seconds: 1.234, Stdout: "server.stdout", Stderr: "server.stderr"},
			{Role: RoleClient, Command: "ib_send_bw -d rxe0 -x 1 -F -n 300 --report_gbits -p 18516 198.18.0.1", Wrapper: "stdbuf -oL -eL",
				Exit: -1, Signal: "SIGKILL", TimedOut: true, Seconds: 20.001, Stdout: "client.stdout", Stderr: "client.stderr"},
			{Role: RoleFile, Command: "cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/5", Exit: 1,
				Errno: "EINVAL", Error: "read /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/5: invalid argument"},
		},
		Files: []string{"client.json"},
		Log:   []string{"server listening on port 18516 after 0.120s (7 polls)"},
	}
}

func TestCaseRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := sampleCase()
	if err := WriteCase(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestCaseJSONContract pins the field names and layout that the harness and the parsers'
// tests rely on.
func TestCaseJSONContract(t *testing.T) {
	dir := t.TempDir()
	c := sampleCase()
	c.Sides = c.Sides[:1]
	c.Files, c.Log = nil, nil
	if err := WriteCase(dir, c); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "id": "perftest/send-bw-gbits",
  "suite": "bookworm",
  "kernel": "6.1.0-37-amd64",
  "captured": "2026-01-02T03:04:05Z",
  "tool": "perftest",
  "tool_version": "4.5+0.17-1 (Version: 6.06)",
  "note": "ib_send_bw --report_gbits",
  "expect": "ok",
  "sides": [
    {
      "role": "server",
      "command": "ib_send_bw -d rxe0 -x 1 -F -n 300 --report_gbits -p 18516",
      "wrapper": "stdbuf -oL -eL",
      "netns": "",
      "exit": 0,
      "timed_out": false,
      "seconds": 1.234,
      "stdout": "server.stdout",
      "stderr": "server.stderr"
    }
  ],
  "files": []
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("case.json (-want +got):\n%s", diff)
	}
}

func TestReadCaseRejectsUnknownFields(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, CaseFile), []byte(`{"id": "x/y", "color": "red"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCase(dir); err == nil || !strings.Contains(err.Error(), "color") {
		t.Errorf("ReadCase with an unknown field: err = %v, want one naming the field", err)
	}
}

func TestCaseDirsAndSide(t *testing.T) {
	root := t.TempDir()
	for _, id := range []string{"perftest/send-bw", "netperf/tcp-rr"} {
		dir := filepath.Join(root, id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		c := sampleCase()
		c.ID = id
		if err := WriteCase(dir, c); err != nil {
			t.Fatal(err)
		}
	}
	dirs, err := CaseDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "netperf/tcp-rr"), filepath.Join(root, "perftest/send-bw")}
	if diff := cmp.Diff(want, dirs); diff != "" {
		t.Errorf("CaseDirs (-want +got):\n%s", diff)
	}
	c, err := ReadCase(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	client, ok := c.Side(RoleClient)
	if !ok || client.Stdout != "client.stdout" || !client.TimedOut {
		t.Errorf("Side(client) = %+v, %v", client, ok)
	}
	if _, ok := c.Side("nosuchrole"); ok {
		t.Error("Side(nosuchrole) found a side")
	}
}

func TestSideOK(t *testing.T) {
	tests := []struct {
		name string
		side Side
		want bool
	}{
		{"exit 0", Side{Exit: 0}, true},
		{"exit 1", Side{Exit: 1}, false},
		{"stopped netserver", Side{Exit: -1, Signal: "SIGTERM", Stopped: true}, true},
		{"timed out", Side{Exit: -1, Signal: "SIGKILL", TimedOut: true}, false},
		{"did not start", Side{Exit: -1, Error: "exec: not found"}, false},
		{"killed by a signal", Side{Exit: -1, Signal: "SIGPIPE"}, false},
	}
	for _, tt := range tests {
		if got := tt.side.OK(); got != tt.want {
			t.Errorf("%s: OK() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
