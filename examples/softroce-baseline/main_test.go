package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rocekittest"
)

func goodConfig(dir string) config {
	c := config{StepFlags: clitest.GoodStepFlags(dir), MTU: 9000, Soak: time.Minute}
	c.QPTimeout = 22
	return c
}

// TestValidate: every bad flag, the step flags' and the baseline's own,
// is refused by validate and by run before anything else (clitest).
func TestValidate(t *testing.T) {
	clitest.CheckStepRefusals(t, goodConfig, func(c *config) *cli.StepFlags { return &c.StepFlags }, []labtest.Refusal[config]{
		{Set: func(c *config) { c.MTU = 70000 }, Want: "-mtu 70000: want 68 to 65535"},
		{Set: func(c *config) { c.Soak = -5 * time.Second }, Want: "-soak -5s: want 0 or more"},
		{Set: func(c *config) { c.RXE = "rxe/../x" }, Want: `-rxe "rxe/../x"`},
		{Set: func(c *config) { c.Netdev = "" }, Want: "-netdev is required"},
	}, config.validate, clitest.Quiet(run))
}

// bothTests is one fake host that plays trixie's captured ib_send_bw
// --report_gbits and ib_send_lat pairs, each by its program and role.
func bothTests(t *testing.T, name string) *host.Fake {
	t.Helper()
	fakes := map[string]*host.Fake{}
	for prog, id := range map[string]string{"ib_send_bw": "trixie/perftest/send-bw-gbits", "ib_send_lat": "trixie/perftest/send-lat"} {
		c, err := rocekittest.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		fakes[prog] = rocekittest.PerftestFake(c, name)
	}
	return &host.Fake{Name: name, Respond: func(c host.Cmd) host.FakeScript {
		prog, _ := rocekittest.Program(c.Argv)
		if f, ok := fakes[prog]; ok {
			return f.Respond(c)
		}
		return fakes["ib_send_bw"].Respond(c) // not found
	}}
}

// TestBaselineOnFakes: the baseline on two fake ends, twice, the second
// time at MTU 9000 with the governor and pinning: every round is stored
// with both ends' fingerprint (command lines as run, kernel), its
// findings and its archive; the second run is compared with the first
// and names the change; -F is passed only with -no-freq-check.
func TestBaselineOnFakes(t *testing.T) {
	dir := t.TempDir()
	c := goodConfig(dir)
	c.Count, c.Iterations, c.Soak = 2, 300, 0
	sides := rocekittest.FakeSidesOn(bothTests(t, "server-host"), bothTests(t, "client-host"))
	var out strings.Builder
	if err := baseline(context.Background(), c, sides, nil, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## ib_send_bw (first round: the baseline)", "## ib_send_lat (first round: the baseline)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("first report lacks %q:\n%s", want, out.String())
		}
	}
	sides.NearRXE.NetdevMTU, sides.FarRXE.NetdevMTU = 9000, 9000
	c.Governor, c.ServerCPUs, c.ClientCPUs, c.NoFreqCheck = "performance", "1", "0-1", true
	out.Reset()
	if err := baseline(context.Background(), c, sides, nil, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "## ib_send_bw against the previous round") || !strings.Contains(out.String(), "`netdev_mtu` 1500 → 9000") {
		t.Errorf("second report:\n%s", out.String())
	}
	rounds, _, err := report.OpenStore(c.Store).Load()
	if err != nil || len(rounds) != 4 {
		t.Fatalf("store: %d rounds, %v", len(rounds), err)
	}
	for i, r := range rounds {
		fp := r.Fingerprint
		if fp == nil || fp.Kernel != "6.12.0-fake" || len(fp.Argv) != 2 || len(fp.RXE) != 2 {
			t.Fatalf("round %d %s: fingerprint %+v", i, r.Name, fp)
		}
		cli := strings.Join(fp.Argv[1].Argv, " ")
		pinned, noFreq := strings.HasPrefix(cli, "taskset -c 0,1 "), strings.Contains(cli, " -F ")
		if want := i >= 2; pinned != want || noFreq != want {
			t.Errorf("round %d: client %q: pinned %v, -F %v, want %v", i, cli, pinned, noFreq, want)
		}
		if _, err := os.Stat(filepath.Join(c.Out, r.Name+".tar.gz")); err != nil {
			t.Error(err)
		}
	}
	if v, _ := rounds[3].Param("governor"); v != "performance" {
		t.Errorf("governor param %q", v)
	}
	b, err := os.ReadFile(filepath.Join(c.Out, "summary.json"))
	if err != nil || !strings.Contains(string(b), `"name": "ib_send_lat"`) {
		t.Errorf("summary.json: %v\n%s", err, b)
	}
}

// TestValidateCPUsAndGovernor: a bad CPU list or governor is refused,
// naming the flag.
func TestValidateCPUsAndGovernor(t *testing.T) {
	c := goodConfig(t.TempDir())
	c.ServerCPUs, c.Governor = "two", "fast"
	err := c.validate()
	if !errors.Is(err, cli.ErrBadFlag) || !strings.Contains(err.Error(), `-server-cpus "two"`) || !strings.Contains(err.Error(), `-governor "fast"`) {
		t.Errorf("validate = %v", err)
	}
	c.ServerCPUs, c.ClientCPUs, c.Governor = "0-3,6", "2", "performance"
	if s, cl, err := c.cpus(); err != nil || len(s) != 5 || len(cl) != 1 || cl[0] != 2 {
		t.Errorf("cpus = %v %v %v", s, cl, err)
	}
}
