package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/lab"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
)

// The demo's two guests are joined by one point-to-point link.
const (
	demoNearAddr = "198.18.100.1"
	demoFarAddr  = "198.18.100.2"
	demoDone     = "/run/rocekit-demo-done" // on the far guest: the near one is finished
	demoOut      = "/lab/out"
)

// demoExample is one example run by the demo, in two-host mode.
type demoExample struct {
	name string // examples/NAME
	args []string
}

// demoExamples are the runs: short, since every number is emulated.
var demoExamples = []demoExample{
	// -qp-timeout 22 (17 s): between emulated guests rdma_rxe otherwise
	// retransmits on timeouts and fails sends (lab rxe-errors: failures at
	// perftest's default 14 on 6.1 and 6.12, and at 18 on 6.1; none at 22).
	{"softroce-baseline", []string{"-mtu", "9000", "-count", "3", "-n", "2000", "-qp-timeout", "22", "-soak", "10s"}},
	// -a: bandwidth against message size, one line per MTU; -n 20 per
	// size keeps the 2 B to 8 MiB sweep near a minute under TCG.
	{"mtu-sweep", []string{"-mtus", "1500,9000", "-a", "-count", "1", "-n", "20", "-qp-timeout", "22"}},
	// -n 300: 8 QPs × 300 × 64 KiB is 157 MB a run, minutes under TCG on
	// a loaded machine (1000 outran the step's deadline there).
	{"qp-scaling", []string{"-qps", "1,2,4,8", "-count", "2", "-n", "300", "-qp-timeout", "22"}},
	{"netperf-udp-tuning", []string{"-l", "5", "-count", "3"}},
}

// cmdDemo is the README's main job: for each suite, boot two guests joined
// by a link, and from the near one run the examples against the far one
// over SSH (two-host mode: the far side configured by rocekit-peer); copy
// their reports, plots and archives into -out, write one report.html of
// every suite and example, and print the findings.
func cmdDemo(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ExitOnError)
	var c commonFlags
	c.register(fs)
	fs.Set("suite", "trixie")
	out := fs.String("out", "demo-out", "folder for the reports, plots and archives")
	timeout := fs.Duration("timeout", 60*time.Minute, "deadline per suite")
	only := fs.String("only", "", "run only the examples whose names match these comma-separated names")
	fs.Parse(args)

	examples := demoExamples
	if *only != "" {
		examples = slices.DeleteFunc(slices.Clone(examples), func(e demoExample) bool {
			return !slices.Contains(strings.Split(*only, ","), e.name)
		})
	}
	s, err := c.start(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	var summary bytes.Buffer
	fmt.Fprintf(&summary, "# rocekit demo\n\nTwo QEMU guests per Debian suite joined by a link; the examples run on the near guest "+
		"(%s) against the far one (%s) over SSH. Lab numbers are emulated (TCG): only the mechanics are meaningful.\n\n", demoNearAddr, demoFarAddr)
	html := page.Page{Title: "rocekit demo", Intro: "Two QEMU guests per Debian suite joined by a link; the examples run on the near guest " +
		"against the far one over SSH. Lab numbers are emulated (TCG): only the mechanics are meaningful."}
	failed := 0
	for _, img := range s.imgs {
		suite := img.Manifest.Suite
		dir := filepath.Join(*out, suite)
		fmt.Fprintf(os.Stderr, "== %s: booting %s-near and %s-far\n", suite, suite, suite)
		runCtx, cancel := context.WithTimeout(ctx, *timeout)
		began := time.Now()
		res, err := runDemo(runCtx, s, img, examples, dir, os.Stderr)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", suite, err)
		}
		failed += addSuite(&summary, &html, img, res, dir, time.Since(began))
	}
	if err := writeDemoReports(*out, summary.Bytes(), html); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d example runs failed or did not restore", failed)
	}
	return nil
}

