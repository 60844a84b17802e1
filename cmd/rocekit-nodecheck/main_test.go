package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/rocekittest"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/sysroot"
)

// node is a fake node: the captured TCP_STREAM of the lab (215.03
// Mbit/s) for the loopback run, every program of installed present and
// answering -V, the others missing.
func node(t *testing.T, installed ...string) *host.Fake {
	t.Helper()
	c, err := rocekittest.Lookup("trixie/netperf/tcp-stream-k-all")
	if err != nil {
		t.Fatal(err)
	}
	np, err := rocekittest.FakeNetperf(c)
	if err != nil {
		t.Fatal(err)
	}
	return &host.Fake{Name: "node", Respond: func(cmd host.Cmd) host.FakeScript {
		prog, _ := rocekittest.Program(cmd.Argv)
		switch {
		case !slices.Contains(installed, prog):
			return host.FakeScript{StartErr: host.ErrNotFound}
		case slices.Contains(cmd.Argv, "-V") || slices.Contains(cmd.Argv, "--version"):
			return host.FakeScript{Stdout: prog + " version\n"}
		case prog == "scontrol":
			return host.FakeScript{}
		}
		return np.Respond(cmd)
	}}
}

// rdmaRoot is a sysfs tree with rxe0 port 1 in state.
func rdmaRoot(t *testing.T, state string) rxe.Root {
	dir := t.TempDir()
	p := filepath.Join(dir, "sys/class/infiniband/rxe0/ports/1")
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(p, "state"), []byte(state+"\n"), 0o644)
	os.WriteFile(filepath.Join(p, "phys_state"), []byte("5: LinkUp\n"), 0o644)
	return rxe.Root(sysroot.Dir(dir))
}

func TestNodeCheck(t *testing.T) {
	base := config{MinGbps: 0.1, Length: time.Second, Port: 12899, Timeout: 50 * time.Second}
	all := []string{"netperf", "netserver", "ib_send_bw", "scontrol"}
	for _, tc := range []struct {
		name      string
		installed []string
		rdma      string // port state; "" without -rdma
		min       float64
		drain     bool
		code      int
		out       string
	}{
		{name: "healthy", installed: all, code: 0},
		{name: "healthy rdma", installed: all, rdma: "4: ACTIVE", code: 0},
		{name: "netperf missing", installed: []string{"netserver"}, code: 1, out: "rocekit: netperf missing (apt install netperf)\n"},
		{name: "perftest missing", installed: []string{"netperf", "netserver"}, rdma: "4: ACTIVE", code: 1,
			out: "rocekit: ib_send_bw missing (apt install perftest)\n"},
		{name: "port down", installed: all, rdma: "1: DOWN", code: 1, out: "rocekit: no RDMA port ACTIVE (rxe0/1 DOWN)\n"},
		{name: "slow", installed: all, min: 1, drain: true, code: 1, out: "rocekit: loopback netperf 0.22 Gbit/s below 1 Gbit/s\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			if tc.min > 0 {
				c.MinGbps = tc.min
			}
			c.RDMA, c.Drain, c.Node = tc.rdma != "", tc.drain, "n2"
			root := rxe.Root(sysroot.Dir(t.TempDir()))
			if c.RDMA {
				root = rdmaRoot(t, tc.rdma)
			}
			f := node(t, tc.installed...)
			var out, errOut bytes.Buffer
			code := run(context.Background(), f, root, c, &out, &errOut)
			if code != tc.code || out.String() != tc.out {
				t.Errorf("exit %d, stdout %q (stderr %q); want %d, %q", code, out.String(), errOut.String(), tc.code, tc.out)
			}
			if code == 0 && !strings.Contains(errOut.String(), "loopback netperf 0.22 Gbit/s") {
				t.Errorf("summary %q", errOut.String())
			}
			var drained []string
			for _, a := range f.Argvs() {
				if a[0] == "scontrol" {
					drained = a
				}
			}
			if want := []string{"scontrol", "update", "NodeName=n2", "State=DRAIN", "Reason=" + strings.TrimSpace(tc.out)}; tc.drain != (drained != nil) || (tc.drain && !slices.Equal(drained, want)) {
				t.Errorf("drain %q, want %q", drained, want)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	if got := oneLine("rocekit: a\nb"); got != "rocekit: a" {
		t.Errorf("%q", got)
	}
	if got := oneLine(strings.Repeat("x", 500)); len(got) != maxReason {
		t.Errorf("%d bytes", len(got))
	}
}
