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

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/examples/internal/cli"
)

func goodConfig(dir string) config {
	return config{Flags: cli.Flags{Peer: "root@198.18.0.2", Journal: filepath.Join(dir, "journal.jsonl"), Timeout: time.Minute},
		Netdevs: "rktest0,rktest1", Tool: "perftest", Duration: 5, MinRatio: 0.9, Out: filepath.Join(dir, "out")}
}

// TestNetdevs: the far end's netdevs are -peer-netdevs, else the
// documented -peer-netdev, else this end's.
func TestNetdevs(t *testing.T) {
	for _, tc := range []struct {
		c         config
		near, far []string
	}{
		{config{Netdevs: "a0, a1"}, []string{"a0", "a1"}, []string{"a0", "a1"}},
		{config{Flags: cli.Flags{Netdev: "a0", PeerNetdev: "b0"}}, []string{"a0"}, []string{"b0"}},
		{config{Netdevs: "a0,a1", PeerNetdevs: "b0,b1"}, []string{"a0", "a1"}, []string{"b0", "b1"}},
	} {
		near, far := tc.c.netdevs()
		if d := cmp.Diff([][]string{tc.near, tc.far}, [][]string{near, far}); d != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.c, d)
		}
	}
}

// TestValidate: every bad flag is refused before anything touches the
// system, naming the flag and its range; run refuses it first.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	if err := goodConfig(dir).validate(); err != nil {
		t.Fatalf("good flags: %v", err)
	}
	for _, tc := range []struct {
		set  func(*config)
		want string
	}{
		{func(c *config) { c.Port = 70000 }, "-port 70000: want 1 to 65534 for 2 consecutive ports"},
		{func(c *config) { c.Port, c.Netdevs = 70000, "rktest0" }, "-port 70000: want 1 to 65535, or 0"},
		{func(c *config) { c.Port = 65535 }, "-port 65535: want 1 to 65534 for 2 consecutive ports"},
		{func(c *config) { c.MinRatio = 5 }, "-min-ratio 5: want more than 0 and at most 1"},
		{func(c *config) { c.LineRate = -1 }, "-line-rate -1: want 0 or more"},
		{func(c *config) { c.Duration = 0 }, "-D 0: want 1 or more"},
		{func(c *config) { c.Iterations = 3 }, "-n 3: want 5 or more"},
		{func(c *config) { c.QPTimeout = 99 }, "-qp-timeout 99: want 0 to 31"},
		{func(c *config) { c.MTU = 70000 }, "-mtu 70000: want 68 to 65535"},
		{func(c *config) { c.Timeout = -time.Second }, "-timeout -1s: want 0 or more"},
		{func(c *config) { c.Tool = "iperf" }, `-tool "iperf": want perftest or netperf`},
		{func(c *config) { c.Netdevs = "" }, "-netdevs (or -netdev) is required"},
		{func(c *config) { c.Netdevs = "a0,a/b" }, `-netdevs "a/b": want a netdev name`},
		{func(c *config) { c.PeerNetdevs = "b0"; c.PeerNetdev = "b1" }, "-peer-netdev and -peer-netdevs exclude each other"},
		{func(c *config) { c.Netdev = "a9" }, "-netdev and -netdevs exclude each other"},
		{func(c *config) { c.Peer = ""; c.PeerNetdevs = "b0,b1" }, "-peer-netdevs needs -peer or -peer-netns"},
	} {
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
	// -D is not read with -n.
	c := goodConfig(dir)
	c.Duration, c.Iterations = 0, 1000
	if err := c.validate(); err != nil {
		t.Errorf("-n 1000 -D 0: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("-out written by a refused run")
	}
}