// addSuite adds one suite's results to the Markdown summary and the page
// and returns how many of its runs failed or did not restore.
func addSuite(summary *bytes.Buffer, html *page.Page, img *lab.Image, res *demoResult, dir string, took time.Duration) int {
	suite := img.Manifest.Suite
	failed := 0
	fmt.Fprintf(summary, "## %s (kernel %s, perftest %s, %s in the guests)\n\n", suite, res.kernel,
		img.Manifest.Packages["perftest"], took.Round(time.Second))
	if res.bootRetry != "" {
		fmt.Fprintf(summary, "The guests were booted twice: the first boot crashed.\n\n```\n%s\n```\n\n", res.bootRetry)
	}
	for _, e := range res.examples {
		status := "ok"
		if !e.ok {
			status, failed = "FAILED: "+e.exit, failed+1
		}
		fmt.Fprintf(summary, "### %s: %s\n\n", e.name, status)
		if rounds, _, err := report.OpenStore(filepath.Join(dir, e.name, "rounds.jsonl")).Load(); err == nil {
			if line := efficiencyLine(rounds); line != "" {
				fmt.Fprintf(summary, "%s\n\n", line)
			}
		}
		if e.report != nil {
			summary.Write(demoteHeadings(e.report))
			summary.WriteString("\n")
		}
		html.Sections = append(html.Sections, demoSection(dir, suite, e, status))
	}
	fmt.Fprintf(summary, "Restored afterwards: %s\n\n", res.restored)
	if !res.clean {
		failed++
	}
	return failed
}

// writeDemoReports writes report.md and report.html into out and prints
// the findings.
func writeDemoReports(out string, summary []byte, html page.Page) error {
	if err := os.WriteFile(filepath.Join(out, "report.md"), summary, 0o644); err != nil {
		return err
	}
	var pageHTML bytes.Buffer
	if err := page.Write(&pageHTML, html); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "report.html"), pageHTML.Bytes(), 0o644); err != nil {
		return err
	}
	printFindings(os.Stdout, summary)
	fmt.Printf("\nreports, SVG plots and archives: %s/ (summary: %s, one page: %s)\n", out,
		filepath.Join(out, "report.md"), filepath.Join(out, "report.html"))
	return nil
}

// demoResult is what one suite's run gave.
type demoResult struct {
	kernel   string
	examples []exampleResult
	restored string // the state check after the examples
	clean    bool   // both guests as they booted
	// bootRetry says why the guests were booted twice ("" once).
	bootRetry string
}

type exampleResult struct {
	name   string
	ok     bool
	exit   string
	report []byte
}

// runDemo boots the two guests of one suite, runs the examples and writes
// the collected files under dir.
func runDemo(ctx context.Context, s *session, img *lab.Image, examples []demoExample, dir string, live io.Writer) (*demoResult, error) {
	far, near, err := demoGuests(ctx, s, img, examples)
	if err != nil {
		return nil, err
	}
	res, err := lab.Run(ctx, []lab.Guest{far, near}, lab.RunOptions{Agent: s.agent, Live: live})
	if res == nil {
		return nil, err
	}
	// Each guest's whole console, kept whatever happened: the kernel's
	// own account of a crash.
	consoles := map[string][]byte{}
	for _, r := range res {
		if r != nil {
			consoles[r.Guest+".console"] = r.Console
		}
	}
	if err := writeFiles(dir, consoles); err != nil {
		return nil, err
	}
	n := res[1]
	if err != nil || !n.Done {
		printFailure(res[0])
		printFailure(n)
		return nil, fmt.Errorf("the guests did not finish (consoles in %s): %v", dir, err)
	}
	if err := writeFiles(dir, n.Files); err != nil {
		return nil, err
	}
	out := &demoResult{kernel: n.Agent.Kernel, bootRetry: n.BootRetry}
	for i, e := range examples {
		st := n.Steps[2+i]
		r := exampleResult{name: e.name, ok: st.Exit.OK(), exit: st.Exit.String(), report: n.Files[e.name+"/report.md"]}
		if _, ok := n.Files[e.name+"/summary.json"]; r.ok && !ok {
			r.ok, r.exit = false, "exit 0 but no summary.json"
		}
		if !r.ok {
			fmt.Fprintf(os.Stderr, "%s %s: %s\n%s", img.Manifest.Suite, e.name, st.Exit, st.Stderr)
		}
		out.examples = append(out.examples, r)
	}
	out.restored, out.clean = restoredSummary(n.Files["state-after.txt"])
	return out, nil
}

