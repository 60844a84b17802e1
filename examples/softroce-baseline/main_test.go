package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

func goodConfig(dir string) config {
	return config{Flags: cli.Flags{Netdev: "rktest0", Journal: filepath.Join(dir, "journal.jsonl"), Timeout: time.Minute},
		RXE: "rxe0", MTU: 9000, Count: 3, Iterations: 10000, QPTimeout: 22, Out: filepath.Join(dir, "out"),
		Store: filepath.Join(dir, "rounds.jsonl"), Soak: time.Minute}
}

// TestValidate: every bad flag is refused by validate, a pure function,
// naming the flag and its range; run refuses it before anything else, so
// that no module is loaded, no rxe link added and no MTU set (nothing is
// written either: no -out, no journal). The netdev does not exist, so
// that a regression fails here without touching a real one.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	labtest.CheckRefusals(t, func() config { return goodConfig(dir) }, []labtest.Refusal[config]{
		{Set: func(c *config) { c.Count = -1 }, Want: "-count -1: want 1 or more"},
		{Set: func(c *config) { c.Iterations = -1 }, Want: "-n -1: want 5 or more"},
		{Set: func(c *config) { c.MTU = 70000 }, Want: "-mtu 70000: want 68 to 65535"},
		{Set: func(c *config) { c.QPTimeout = 99 }, Want: "-qp-timeout 99: want 0 to 31"},
		{Set: func(c *config) { c.Soak = -5 * time.Second }, Want: "-soak -5s: want 0 or more"},
		{Set: func(c *config) { c.Timeout = -time.Second }, Want: "-timeout -1s: want 0 or more"},
		{Set: func(c *config) { c.RXE = "rxe/../x" }, Want: `-rxe "rxe/../x"`},
		{Set: func(c *config) { c.Netdev = "" }, Want: "-netdev is required"},
	}, config.validate, quietRun, cli.ErrBadFlag,
		filepath.Join(dir, "out"), filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "rounds.jsonl"))
}

// TestWriteRoundFirstOfItsName: a store holding other tests' rounds has
// no previous round for this one (Query's unknown name is no error here).
func TestWriteRoundFirstOfItsName(t *testing.T) {
	store := report.OpenStore(filepath.Join(t.TempDir(), "rounds.jsonl"))
	m := []report.Metric{{Name: "t_typical", Unit: report.UnitMicros, Better: report.LowerIsBetter, Values: []float64{5}}}
	if err := store.Append(report.Round{Name: "ib_send_lat", Params: []report.Param{{Key: "mode", Value: "loopback"}}, Metrics: m}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	round := report.Round{Name: "ib_send_bw", Params: []report.Param{{Key: "mode", Value: "loopback"}, {Key: "netdev_mtu", Value: "9000"}},
		Metrics: []report.Metric{{Name: "bw_avg", Unit: report.UnitGbps, Better: report.HigherIsBetter, Values: []float64{1}}}}
	if _, err := writeRound(&b, store, round, runbook.RXEInfo{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "## ib_send_bw (first round: the baseline)") {
		t.Errorf("report:\n%s", b.String())
	}
	// Rerun with another MTU: compared with the previous round all the
	// same, the change named (issue: "changed: mtu 1500 → 9000").
	next := round
	next.Start = round.Start.Add(time.Minute)
	next.Params = []report.Param{{Key: "mode", Value: "loopback"}, {Key: "netdev_mtu", Value: "1500"}}
	b.Reset()
	if _, err := writeRound(&b, store, next, runbook.RXEInfo{}); err != nil || !strings.Contains(b.String(), "## ib_send_bw against the previous round") ||
		!strings.Contains(b.String(), "Changed: `netdev_mtu` 9000 → 1500.") {
		t.Errorf("second round: %v\n%s", err, b.String())
	}
}

// quietRun runs the example with its output discarded.
func quietRun(c config) error { return run(context.Background(), c, io.Discard, io.Discard) }
