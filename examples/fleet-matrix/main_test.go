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

// TestValidate: the flags that were read only once hosts were open (or
// never: a negative -timeout meant none) are refused before anything
// touches the system, naming the flag and its range.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	good := func() config {
		return config{Hosts: hostList{{Name: "a", Target: "local", Netdevs: []string{"rktest0"}}, {Name: "b", Target: "root@198.18.0.2", Netdevs: []string{"rktest0"}}},
			Schedule: "all", PerHost: 1, Tool: "perftest", Duration: 5, PairTimeout: time.Minute, MinRatio: 0.9, SlowRatio: 0.7,
			Timeout: time.Hour, Out: filepath.Join(dir, "out"), Store: filepath.Join(dir, "rounds.jsonl")}
	}
	if err := good().validate(); err != nil {
		t.Fatalf("good flags: %v", err)
	}
	for _, tc := range []struct {
		set  func(*config)
		want string
	}{
		{func(c *config) { c.Timeout = -time.Second }, "-timeout -1s: want 0 or more"},
		{func(c *config) { c.PairTimeout = -time.Second }, "-pair-timeout -1s: want 0 or more"},
		{func(c *config) { c.SSH.Timeout = -time.Second }, "-ssh-timeout -1s: want 0 or more"},
		{func(c *config) { c.MTU = 70000 }, "-mtu 70000: want 68 to 65535"},
		{func(c *config) { c.MinRatio = 5 }, "-min-ratio 5: want more than 0 and at most 1"},
		{func(c *config) { c.SlowRatio = -1 }, "-slow-ratio -1: want more than 0 and at most 1"},
		{func(c *config) { c.LineRate = -1 }, "-line-rate -1: want 0 or more"},
		{func(c *config) { c.MaxPairs = -1 }, "-max-pairs -1: want 0 or more"},
		{func(c *config) { c.QPTimeout = 99 }, "QPTimeout"},
		{func(c *config) { c.Hosts = c.Hosts[:1] }, "-host: at least two hosts"},
	} {
		c := good()
		tc.set(&c)
		err := c.validate()
		if !errors.Is(err, cli.ErrBadFlag) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("validate = %v, want %q", err, tc.want)
		}
		if err := run(context.Background(), c, io.Discard, io.Discard); !errors.Is(err, cli.ErrBadFlag) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run = %v, want the refusal %q first", err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("-out made by a refused run")
	}
}