// writeFiles writes files (slash-separated names) under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// demoGuests are the far guest (sshd, rocekit-peer) and the near one,
// which runs each example against it in two-host mode.
func demoGuests(ctx context.Context, s *session, img *lab.Image, examples []demoExample) (far, near lab.Guest, err error) {
	keys, err := newDemoKeys(demoFarAddr)
	if err != nil {
		return far, near, err
	}
	peerBin, err := lab.BuildBinary(ctx, lab.Module+"/cmd/rocekit-peer", filepath.Join(s.dir, "rocekit-peer"))
	if err != nil {
		return far, near, err
	}
	suite := img.Manifest.Suite
	far = lab.Guest{Name: suite + "-far", Image: img, SMP: 2, NICs: []lab.NIC{{Network: "wire"}},
		Files: []lab.OverlayFile{
			{Path: "/usr/local/bin/rocekit-peer", Mode: 0o755, Source: peerBin},
			{Path: "/etc/ssh/ssh_host_ed25519_key", Mode: 0o600, Data: keys.hostKey},
			{Path: "/etc/ssh/ssh_host_ed25519_key.pub", Mode: 0o644, Data: keys.hostPub},
			{Path: "/root/.ssh/authorized_keys", Mode: 0o600, Data: keys.authorized},
		},
		Plan: lab.Plan{Steps: []lab.Step{
			shStep("link up", "ip addr add "+demoFarAddr+"/24 dev eth0 && ip link set eth0 up"),
			// sshd serves the near guest until it says it is done.
			shStep("sshd", "mkdir -p /run/sshd && /usr/sbin/sshd -e -o ListenAddress="+demoFarAddr+
				" -o UsePAM=no -o PasswordAuthentication=no -o PermitRootLogin=prohibit-password -o UseDNS=no"+
				" -o HostKey=/etc/ssh/ssh_host_ed25519_key && until [ -e "+demoDone+" ]; do sleep 0.5; done"),
		}},
	}
	near = lab.Guest{Name: suite + "-near", Image: img, SMP: 2, NICs: []lab.NIC{{Network: "wire"}},
		Files: []lab.OverlayFile{
			{Path: "/lab/ssh/id_ed25519", Mode: 0o600, Data: keys.clientKey},
			{Path: "/lab/ssh/known_hosts", Mode: 0o644, Data: keys.knownHosts},
		},
		Plan: lab.Plan{Collect: demoOut, Steps: []lab.Step{
			shStep("link up", "ip addr add "+demoNearAddr+"/24 dev eth0 && ip link set eth0 up"),
			// The far guest boots in parallel: wait for its sshd.
			{Name: "wait for sshd", Path: "/bin/bash", Timeout: 3 * time.Minute,
				Args: []string{"-c", "until (exec 3<>/dev/tcp/" + demoFarAddr + "/22) 2>/dev/null; do sleep 0.5; done"}},
		}},
	}
	err = addDemoExamples(ctx, s, &near, examples)
	return far, near, err
}

// addDemoExamples builds the examples into the near guest's overlay, one
// step each, then checks what is left on both guests and releases the far
// one.
func addDemoExamples(ctx context.Context, s *session, near *lab.Guest, examples []demoExample) error {
	for _, e := range examples {
		bin, err := lab.BuildBinary(ctx, lab.Module+"/examples/"+e.name, filepath.Join(s.dir, e.name))
		if err != nil {
			return err
		}
		near.Files = append(near.Files, lab.OverlayFile{Path: lab.BinDir + "/" + e.name, Mode: 0o755, Source: bin})
		args := append([]string{"-netdev", "eth0", "-peer", "root@" + demoFarAddr,
			"-identity", "/lab/ssh/id_ed25519", "-known-hosts", "/lab/ssh/known_hosts",
			"-journal", "/lab/journal-" + e.name + ".jsonl",
			"-store", demoOut + "/" + e.name + "/rounds.jsonl", "-out", demoOut + "/" + e.name,
			// The example's own deadline comes first, so that it ends
			// itself, restores both hosts and writes what it has.
			"-timeout", "16m"}, e.args...)
		near.Plan.Steps = append(near.Plan.Steps, lab.Step{Name: e.name, Path: lab.BinDir + "/" + e.name, Args: args, Timeout: 18 * time.Minute})
	}
	ssh := "ssh -i /lab/ssh/id_ed25519 -o UserKnownHostsFile=/lab/ssh/known_hosts -o BatchMode=yes root@" + demoFarAddr
	near.Plan.Steps = append(near.Plan.Steps,
		// What is left on both hosts after the examples restored.
		shStep("state after", "mkdir -p "+demoOut+" && { echo near: $(cat /sys/class/net/eth0/mtu) $(rdma link show | wc -l); "+
			ssh+" 'echo far: $(cat /sys/class/net/eth0/mtu) $(rdma link show | wc -l) $(ls /var/tmp/rocekit-peer 2>/dev/null | wc -l)'; } > "+demoOut+"/state-after.txt"),
		shStep("release the far guest", ssh+" touch "+demoDone),
	)
	return nil
}

