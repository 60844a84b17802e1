package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocekit/rocekit/internal/lab"
)

// Test name prefixes: TestLab* run inside one guest per suite (the lab
// test binary is copied into the guest); TestGuests* run on the host with
// the lab tag and boot their own guests (several, joined by links or a
// segment), once per suite with ROCEKIT_LAB_SUITES set to it.
const (
	guestTestPrefix = "TestLab"
	hostTestPrefix  = "TestGuests"
)

// testOptions are lab test's flags.
type testOptions struct {
	run     string
	pkgs    string
	verbose bool
	timeout time.Duration
	cache   string
}

// labTestBinary is one package's compiled lab tests and the tests of its
// that the -run pattern selects, split by where they run.
type labTestBinary struct {
	pkg        lab.TestPackage
	short      string // import path without the module: "fleet"
	bin        string
	buildErr   error
	guestTests []string
	hostTests  []string
}

// cmdTest compiles the selected packages' lab tests (go test -c -tags
// lab), runs their TestLab* tests in a guest of each selected suite and
// their TestGuests* tests on the host per suite, and prints one package ×
// suite table. It fails when any row is not PASS: a package that fails,
// does not build, or whose selected tests all skipped in a suite (counting
// subtests: a TestGuests* whose per-suite subtests skipped is SKIP).
func cmdTest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("test", flag.ExitOnError)
	var c commonFlags
	c.register(fs)
	var o testOptions
	fs.StringVar(&o.run, "run", "", "test name pattern (as go test -run); TestLab* of the matches run in a guest, TestGuests* on the host")
	fs.StringVar(&o.pkgs, "pkg", "", "comma-separated packages (go list patterns, e.g. ./fleet,./rxe); default: every package with lab tests")
	fs.BoolVar(&o.verbose, "v", false, "stream the tests' output")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "deadline per suite, for the guest and for each package's host tests")
	fs.Parse(args)
	o.cache = c.cache

	pkgs, err := lab.LabTestPackages(ctx, splitList(o.pkgs)...)
	if err != nil {
		return err
	}
	if len(pkgs) == 0 {
		return fmt.Errorf("no selected package has lab tests")
	}
	s, err := c.start(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	bins := buildLabTests(ctx, s.dir, pkgs, o.run)
	t := newTestTable(o)
	for _, b := range bins {
		if b.buildErr != nil {
			t.add(b.short, "-", "build", "BUILD FAIL", "", 0, fmt.Sprint(b.buildErr))
		}
	}
	if countTests(bins) == 0 {
		return errors.Join(t.close(), fmt.Errorf("no lab test matches -run %q", o.run))
	}
	for _, img := range s.imgs {
		if err := runGuestTests(ctx, s, img, bins, o, t); err != nil {
			t.add("(guest)", img.Manifest.Suite, "guest", "ERROR", "", 0, err.Error())
		}
		runHostTests(ctx, img.Manifest.Suite, bins, o, t)
	}
	return t.close()
}

// buildLabTests compiles each package's lab tests into dir and lists the
// tests run selects; a package that does not build is kept with its error.
func buildLabTests(ctx context.Context, dir string, pkgs []lab.TestPackage, run string) []*labTestBinary {
	var out []*labTestBinary
	for _, pkg := range pkgs {
		short := strings.TrimPrefix(strings.TrimPrefix(pkg.ImportPath, lab.Module), "/")
		b := &labTestBinary{pkg: pkg, short: short, bin: filepath.Join(dir, strings.ReplaceAll(short, "/", "_")+".test")}
		out = append(out, b)
		if b.buildErr = lab.BuildTest(ctx, pkg.ImportPath, b.bin); b.buildErr != nil {
			continue
		}
		names, err := listTests(ctx, b.bin, run)
		if err != nil {
			b.buildErr = err
			continue
		}
		for _, n := range names {
			switch {
			case strings.HasPrefix(n, guestTestPrefix):
				b.guestTests = append(b.guestTests, n)
			case strings.HasPrefix(n, hostTestPrefix):
				b.hostTests = append(b.hostTests, n)
			}
		}
	}
	return out
}

// listTests runs the test binary's -test.list with run's top level (the
// part before the first '/').
//
// Similar to: go test -tags lab -list REGEXP PKG
func listTests(ctx context.Context, bin, run string) ([]string, error) {
	top, _, _ := strings.Cut(run, "/")
	if top == "" {
		top = "^(" + guestTestPrefix + "|" + hostTestPrefix + ")"
	}
	if _, err := regexp.Compile(top); err != nil {
		return nil, fmt.Errorf("-run: %w", err)
	}
	out, err := exec.CommandContext(ctx, bin, "-test.list", top).Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %w", filepath.Base(bin), err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Test") {
			names = append(names, strings.TrimSpace(l))
		}
	}
	return names, nil
}

