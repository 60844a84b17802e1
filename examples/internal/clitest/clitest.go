// Package clitest is what only the examples' tests share: the refusals
// of the step flags (cli.StepFlags) every soft-RoCE step example checks
// the same way, and the scaffolding of their lab tests (a veth in the
// guest, a loopback run on it, its restore checked).
package clitest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/internal/labtest"
)

// GoodStepFlags are step flags that validate, on a netdev that does not
// exist (so that a regression fails without touching a real one), with
// the journal, the store and -out in dir.
func GoodStepFlags(dir string) cli.StepFlags {
	return cli.StepFlags{Flags: cli.Flags{Netdev: "rktest0", Journal: filepath.Join(dir, "journal.jsonl"), Timeout: time.Minute},
		RXE: "rxe0", Count: 3, Iterations: 10000, Out: filepath.Join(dir, "out"), Store: filepath.Join(dir, "rounds.jsonl")}
}

// StepRefusals are the refusals of the flags every step example checks
// the same way; flags picks a configuration's StepFlags.
func StepRefusals[C any](flags func(*C) *cli.StepFlags) []labtest.Refusal[C] {
	set := func(f func(*cli.StepFlags)) func(*C) { return func(c *C) { f(flags(c)) } }
	return []labtest.Refusal[C]{
		{Set: set(func(f *cli.StepFlags) { f.Count = -1 }), Want: "-count -1: want 1 or more"},
		{Set: set(func(f *cli.StepFlags) { f.Iterations = -1 }), Want: "-n -1: want 5 or more"},
		{Set: set(func(f *cli.StepFlags) { f.QPTimeout = 99 }), Want: "-qp-timeout 99: want 0 to 31"},
		{Set: set(func(f *cli.StepFlags) { f.Timeout = -time.Second }), Want: "-timeout -1s: want 0 or more"},
		{Set: set(func(f *cli.StepFlags) { f.RXE = "" }), Want: `-rxe "": want an RDMA device name`},
		{Set: set(func(f *cli.StepFlags) { f.Netdev = "eth0:1" }), Want: `-netdev "eth0:1": want a netdev name`},
	}
}

// CheckStepRefusals is labtest.CheckRefusals of a step example: every
// refusal of own and of StepRefusals is made by validate, a pure
// function, naming the flag and its range, and by run before anything
// else, so that no module is loaded, no rxe link added and no MTU set;
// nothing is written either (no -out, journal or store in the folder
// good is given, where its configurations have them).
func CheckStepRefusals[C any](t *testing.T, good func(dir string) C, flags func(*C) *cli.StepFlags, own []labtest.Refusal[C], validate, run func(C) error) {
	t.Helper()
	dir := t.TempDir()
	labtest.CheckRefusals(t, func() C { return good(dir) }, slices.Concat(own, StepRefusals(flags)), validate, run, cli.ErrBadFlag,
		filepath.Join(dir, "out"), filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "rounds.jsonl"))
}

// Quiet is an example's run with its output discarded, as
// CheckRefusals and CheckStepRefusals call it: only the error counts.
func Quiet[C any](run func(ctx context.Context, c C, out, status io.Writer) error) func(C) error {
	return func(c C) error { return run(context.Background(), c, io.Discard, io.Discard) }
}

// LabStepFlags is, in a lab guest (the test is skipped elsewhere), a veth
// pair netdev–peer with netdev at cidr, and the step flags of a loopback
// run on it: the rxe link rxe, count runs of 200 iterations at the lab's
// perftest -u 22, the journal, the store and -out in a fresh folder.
func LabStepFlags(t *testing.T, netdev, peer, cidr, rxe string, count int) cli.StepFlags {
	t.Helper()
	labtest.Guest(t)
	labtest.Veth(t, netdev, peer, cidr)
	dir := t.TempDir()
	return cli.StepFlags{Flags: cli.Flags{Netdev: netdev, Journal: filepath.Join(dir, "journal.jsonl")},
		RXE: rxe, Count: count, Iterations: 200, QPTimeout: 22,
		Store: filepath.Join(dir, "rounds.jsonl"), Out: filepath.Join(dir, "out")}
}

// RunRestored runs run within timeout, logs what it printed, fails the
// test on its error, and checks that everything it changed is back: the
// rxe link of f gone, the MTU of f's netdev 1500. It returns the output.
func RunRestored(t *testing.T, f cli.StepFlags, timeout time.Duration, run func(ctx context.Context, out io.Writer) error) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out strings.Builder
	err := run(ctx, &out)
	t.Logf("it printed:\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	labtest.CheckRestored(t, f.RXE, f.Netdev, "1500")
	return out.String()
}

// ListCase is one value of a list flag ("-mtus 1500,9000") and what its
// parser gives: the numbers, sorted, or an error saying WantErr.
type ListCase struct {
	In      string
	Want    []int
	WantErr string
}

// ListBounds are the cases every list flag parsed by cli.ParseList
// within [lo, hi] must get right, whatever its own values: both bounds
// taken and sorted, one past each refused, empty entries, a word and a
// repeat refused. An example adds its own values to them.
func ListBounds(lo, hi int) []ListCase {
	return []ListCase{
		{In: fmt.Sprintf("%d, %d", hi, lo), Want: []int{lo, hi}},
		{In: fmt.Sprint(lo), Want: []int{lo}},
		{In: "", WantErr: "empty entry"},
		{In: fmt.Sprintf("%d,,%d", lo, hi), WantErr: "empty entry"},
		{In: fmt.Sprintf("%d,", lo), WantErr: "empty entry"},
		{In: fmt.Sprintf("%d,jumbo", lo), WantErr: `"jumbo" is not a number`},
		{In: fmt.Sprintf("%d,%d", hi, lo-1), WantErr: fmt.Sprintf(": %d is outside %d–%d", lo-1, lo, hi)},
		{In: fmt.Sprint(hi + 1), WantErr: fmt.Sprintf(": %d is outside %d–%d", hi+1, lo, hi)},
		{In: fmt.Sprintf("%d,%d,%d", lo, hi, lo), WantErr: fmt.Sprintf(": %d twice", lo)},
	}
}

// CheckList runs a list flag's parser (named name in failures, such as
// "parseMTUs") over cases.
func CheckList(t *testing.T, name string, parse func(string) ([]int, error), cases []ListCase) {
	t.Helper()
	for _, tc := range cases {
		got, err := parse(tc.In)
		if tc.WantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.WantErr) {
				t.Errorf("%s(%q) = %v, %v; want error with %q", name, tc.In, got, err, tc.WantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s(%q): %v", name, tc.In, err)
			continue
		}
		if !slices.Equal(tc.Want, got) {
			t.Errorf("%s(%q) = %v, want %v", name, tc.In, got, tc.Want)
		}
	}
}
