package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/internal/labtest"
)

// TestValidate: every bad flag is refused by validate, a pure function,
// naming the flag and its range; run refuses it before anything else, so
// that no module is loaded, no rxe link added and no MTU set (nothing is
// written either). The netdev does not exist, so that a regression fails
// here without touching a real one.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	labtest.CheckRefusals(t, func() config { return goodConfig(dir) }, badFlags, config.validate, quietRun, cli.ErrBadFlag,
		filepath.Join(dir, "out"), filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "rounds.jsonl"))
}

// common are the flags every perftest example checks the same way.
var common = []labtest.Refusal[config]{
	{Set: func(c *config) { c.Count = -1 }, Want: "-count -1: want 1 or more"},
	{Set: func(c *config) { c.Iterations = -1 }, Want: "-n -1: want 5 or more"},
	{Set: func(c *config) { c.QPTimeout = 99 }, Want: "-qp-timeout 99: want 0 to 31"},
	{Set: func(c *config) { c.Timeout = -time.Second }, Want: "-timeout -1s: want 0 or more"},
	{Set: func(c *config) { c.RXE = "" }, Want: `-rxe "": want an RDMA device name`},
	{Set: func(c *config) { c.Netdev = "eth0:1" }, Want: `-netdev "eth0:1": want a netdev name`},
}

func goodFlags(dir string) cli.Flags {
	return cli.Flags{Netdev: "rktest0", Journal: filepath.Join(dir, "journal.jsonl"), Timeout: time.Minute}
}

func goodConfig(dir string) config {
	return config{Flags: goodFlags(dir), RXE: "rxe0", MTUs: "1500,9000", Count: 3, Iterations: 10000, Size: 65536,
		Out: filepath.Join(dir, "out"), Store: filepath.Join(dir, "rounds.jsonl")}
}

var badFlags = append([]labtest.Refusal[config]{
	{Set: func(c *config) { c.MTUs = "1500,70000" }, Want: `-mtus "1500,70000": 70000 is outside 68–65535`},
	{Set: func(c *config) { c.Size = -1 }, Want: "-s -1: want 1 to 1073741824"},
}, common...)

// TestValidateAllSizes: -s is not read with -a.
func TestValidateAllSizes(t *testing.T) {
	c := goodConfig(t.TempDir())
	c.Size, c.AllSizes = 0, true
	if err := c.validate(); err != nil {
		t.Errorf("-a with -s 0: %v", err)
	}
}

// quietRun runs the example with its output discarded.
func quietRun(c config) error { return run(context.Background(), c, io.Discard, io.Discard) }