// runPattern is -test.run for exactly these tests, keeping run's subtest
// levels.
func runPattern(tests []string, run string) string {
	p := "^(" + strings.Join(tests, "|") + ")$"
	if _, sub, ok := strings.Cut(run, "/"); ok {
		p += "/" + sub
	}
	return p
}

// binaryTimeout is the test binary's -test.timeout for a deadline: a
// minute earlier (a quarter earlier for short ones), so that the binary's
// own timeout panic, with every goroutine's stack, comes before the kill.
func binaryTimeout(deadline time.Duration) time.Duration {
	return deadline - min(time.Minute, deadline/4)
}

func countTests(bins []*labTestBinary) int {
	n := 0
	for _, b := range bins {
		n += len(b.guestTests) + len(b.hostTests)
	}
	return n
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// runGuestTests boots one guest of img that runs every package's selected
// TestLab* tests, one step per package, and adds their rows.
func runGuestTests(ctx context.Context, s *session, img *lab.Image, bins []*labTestBinary, o testOptions, t *testTable) error {
	var files []lab.OverlayFile
	var steps []lab.Step
	for _, b := range bins {
		if len(b.guestTests) == 0 {
			continue
		}
		guestDir := "/lab/src/" + b.short
		name := filepath.Base(b.bin)
		td, err := testdataFiles(b.pkg.Dir, guestDir)
		if err != nil {
			t.add(b.short, img.Manifest.Suite, "guest", "ERROR", "", 0, err.Error())
			continue
		}
		files = append(files, lab.OverlayFile{Path: lab.BinDir + "/" + name, Mode: 0o755, Source: b.bin})
		files = append(files, td...)
		files = append(files, lab.OverlayFile{Path: guestDir, Mode: os.ModeDir | 0o755})
		steps = append(steps, lab.Step{Name: b.short, Path: lab.BinDir + "/" + name, Dir: guestDir,
			Args:    []string{"-test.v", "-test.run", runPattern(b.guestTests, o.run), "-test.timeout", binaryTimeout(o.timeout).String()},
			Timeout: o.timeout})
	}
	if len(steps) == 0 {
		return nil
	}
	g := lab.Guest{Name: img.Manifest.Suite, Image: img, SMP: 4, MemMiB: 2048,
		NICs:  []lab.NIC{{Network: "lan"}, {Network: "lan"}},
		Plan:  lab.Plan{Steps: steps},
		Files: files}
	runCtx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	res, err := lab.Run(runCtx, []lab.Guest{g}, lab.RunOptions{Agent: s.agent, Live: t.live})
	if res == nil {
		return err
	}
	r := res[0]
	for _, st := range r.Steps {
		t.addStep(st, r.Guest, "guest")
	}
	if err != nil {
		printFailure(r)
		t.add("(guest)", r.Guest, "guest", "ERROR", "", 0, err.Error())
	}
	return nil
}

// runHostTests runs each package's selected TestGuests* tests on the host
// for one suite, in the package's folder as go test does, and adds their
// rows.
//
// Similar to: ROCEKIT_LAB_SUITES=SUITE go test -tags lab -run '^TestGuests' PKG
func runHostTests(ctx context.Context, suite string, bins []*labTestBinary, o testOptions, t *testTable) {
	for _, b := range bins {
		if len(b.hostTests) == 0 {
			continue
		}
		runCtx, cancel := context.WithTimeout(ctx, o.timeout)
		cmd := exec.CommandContext(runCtx, b.bin, "-test.v", "-test.run", runPattern(b.hostTests, o.run), "-test.timeout", binaryTimeout(o.timeout).String())
		cmd.Dir = b.pkg.Dir
		cmd.Env = append(os.Environ(), lab.EnvSuites+"="+suite, lab.EnvCache+"="+o.cache)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if t.live != nil {
			cmd.Stdout, cmd.Stderr = io.MultiWriter(&stdout, t.live), io.MultiWriter(&stderr, t.live)
		}
		began := time.Now()
		err := cmd.Run()
		finished := runCtx.Err() == nil // not killed at the deadline
		cancel()
		st := lab.StepResult{Step: lab.Step{Name: b.short}, Stdout: stdout.Bytes(), Stderr: stderr.Bytes(),
			Started: true, Finished: finished, Exit: lab.ExitStatus{Seconds: time.Since(began).Seconds()}}
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			st.Exit.Code = exit.ExitCode()
		case err != nil:
			st.Exit.Code, st.Exit.Error = -1, err.Error()
		}
		t.addStep(st, suite, "host")
	}
}