// restoredSummary reads "near: MTU LINKS" and "far: MTU LINKS JOURNALS"
// and says whether both guests are as they booted.
func restoredSummary(b []byte) (string, bool) {
	var near, far struct{ mtu, links, journals int }
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "near:"):
			fmt.Sscan(l[5:], &near.mtu, &near.links)
		case strings.HasPrefix(l, "far:"):
			fmt.Sscan(l[4:], &far.mtu, &far.links, &far.journals)
		}
	}
	clean := near.mtu == 1500 && far.mtu == 1500 && near.links == 0 && far.links == 0 && far.journals == 0
	return fmt.Sprintf("near eth0 MTU %d, %d rxe links; far eth0 MTU %d, %d rxe links, %d journals left",
		near.mtu, near.links, far.mtu, far.links, far.journals), clean
}

func shStep(name, script string) lab.Step {
	return lab.Step{Name: name, Path: "/bin/sh", Args: []string{"-c", script}, Timeout: 40 * time.Minute}
}

// demoSection is one example's part of the demo's report.html: its
// stored rounds drawn again, its findings as it stored them (its
// summary.json's, else the rounds' in its store) and its report.
func demoSection(dir, suite string, e exampleResult, status string) page.Section {
	rounds, _, err := report.OpenStore(filepath.Join(dir, e.name, "rounds.jsonl")).Load()
	sec := page.FromRounds(suite+" "+e.name+": "+status, rounds)
	if err != nil {
		sec.Notes = append(sec.Notes, err.Error())
	}
	if fs, err := summaryFindings(filepath.Join(dir, e.name, "summary.json")); err != nil {
		sec.Notes = append(sec.Notes, err.Error())
	} else if len(fs) > 0 {
		sec.Findings = fs // the example's own, with those of steps that made no round
	}
	sec.Markdown = string(e.report)
	return sec
}

// summaryFindings reads the "findings" of an example's summary.json;
// none, and no error, when the example wrote no summary.
func summaryFindings(path string) ([]report.Finding, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sum struct {
		Findings []report.Finding `json:"findings"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	report.SortFindings(sum.Findings)
	return sum.Findings, nil
}

// demoteHeadings turns "# x" into "#### x" so that each example's report
// nests under its section.
func demoteHeadings(md []byte) []byte {
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") {
			l = "###" + l
		}
		b.WriteString(l + "\n")
	}
	return b.Bytes()
}

// efficiencyLine says how much of the example's measuring rounds the
// tools themselves ran (report.Round.ToolSec against DurationSec; the
// preparation before the rounds is not counted), or "" when no round
// recorded it.
func efficiencyLine(rounds []report.Round) string {
	var tool, wall float64
	for _, r := range rounds {
		if _, ok := r.Efficiency(); ok {
			tool, wall = tool+r.ToolSec, wall+r.DurationSec
		}
	}
	if wall == 0 {
		return ""
	}
	line := fmt.Sprintf("Efficiency: the tools ran %.0f %% of the rounds' wall time (%.1f s of %.1f s, %d rounds).", 100*tool/wall, tool, wall, len(rounds))
	// rocekit's own CPU time while the tools ran (Round.SelfCPUSec), as a
	// share of one core per host.
	cpu, toolCPU := map[string]float64{}, 0.0
	for _, r := range rounds {
		if len(r.SelfCPUSec) > 0 && r.ToolSec > 0 {
			toolCPU += r.ToolSec
			for h, v := range r.SelfCPUSec {
				cpu[h] += v
			}
		}
	}
	if toolCPU > 0 {
		var parts []string
		for _, h := range slices.Sorted(maps.Keys(cpu)) {
			parts = append(parts, fmt.Sprintf("%s %.2f %%", h, 100*cpu[h]/toolCPU))
		}
		line += " rocekit's own CPU while they ran: " + strings.Join(parts, ", ") + " of one core."
	}
	return line
}

// printFindings prints the summary's section titles, each example's
// answers (round, rate, ceiling, share, bottleneck) and its findings.
func printFindings(w io.Writer, md []byte) {
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(nil, 1<<20)
	answers := false
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "## "), strings.HasPrefix(l, "### "):
			fmt.Fprintln(w, strings.TrimLeft(l, "# "))
			answers = false
		case strings.HasPrefix(l, "#") && strings.HasSuffix(l, " Answers"):
			answers = true
		case strings.HasPrefix(l, "#"):
			answers = false
		case answers && strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| round "):
			fmt.Fprintln(w, "  answer: "+strings.Trim(strings.ReplaceAll(l, " | ", "; "), "| "))
		case strings.HasPrefix(l, "- **"), strings.HasPrefix(l, "Restored afterwards"), strings.HasPrefix(l, "Efficiency: "):
			fmt.Fprintln(w, "  "+l)
		}
	}
}
