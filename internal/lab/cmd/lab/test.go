package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocekit/rocekit/internal/lab"
)

// cmdTest compiles every package's lab tests (go test -c -tags lab), runs
// them in a guest of each selected suite, and prints a package × suite
// table. It fails when any package fails in any suite.
func cmdTest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("test", flag.ExitOnError)
	var c commonFlags
	c.register(fs)
	run := fs.String("run", "^TestLab", "test name pattern passed to -test.run")
	verbose := fs.Bool("v", false, "stream the tests' output")
	timeout := fs.Duration("timeout", 30*time.Minute, "deadline per suite")
	fs.Parse(args)

	pkgs, err := lab.LabTestPackages(ctx)
	if err != nil {
		return err
	}
	if len(pkgs) == 0 {
		return fmt.Errorf("no package has lab tests")
	}
	s, err := c.start(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	var files []lab.OverlayFile
	var steps []lab.Step
	for _, pkg := range pkgs {
		short := strings.TrimPrefix(strings.TrimPrefix(pkg.ImportPath, lab.Module), "/")
		name := strings.ReplaceAll(short, "/", "_") + ".test"
		bin := filepath.Join(s.dir, name)
		if err := lab.BuildTest(ctx, pkg.ImportPath, bin); err != nil {
			return err
		}
		guestDir := "/lab/src/" + short
		files = append(files, lab.OverlayFile{Path: lab.BinDir + "/" + name, Mode: 0o755, Source: bin})
		td, err := testdataFiles(pkg.Dir, guestDir)
		if err != nil {
			return err
		}
		files = append(files, td...)
		files = append(files, lab.OverlayFile{Path: guestDir, Mode: os.ModeDir | 0o755})
		steps = append(steps, lab.Step{Name: short, Path: lab.BinDir + "/" + name, Dir: guestDir,
			Args: []string{"-test.v", "-test.run", *run}, Timeout: *timeout})
	}

	var live io.Writer
	if *verbose {
		live = os.Stdout
	}
	table := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(table, "package\tsuite\tresult\ttests\tseconds\n")
	failed := 0
	for _, img := range s.imgs {
		g := lab.Guest{Name: img.Manifest.Suite, Image: img, SMP: 4, MemMiB: 2048,
			NICs:  []lab.NIC{{Network: "lan"}, {Network: "lan"}},
			Plan:  lab.Plan{Steps: steps},
			Files: files}
		runCtx, cancel := context.WithTimeout(ctx, *timeout)
		res, err := lab.Run(runCtx, []lab.Guest{g}, lab.RunOptions{Agent: s.agent, Live: live})
		cancel()
		if res == nil {
			return err
		}
		r := res[0]
		for _, s := range r.Steps {
			verdict, counts := testVerdict(s)
			// A filter that matches nothing in a package is no failure there.
			filtered := *run != "^TestLab" && verdict == "NONE"
			if verdict != "PASS" && verdict != "SKIP" && !filtered {
				failed++
				if !*verbose {
					fmt.Fprintf(os.Stderr, "=== %s in %s:\n%s%s\n", s.Step.Name, r.Guest, s.Stdout, s.Stderr)
				}
			}
			fmt.Fprintf(table, "%s\t%s\t%s\t%s\t%.1f\n", s.Step.Name, r.Guest, verdict, counts, s.Exit.Seconds)
		}
		if err != nil {
			failed++
			printFailure(r)
			fmt.Fprintf(table, "(guest)\t%s\tERROR\t%v\t\n", r.Guest, err)
		}
	}
	table.Flush()
	if failed > 0 {
		return fmt.Errorf("%d failures", failed)
	}
	return nil
}

// testVerdict reads a test binary's -test.v output: PASS, FAIL, SKIP (every
// test skipped), NONE (no test matched) or the way it ended.
func testVerdict(s lab.StepResult) (string, string) {
	var pass, fail, skip int
	for _, line := range strings.Split(string(s.Stdout), "\n") {
		switch {
		case strings.HasPrefix(line, "--- PASS"):
			pass++
		case strings.HasPrefix(line, "--- FAIL"):
			fail++
		case strings.HasPrefix(line, "--- SKIP"):
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
	case pass == 0 && skip > 0:
		return "SKIP", counts
	}
	return "PASS", counts
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
