package runbook

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
)

// TestAgentSetTxQueueLen: the agent's set-txqueuelen changes a veth's
// queue length in a fresh namespace, journaled, and restore puts the old
// one back from the journal alone.
func TestAgentSetTxQueueLen(t *testing.T) {
	name := fmt.Sprintf("rbtxq-%d", os.Getpid())
	nl := netnsVeth(t, name, "rbq0", "rbq1", "198.18.95.9/24")
	qlen := func() int {
		l, err := nl.LinkByName("rbq0")
		if err != nil {
			t.Fatal(err)
		}
		return l.Attrs().TxQLen
	}
	before := qlen()
	ctx := context.Background()
	dir := t.TempDir()
	var b bytes.Buffer
	if err := ServePeer(ctx, PeerProtocol, dir, name, "set-txqueuelen", `{"netdev":"rbq0","txqueuelen":12345}`, &b); err != nil {
		t.Fatalf("set-txqueuelen: %v (%s)", err, b.String())
	}
	if got := qlen(); got != 12345 {
		t.Fatalf("txqueuelen %d after set-txqueuelen", got)
	}
	if err := ServePeer(ctx, PeerProtocol, dir, name, "set-txqueuelen", `{"netdev":"rbq0","txqueuelen":0}`, &bytes.Buffer{}); err == nil {
		t.Error("txqueuelen 0 accepted")
	}
	if err := ServePeer(ctx, PeerProtocol, dir, name, "restore", `"if-any"`, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if got := qlen(); got != before {
		t.Errorf("txqueuelen %d after restore, want %d", got, before)
	}
}
