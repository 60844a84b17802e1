package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
)

// TestValidate: every bad flag is refused by validate, a pure function,
// naming the flag and its range; run refuses it before anything else, so
// that no module is loaded, no rxe link added and no MTU set (nothing is
// written either). The netdev does not exist, so that a regression fails
// here without touching a real one.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	if err := goodConfig(dir).validate(); err != nil {
		t.Fatalf("good flags: %v", err)
	}
	for _, tc := range badFlags {
		c := goodConfig(dir)
		tc.set(&c)
		err := c.validate()
		if !errors.Is(err, cli.ErrBadFlag) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("validate = %v, want %q", err, tc.want)
		}
		if err := run(context.Background(), c, io.Discard, io.Discard); !errors.Is(err, cli.ErrBadFlag) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run = %v, want the refusal %q first", err, tc.want)
		}
	}
	for _, p := range []string{"out", "journal.jsonl", "rounds.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s written by a refused run", p)
		}
	}
}

// common are the flags every perftest example checks the same way.
var common = []badFlag{
	{func(c *config) { c.Count = -1 }, "-count -1: want 1 or more"},
	{func(c *config) { c.Iterations = -1 }, "-n -1: want 5 or more"},
	{func(c *config) { c.QPTimeout = 99 }, "-qp-timeout 99: want 0 to 31"},
	{func(c *config) { c.Timeout = -time.Second }, "-timeout -1s: want 0 or more"},
	{func(c *config) { c.RXE = "" }, `-rxe "": want an RDMA device name`},
	{func(c *config) { c.Netdev = "eth0:1" }, `-netdev "eth0:1": want a netdev name`},
}

type badFlag struct {
	set  func(*config)
	want string
}

func goodFlags(dir string) cli.Flags {
	return cli.Flags{Netdev: "rktest0", Journal: filepath.Join(dir, "journal.jsonl"), Timeout: time.Minute}
}

func goodConfig(dir string) config {
	return config{Flags: goodFlags(dir), RXE: "rxe0", MTU: 9000, QPs: "1,2,4", Count: 3, Iterations: 10000,
		Out: filepath.Join(dir, "out"), Store: filepath.Join(dir, "rounds.jsonl")}
}

var badFlags = append([]badFlag{
	{func(c *config) { c.MTU = 70000 }, "-mtu 70000: want 68 to 65535"},
	{func(c *config) { c.QPs = "1,0" }, `-qps "1,0": 0 is outside`},
}, common...)