// testTable is lab test's package × suite table of verdicts.
type testTable struct {
	w      *tabwriter.Writer
	o      testOptions
	live   io.Writer // the tests' output as it comes, with -v
	failed int
}

func newTestTable(o testOptions) *testTable {
	t := &testTable{w: tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0), o: o}
	if o.verbose {
		t.live = os.Stdout
	}
	fmt.Fprintf(t.w, "package\tsuite\truns in\tresult\ttests\tseconds\n")
	return t
}

// addStep adds a test binary's verdict; a failure's output is printed
// (unless it was streamed) before the table. Anything but PASS fails the
// run: a SKIP row (every selected test skipped, e.g. a missing image)
// tested nothing that was asked for.
func (t *testTable) addStep(st lab.StepResult, suite, where string) {
	verdict, counts := testVerdict(st)
	detail := ""
	if verdict != "PASS" {
		detail = fmt.Sprintf("%s%s", st.Stdout, st.Stderr)
	}
	t.add(st.Step.Name, suite, where, verdict, counts, st.Exit.Seconds, detail)
}

// add adds a row; a non-empty detail marks a failure.
func (t *testTable) add(pkg, suite, where, verdict, counts string, seconds float64, detail string) {
	if detail != "" {
		t.failed++
		if !t.o.verbose {
			fmt.Fprintf(os.Stderr, "=== %s in %s (%s):\n%s\n", pkg, suite, where, detail)
		}
	}
	fmt.Fprintf(t.w, "%s\t%s\t%s\t%s\t%s\t%.1f\n", pkg, suite, where, verdict, counts, seconds)
}

// close prints the table and says how many rows failed.
func (t *testTable) close() error {
	t.w.Flush()
	if t.failed > 0 {
		return fmt.Errorf("%d failures", t.failed)
	}
	return nil
}

// testVerdict reads a test binary's -test.v output: PASS, FAIL, SKIP (every
// test skipped), NONE (no test matched) or the way it ended. It counts the
// leaves of the test tree, so a test whose subtests all skipped (go test
// marks the parent PASS) counts as skipped.
func testVerdict(s lab.StepResult) (string, string) {
	var pass, fail, skip int
	for _, r := range testLeaves(s.Stdout) {
		switch r {
		case "PASS":
			pass++
		case "FAIL":
			fail++
		case "SKIP":
			skip++
		}
	}
	counts := fmt.Sprintf("%d pass, %d fail, %d skip", pass, fail, skip)
	switch {
	case !s.Finished:
		return "UNFINISHED", counts
	case !s.Exit.OK():
		if s.Exit.Code == 1 || s.Exit.Code == 0 {
			return "FAIL", counts
		}
		return strings.ToUpper(s.Exit.String()), counts
	case pass+fail+skip == 0:
		return "NONE", counts
	case pass == 0 && fail == 0:
		return "SKIP", counts
	}
	return "PASS", counts
}

// testLeaves are the results (PASS, FAIL, SKIP) of the tests in a -test.v
// output that have no subtests of their own, by name.
func testLeaves(out []byte) map[string]string {
	results := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimLeft(line, " "), "--- ")
		if !ok {
			continue
		}
		verb, rest, ok := strings.Cut(rest, ": ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, " ")
		switch verb {
		case "PASS", "FAIL", "SKIP":
			results[name] = verb
		}
	}
	for name := range results {
		if parent, _, ok := cutLast(name, "/"); ok {
			for ; ok; parent, _, ok = cutLast(parent, "/") {
				delete(results, parent)
			}
		}
	}
	return results
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// testdataFiles adds a package's testdata folder to the overlay under
// guestDir, so lab tests can read fixtures as on the host.
func testdataFiles(pkgDir, guestDir string) ([]lab.OverlayFile, error) {
	var files []lab.OverlayFile
	root := filepath.Join(pkgDir, "testdata")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return filepath.SkipDir
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(pkgDir, p)
		files = append(files, lab.OverlayFile{Path: guestDir + "/" + filepath.ToSlash(rel), Source: p})
		return nil
	})
	return files, err
}
