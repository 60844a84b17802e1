package runbook

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// PeerAgentMain: one operation, a session, bad arguments and an
// operation that fails, with rocekit-peer's exit codes.
func TestPeerAgentMain(t *testing.T) {
	ctx := context.Background()
	run := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := PeerAgentMain(ctx, "rocekit-peer", append([]string{"-journal-dir", t.TempDir()}, args...), strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	if code, out, _ := run("", "netdev", `"lo"`); code != 0 || !strings.Contains(out, `"protocol":7`) || !strings.Contains(out, `"result"`) {
		t.Errorf("netdev lo: exit %d, %q", code, out)
	}
	code, out, _ := run(`{"id":3,"op":"netdev","arg":"\"lo\""}`+"\n", "serve")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 || !strings.Contains(lines[0], `"session":true`) || !strings.Contains(lines[1], `"id":3`) {
		t.Errorf("serve: exit %d, %q; want the session's first line and the reply of id 3", code, out)
	}
	if code, _, errOut := run(""); code != 2 || !strings.Contains(errOut, "rocekit-peer serve") || !strings.Contains(errOut, "rocekit-peer netdev") {
		t.Errorf("no operation: exit %d, usage %q", code, errOut)
	}
	if code, out, errOut := run("", "format-disk"); code != 1 || !strings.Contains(out, `"error"`) || !strings.Contains(errOut, "unknown operation") {
		t.Errorf("unknown operation: exit %d, %q, %q", code, out, errOut)
	}
}
