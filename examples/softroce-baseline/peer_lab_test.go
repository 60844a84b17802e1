//go:build lab

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocekit/rocekit/runbook"
)

// envAsPeer makes this test binary the rocekit-peer agent: the guests
// have no Go to build cmd/rocekit-peer, and the agent is runbook.ServePeer
// behind rocekit-peer's flags.
const envAsPeer = "SOFTROCE_BASELINE_AS_PEER"

func TestMain(m *testing.M) {
	if os.Getenv(envAsPeer) == "1" {
		os.Exit(servePeer(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// servePeer is rocekit-peer's main on args.
func servePeer(args []string) int {
	fs := flag.NewFlagSet("rocekit-peer", flag.ContinueOnError)
	dir := fs.String("journal-dir", runbook.DefaultPeerJournalDir, "")
	netns := fs.String("netns", "", "")
	timeout := fs.Duration("timeout", 5*time.Minute, "")
	protocol := fs.Int("protocol", runbook.PeerProtocol, "")
	if err := fs.Parse(args); err != nil || fs.NArg() < 1 || fs.NArg() > 2 {
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := runbook.ServePeer(ctx, *protocol, *dir, *netns, fs.Arg(0), fs.Arg(1), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "rocekit-peer:", err)
		return 1
	}
	return 0
}

// peerAgent writes a script that runs this test binary as the agent,
// for PeerConfig.Agent.
func peerAgent(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rocekit-peer")
	script := "#!/bin/sh\n" + envAsPeer + "=1 exec " + self + " \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
