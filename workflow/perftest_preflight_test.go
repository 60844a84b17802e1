package workflow_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/workflow"
)

// TestRDMAPreflightStopsTheStep: a far end without ib_send_bw is named
// with its package before any pair starts, and the step stops with
// ErrPreflight; with both ends ready (their fake runners have no ping:
// the reach is unknown, a warning) the step runs and the preflight's
// findings are the round's.
func TestRDMAPreflightStopsTheStep(t *testing.T) {
	fs := fakeSides(t)
	fs.far.HostState.Tools["ib_send_bw"] = "" // not in its PATH
	dir := t.TempDir()
	step := workflow.PerftestStep{Options: perftest.Options{Test: perftest.SendBW, Iterations: 1000}, Count: 1, Out: dir,
		Store: report.OpenStore(filepath.Join(dir, "rounds.jsonl")), Preflight: workflow.RDMAPreflight(0, "ib_send_bw")}
	res, err := workflow.RunPerftest(context.Background(), fs.Sides, step)
	if !errors.Is(err, workflow.ErrPreflight) || !strings.Contains(err.Error(), "ib_send_bw") || !strings.Contains(err.Error(), "perftest") || res.Measured {
		t.Fatalf("measured %v, err %v", res.Measured, err)
	}
	fs = fakeSides(t)
	res, err = workflow.RunPerftest(context.Background(), fs.Sides, step)
	if err != nil || !res.Measured || !hasRule(res.Round.Findings, report.RuleGIDReachUnknown) {
		t.Errorf("ready ends: measured %v, err %v, findings %+v", res.Measured, err, res.Round.Findings)
	}
}

// TestRunPerftestSelfCPU: the step stores rocekit's own CPU time while
// the pairs ran, by host: this process for the near end, the far end's
// agents (none answer a fake: 0).
func TestRunPerftestSelfCPU(t *testing.T) {
	fs := fakeSides(t)
	dir := t.TempDir()
	res, err := workflow.RunPerftest(context.Background(), fs.Sides, workflow.PerftestStep{Options: perftest.Options{Test: perftest.SendBW, Iterations: 1000},
		Count: 2, Out: dir, Store: report.OpenStore(filepath.Join(dir, "rounds.jsonl"))})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Round.SelfCPUSec
	if len(m) != 2 || m["near"] <= 0 || m["far"] != 0 {
		t.Errorf("self CPU %v", m)
	}
}

// TestRunPerftestFreqCheckInVM: an end without cpufreq (a VM) gets -F,
// since perftest's frequency check fails runs there, and the round says
// so; with cpufreq on both ends the check stays.
func TestRunPerftestFreqCheckInVM(t *testing.T) {
	for _, vm := range []bool{false, true} {
		fs := fakeSides(t)
		if vm {
			fs.far.HostState.Governors = nil
		}
		dir := t.TempDir()
		res, err := workflow.RunPerftest(context.Background(), fs.Sides, workflow.PerftestStep{Options: perftest.Options{Test: perftest.SendBW, Iterations: 1000},
			Count: 1, Out: dir, Store: report.OpenStore(filepath.Join(dir, "rounds.jsonl"))})
		if err != nil {
			t.Fatal(err)
		}
		argv := strings.Join(res.Pairs.Pairs[0].Client.Argv, " ")
		warned := strings.Contains(strings.Join(res.Round.Warnings, "\n"), "far has no cpufreq")
		if strings.Contains(argv, " -F ") != vm || warned != vm {
			t.Errorf("vm %v: client %q, warnings %q", vm, argv, res.Round.Warnings)
		}
	}
}
