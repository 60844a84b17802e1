package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/lab"
)

// cmdFixtures runs the capture program (internal/lab/cmd/capture) in a
// guest of each selected suite, with -smp 4 and two virtio NICs on a hub,
// and stores what it collected under OUT/<suite>/: one folder per case with
// the outputs, the exact commands, exit statuses and tool versions, plus
// the image's package versions (image.json) and the capture log.
func cmdFixtures(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fixtures", flag.ExitOnError)
	var c commonFlags
	c.register(fs)
	out := fs.String("out", "rocekittest/captures", "folder that receives <suite>/<group>/<case>/")
	only := fs.String("only", "", "capture only the cases whose id matches this regexp (merged into OUT)")
	timeout := fs.Duration("timeout", 30*time.Minute, "deadline per suite")
	verbose := fs.Bool("v", false, "stream the capture log")
	fs.Parse(args)

	s, err := c.start(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	capture, err := s.capture(ctx)
	if err != nil {
		return err
	}
	var live io.Writer
	if *verbose {
		live = os.Stdout
	}
	for _, img := range s.imgs {
		suite := img.Manifest.Suite
		capArgs := []string{"-out", "/lab/out", "-suite", suite}
		if *only != "" {
			capArgs = append(capArgs, "-only", *only)
		}
		g := lab.Guest{Name: suite, Image: img, SMP: 4, MemMiB: 2048,
			NICs:  []lab.NIC{{Network: "lan"}, {Network: "lan"}},
			Files: []lab.OverlayFile{{Path: lab.BinDir + "/capture", Mode: 0o755, Source: capture}},
			Plan: lab.Plan{
				Steps:   []lab.Step{{Name: "capture", Path: lab.BinDir + "/capture", Args: capArgs}},
				Collect: "/lab/out",
			}}
		runCtx, cancel := context.WithTimeout(ctx, *timeout)
		began := time.Now()
		res, err := lab.Run(runCtx, []lab.Guest{g}, lab.RunOptions{Agent: s.agent, Live: live})
		cancel()
		if res == nil {
			return err
		}
		r := res[0]
		step := r.Steps[0]
		fmt.Printf("%s: %s, %d files, %.0fs\n", suite, step.Exit, len(r.Files), time.Since(began).Seconds())
		if err != nil || !step.Finished || len(r.Files) == 0 {
			printFailure(r)
			fmt.Fprintf(os.Stderr, "%s%s", step.Stdout, step.Stderr)
			return fmt.Errorf("%s: capture did not finish (%v); %s left as it was", suite, err, *out)
		}
		if !step.Exit.OK() {
			// Failed cases are recorded too; the log says which.
			fmt.Fprintf(os.Stderr, "%s: capture reported failures:\n%s", suite, step.Stdout)
		}
		files := r.Files
		files["capture.log"] = append(append([]byte(nil), step.Stdout...), step.Stderr...)
		files["image.json"], _ = json.MarshalIndent(imageProvenance(img), "", "  ")
		if *only != "" {
			files = mergeLayout(files, began)
		}
		if err := storeSuite(filepath.Join(*out, suite), files, *only != ""); err != nil {
			return err
		}
	}
	return nil
}

// imageProvenance is what fixtures record about the guest they came from.
func imageProvenance(img *lab.Image) map[string]any {
	m := img.Manifest
	pkgs := map[string]string{}
	for _, p := range []string{"perftest", "netperf", "rdma-core", "ibverbs-utils", "iproute2", "ethtool", "procps"} {
		pkgs[p] = m.Packages[p]
	}
	return map[string]any{"suite": m.Suite, "image_key": m.Key, "kernel": m.KernelRelease, "packages": pkgs}
}

// mergeLayout moves a partial capture's top-level files (log, summary,
// image) under merges/<time>/, so they do not pass for the whole suite's.
func mergeLayout(files map[string][]byte, when time.Time) map[string][]byte {
	out := map[string][]byte{}
	for name, data := range files {
		if !strings.Contains(name, "/") {
			name = "merges/" + when.UTC().Format("20060102T150405Z") + "/" + name
		}
		out[name] = data
	}
	return out
}

// storeSuite writes files under dst. Without merge the previous content is
// replaced as a whole: the new tree is written beside it and swapped in.
func storeSuite(dst string, files map[string][]byte, merge bool) error {
	target := dst
	if !merge {
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+"-new-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		target = tmp
	}
	if err := writeFiles(target, files); err != nil {
		return err
	}
	if merge {
		return nil
	}
	os.Chmod(target, 0o755)
	old := dst + ".old"
	os.RemoveAll(old)
	if err := os.Rename(dst, old); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(target, dst); err != nil {
		return err
	}
	return os.RemoveAll(old)
}
