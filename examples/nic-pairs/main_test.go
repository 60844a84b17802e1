package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/internal/labtest"
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
	labtest.CheckRefusals(t, func() config { return goodConfig(dir) }, []labtest.Refusal[config]{
		{Set: func(c *config) { c.Port = 70000 }, Want: "-port 70000: want 1 to 65534 for 2 consecutive ports"},
		{Set: func(c *config) { c.Port, c.Netdevs = 70000, "rktest0" }, Want: "-port 70000: want 1 to 65535, or 0"},
		{Set: func(c *config) { c.Port = 65535 }, Want: "-port 65535: want 1 to 65534 for 2 consecutive ports"},
		{Set: func(c *config) { c.MinRatio = 5 }, Want: "-min-ratio 5: want more than 0 and at most 1"},
		{Set: func(c *config) { c.LineRate = -1 }, Want: "-line-rate -1: want 0 or more"},
		{Set: func(c *config) { c.Duration = 0 }, Want: "-D 0: want 1 or more"},
		{Set: func(c *config) { c.Iterations = 3 }, Want: "-n 3: want 5 or more"},
		{Set: func(c *config) { c.QPTimeout = 99 }, Want: "-qp-timeout 99: want 0 to 31"},
		{Set: func(c *config) { c.MTU = 70000 }, Want: "-mtu 70000: want 68 to 65535"},
		{Set: func(c *config) { c.Timeout = -time.Second }, Want: "-timeout -1s: want 0 or more"},
		{Set: func(c *config) { c.Tool = "iperf" }, Want: `-tool "iperf": want one of perftest, netperf`},
		{Set: func(c *config) { c.Netdevs = "" }, Want: "-netdevs (or -netdev) is required"},
		{Set: func(c *config) { c.Netdevs = "a0,a/b" }, Want: `-netdevs "a/b": want a netdev name`},
		{Set: func(c *config) { c.PeerNetdevs = "b0"; c.PeerNetdev = "b1" }, Want: "-peer-netdev and -peer-netdevs exclude each other"},
		{Set: func(c *config) { c.Netdev = "a9" }, Want: "-netdev and -netdevs exclude each other"},
		{Set: func(c *config) { c.Peer = ""; c.PeerNetdevs = "b0,b1" }, Want: "-peer-netdevs needs -peer or -peer-netns"},
	}, config.validate, clitest.Quiet(run), cli.ErrBadFlag)
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
