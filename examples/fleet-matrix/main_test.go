package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/internal/labtest"
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
	labtest.CheckRefusals(t, func() config { return good() }, []labtest.Refusal[config]{
		{Set: func(c *config) { c.Timeout = -time.Second }, Want: "-timeout -1s: want 0 or more"},
		{Set: func(c *config) { c.PairTimeout = -time.Second }, Want: "-pair-timeout -1s: want 0 or more"},
		{Set: func(c *config) { c.SSH.Timeout = -time.Second }, Want: "-ssh-timeout -1s: want 0 or more"},
		{Set: func(c *config) { c.MTU = 70000 }, Want: "-mtu 70000: want 68 to 65535"},
		{Set: func(c *config) { c.MinRatio = 5 }, Want: "-min-ratio 5: want more than 0 and at most 1"},
		{Set: func(c *config) { c.SlowRatio = -1 }, Want: "-slow-ratio -1: want more than 0 and at most 1"},
		{Set: func(c *config) { c.LineRate = -1 }, Want: "-line-rate -1: want 0 or more"},
		{Set: func(c *config) { c.MaxPairs = -1 }, Want: "-max-pairs -1: want 0 or more"},
		{Set: func(c *config) { c.QPTimeout = 99 }, Want: "QPTimeout"},
		{Set: func(c *config) { c.Hosts = c.Hosts[:1] }, Want: "-host: at least two hosts"},
		{Set: func(c *config) { c.Tool = "netpref" }, Want: `-tool "netpref": want one of perftest, netperf (did you mean "netperf"?)`},
		{Set: func(c *config) { c.Schedule = "rign" }, Want: `-schedule: fleet: invalid schedule: "rign": "rign" is not HOST-HOST of the host names (did you mean "ring"?)`},
	}, config.validate, clitest.Quiet(run), cli.ErrBadFlag)
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("-out made by a refused run")
	}
}
