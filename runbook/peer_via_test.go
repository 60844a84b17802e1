package runbook

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/rocekit/rocekit/host"
)

// TestPeerVia: a Peer without SSH calls its agent, and runs programs,
// through Via (a host.Srun on a Slurm node, here a Fake).
func TestPeerVia(t *testing.T) {
	f := &host.Fake{Name: "srun n2", Scripts: map[string]host.FakeScript{
		"/lab/bin/rocekit-peer": {Stdout: fmt.Sprintf(`{"protocol":%d}`+"\n", PeerProtocol)},
	}}
	p := &Peer{Via: f, Agent: "/lab/bin/rocekit-peer", JournalDir: "/var/tmp/j"}
	if err := p.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"/lab/bin/rocekit-peer", "-protocol", fmt.Sprint(PeerProtocol), "-journal-dir", "/var/tmp/j", "-netns", "",
		"-timeout", p.callTimeout("restore").String(), "restore", `"if-any"`}
	if argv := f.Argvs(); len(argv) != 1 || !slices.Equal(argv[0], want) {
		t.Errorf("agent calls %q, want %q", argv, want)
	}
	// Programs run through Via too, by the agent's exec (journaled).
	if p.Runner().String() != "srun n2" || p.Name() != "srun n2" || p.Close() != nil {
		t.Errorf("runner %v, name %q", p.Runner(), p.Name())
	}
	p.Netns = "ns1"
	if got := p.Runner().String(); got != "srun n2 netns ns1" {
		t.Errorf("in a namespace: %q", got)
	}
}
