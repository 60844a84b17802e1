//go:build lab

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocekit/rocekit/runbook"
)

// envAsPeer makes this test binary the rocekit-peer agent: the guests
// have no Go to build cmd/rocekit-peer, and the agent is
// runbook.PeerAgentMain, as rocekit-peer is.
const envAsPeer = "SOFTROCE_BASELINE_AS_PEER"

func TestMain(m *testing.M) {
	if os.Getenv(envAsPeer) == "1" {
		os.Exit(runbook.PeerAgentMain(context.Background(), "rocekit-peer", os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
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
