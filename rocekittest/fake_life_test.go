package rocekittest_test

import (
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rocekittest"
)

// TestFakeServerLife: FakeOptions.ServerLife is the scripted server's
// life (ServerLife by default), the client's is not changed, and a pair
// of short-lived fakes still plays the capture to RunPair.
func TestFakeServerLife(t *testing.T) {
	c := lookup(t, "trixie/perftest/send-bw")
	server := host.Cmd{Argv: []string{"ib_send_bw", "-d", "rxe0", "-p", "18600"}}
	client := host.Cmd{Argv: []string{"ib_send_bw", "-d", "rxe0", "-p", "18600", "198.18.0.1"}}
	for _, tc := range []struct {
		o    rocekittest.FakeOptions
		want time.Duration
	}{{rocekittest.FakeOptions{}, rocekittest.ServerLife}, {rocekittest.FakeOptions{ServerLife: 40 * time.Millisecond}, 40 * time.Millisecond}} {
		f := rocekittest.PerftestFakeWith(c, "h", tc.o)
		if d := f.Respond(server).Delay; d != tc.want {
			t.Errorf("%+v: server life %v, want %v", tc.o, d, tc.want)
		}
		if d := f.Respond(client).Delay; d != 0 {
			t.Errorf("%+v: client delay %v", tc.o, d)
		}
	}
	srv, cli, err := rocekittest.FakePairWith(c, rocekittest.FakeOptions{ServerLife: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := perftest.RunPair(ctx(t), srv, cli, "198.18.0.1", perftest.Options{Test: perftest.SendBW, Port: 18600})
	if err != nil || len(pr.Client.Result.BW) != 1 || pr.Server.Outcome() != "exit status 0" {
		t.Errorf("RunPair: %v, rows %+v, server %s", err, pr.Client.Result.BW, pr.Server.Outcome())
	}
}
