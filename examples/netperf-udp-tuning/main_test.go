package main

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/workflow"
)

// TestRunRefusesLoopback: without a far end the run stops before it
// touches anything (no root needed).
func TestRunRefusesLoopback(t *testing.T) {
	c := config{Flags: cli.Flags{Netdev: "eth0"}, Rounds: "A,B,C", MTU: 9000, Length: 1, MsgSize: 1400,
		SockBuf: "2M", Count: 1, Governor: "performance", Out: t.TempDir()}
	if err := run(context.Background(), c, io.Discard, io.Discard); !errors.Is(err, errLoopback) {
		t.Errorf("run without -peer/-peer-netns: %v, want errLoopback", err)
	}
	c.Rounds = "B,A"
	if err := run(context.Background(), c, io.Discard, io.Discard); err == nil || errors.Is(err, errLoopback) {
		t.Errorf("bad -rounds: %v, want the rounds error first", err)
	}
}

// TestOptions: the flags become the library's options: the rounds, the
// interim results (-D before --), the failure policy, -keep-m.
func TestOptions(t *testing.T) {
	c := config{Rounds: "1,2,3,T", MTU: 9000, Length: 10, MsgSize: 1400, SockBuf: "2M", Count: 2, Interval: 1, KeepGoing: true, KeepMsg: true, Governor: "performance"}
	o, err := c.options()
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Join(o.Netperf.Argv(), " ")
	if !strings.Contains(argv, " -D 1 ") || strings.Index(argv, "-D 1") > strings.Index(argv, " -- ") || !strings.Contains(argv, "-s 2M -S 2M") {
		t.Errorf("argv %q: want the global -D 1 before -- and -s 2M -S 2M", argv)
	}
	if len(o.Rounds) != 4 || o.Rounds[1] != (workflow.UDPRound{Letter: "2", MTU: 9000}) || !o.Rounds[3].TCP ||
		o.Policy != workflow.NetperfKeepGoing || !o.KeepMessageSize || o.Count != 2 || o.Governor != "performance" {
		t.Errorf("options %+v", o)
	}
	c.Interval = 0
	if o, _ := c.options(); slices.Contains(o.Netperf.Argv(), "-D") {
		t.Errorf("-interval 0 still asks for interim results: %q", o.Netperf.Argv())
	}
	c.KeepGoing = false
	if o, _ := c.options(); o.Policy != workflow.NetperfStop {
		t.Errorf("without -keep-going: policy %v", o.Policy)
	}
}

// TestValidate: every bad flag is refused before anything touches the
// system, -governor included (it was found only in round C); a negative
// -timeout is refused, not taken as none.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	good := func() config {
		return config{Flags: cli.Flags{Netdev: "rktest0", PeerNetns: "rktestpeer", PeerNetdev: "rktest1", Journal: dir + "/journal.jsonl"},
			Rounds: "A,S,B,C", MTU: 9000, Length: 1, MsgSize: 1400, SockBuf: "2M", Count: 1, Governor: "performance", Interval: 1, Out: dir + "/out"}
	}
	labtest.CheckRefusals(t, func() config { return good() }, []labtest.Refusal[config]{
		{Set: func(c *config) { c.Governor = "perfomance" }, Want: `-governor "perfomance": want one of the kernel's governors`},
		{Set: func(c *config) { c.Timeout = -time.Second }, Want: "-timeout -1s: want 0 or more"},
		{Set: func(c *config) { c.Count = 0 }, Want: "-count 0: want 1 or more"},
		{Set: func(c *config) { c.Length = -1 }, Want: "-l -1: want 1 or more"},
		{Set: func(c *config) { c.Interval = -1 }, Want: "-interval -1: want 0 (off) or more"},
		{Set: func(c *config) { c.MTU = 70000 }, Want: "-mtu 70000: round B needs an MTU from 68 to 65535"},
		{Set: func(c *config) { c.SockBuf = "2X" }, Want: "-sockbuf"},
		{Set: func(c *config) { c.Rounds = "B,A" }, Want: "round A after B"},
		{Set: func(c *config) { c.Rounds = "2,S" }, Want: "round S after 2 would undo MTU 9000"},
	}, config.validate, clitest.Quiet(run), cli.ErrBadFlag)
	// The governor is only read with a round that spreads IRQs.
	c := good()
	c.Rounds, c.Governor = "A,B", "perfomance"
	if err := c.validate(); err != nil {
		t.Errorf("-governor without round C: %v", err)
	}
}
