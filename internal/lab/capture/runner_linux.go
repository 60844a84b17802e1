package capture

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Run captures every case of the table that opts.Only selects, in table order, performing
// the setup phases they need first and undoing them at the end. It records each case in
// opts.OutDir/<group>/<case>/ and the summary table in opts.OutDir/summary.txt. The error is
// about the run itself (bad options, an unwritable directory, cancellation); failing cases
// are reported in the summary.
//
// It must run as root for the setup phases, and it signals only the process groups of the
// commands it starts.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	out, err := filepath.Abs(opts.OutDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	r := newRunner(opts, out)
	specs := Select(Cases(opts.nicKind()), opts.Only)
	for i, spec := range specs {
		if ctx.Err() != nil {
			break
		}
		row := r.runCase(ctx, spec)
		fmt.Fprintf(opts.Progress, "[%d/%d] %s: %s (%.2fs) %s%s\n", i+1, len(specs), row.ID, row.Outcome, row.Seconds, row.Problem, row.Remark)
		r.summary.Rows = append(r.summary.Rows, row)
	}
	r.teardown(context.WithoutCancel(ctx))
	var table bytes.Buffer
	if err := r.summary.WriteTable(&table); err != nil {
		return &r.summary, err
	}
	if err := os.WriteFile(filepath.Join(out, "summary.txt"), table.Bytes(), 0o644); err != nil {
		return &r.summary, err
	}
	return &r.summary, context.Cause(ctx)
}

// runner holds the state of one Run.
type runner struct {
	opts     Options
	out      string
	values   placeholders
	stdbuf   bool
	kernel   string
	versions map[string]string
	phases   map[Phase]error
	undo     []Command
	summary  Summary
}

func newRunner(opts Options, out string) *runner {
	_, err := exec.LookPath("stdbuf")
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return &runner{
		opts:     opts,
		out:      out,
		values:   placeholders{GIDIndex: -1, NICA: opts.NICA, NICB: opts.NICB, SelfPID: os.Getpid()},
		stdbuf:   err == nil,
		kernel:   strings.TrimSpace(string(kernel)),
		versions: map[string]string{},
		phases:   map[Phase]error{},
	}
}

func (r *runner) scale(d time.Duration) time.Duration {
	if d == 0 {
		d = DefaultTimeout
	}
	return time.Duration(float64(d) * r.opts.TimeoutScale)
}

// caseRun is a case being recorded.
type caseRun struct {
	spec    Spec
	dir     string
	rec     Case
	results []sideResult
	start   time.Time
}

func (c *caseRun) logf(format string, args ...any) {
	c.rec.Log = append(c.rec.Log, fmt.Sprintf(format, args...))
}

func (c *caseRun) add(s Side, required bool) int {
	c.results = append(c.results, sideResult{Side: s, required: required})
	return len(c.results) - 1
}

// begin makes an empty case directory and starts the record.
func (r *runner) begin(ctx context.Context, spec Spec) (*caseRun, error) {
	dir := filepath.Join(r.out, spec.Group, spec.Name)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	now := time.Now()
	c := &caseRun{spec: spec, dir: dir, start: now, rec: Case{
		ID:          spec.ID(),
		Suite:       r.opts.Suite,
		Kernel:      r.kernel,
		Captured:    now.UTC().Truncate(time.Second),
		Tool:        spec.Tool,
		ToolVersion: r.toolVersion(ctx, spec.Tool),
		Note:        spec.Note,
		Expect:      spec.Expect,
	}}
	if !r.stdbuf && usesStdbuf(spec) {
		c.logf("stdbuf is not in PATH: commands run without it, and a killed process may lose buffered output")
	}
	return c, nil
}

func usesStdbuf(spec Spec) bool {
	for _, st := range spec.Steps {
		if (st.Run != nil && st.Run.Stdbuf) || (st.Pair != nil && st.Pair.Client.Stdbuf) {
			return true
		}
	}
	return false
}

// runCase runs the phases spec needs, then its steps, and records it.
func (r *runner) runCase(ctx context.Context, spec Spec) Row {
	if err := r.ensure(ctx, spec.Needs); err != nil {
		return Row{ID: spec.ID(), Expect: spec.Expect, Outcome: OutcomeSkipped, Remark: err.Error()}
	}
	c, err := r.begin(ctx, spec)
	if err != nil {
		return Row{ID: spec.ID(), Expect: spec.Expect, Outcome: OutcomeFailed, Problem: err.Error()}
	}
	for _, st := range spec.Steps {
		switch {
		case st.Run != nil:
			c.add(r.runCommand(ctx, c.dir, *st.Run), true)
		case st.Pair != nil:
			r.runPair(ctx, c, st.Pair)
		case st.Files != nil:
			r.runSnapshot(ctx, c, st.Files)
		}
	}
	return r.finish(c)
}

// finish writes case.json and returns the summary row.
func (r *runner) finish(c *caseRun) Row {
	outcome := outcomeOf(c.results)
	problem, remark := judge(c.spec.Expect, outcome)
	for _, res := range c.results {
		c.rec.Sides = append(c.rec.Sides, res.Side)
	}
	files, err := unreferencedFiles(c.dir, c.rec.Sides)
	if err != nil {
		c.logf("listing files: %v", err)
	}
	c.rec.Files = files
	if err := WriteCase(c.dir, &c.rec); err != nil {
		problem = err.Error()
	}
	return Row{
		ID: c.rec.ID, Expect: c.spec.Expect, Outcome: outcome, Sides: describeSides(c.rec.Sides),
		Seconds: roundSeconds(time.Since(c.start)), Problem: problem, Remark: remark,
	}
}

// unreferencedFiles lists the files of dir that no side names, such as client.json.
func unreferencedFiles(dir string, sides []Side) ([]string, error) {
	named := map[string]bool{CaseFile: true}
	for _, s := range sides {
		named[s.Stdout], named[s.Stderr] = true, true
	}
	files := []string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err == nil && !named[filepath.ToSlash(rel)] {
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	sort.Strings(files)
	return files, err
}

// runCommand runs c to completion (or its deadline) and returns its side.
func (r *runner) runCommand(ctx context.Context, dir string, c Command) Side {
	p, side := r.startSide(dir, c)
	if p == nil {
		return side
	}
	p.waitUntil(ctx, p.start.Add(r.scale(c.Timeout)))
	return p.side
}

// startSide creates <role>.stdout and <role>.stderr in dir and starts c writing into them.
// When the command cannot start, it returns a nil process and a side that says why.
func (r *runner) startSide(dir string, c Command) (*process, Side) {
	argv := r.values.expandAll(c.Argv)
	side := Side{
		Role: c.Role, Command: commandLine(argv), Netns: c.Netns, Exit: -1,
		Stdout: c.Role + ".stdout", Stderr: c.Role + ".stderr",
	}
	full := argv
	if c.Stdbuf && r.stdbuf {
		side.Wrapper = "stdbuf -oL -eL"
		full = append([]string{"stdbuf", "-oL", "-eL"}, full...)
	}
	if c.Netns != "" {
		full = append([]string{"ip", "netns", "exec", c.Netns}, full...)
	}
	stdout, err := os.Create(filepath.Join(dir, side.Stdout))
	if err != nil {
		side.Error = err.Error()
		return nil, side
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(dir, side.Stderr))
	if err != nil {
		side.Error = err.Error()
		return nil, side
	}
	defer stderr.Close()
	p, err := startProcess(dir, full, stdout, stderr)
	if err != nil {
		side.Error = err.Error()
		return nil, side
	}
	p.side = side
	return p, side
}
