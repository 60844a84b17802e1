package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/rocekit/rocekit/internal/lab"
	"github.com/rocekit/rocekit/internal/lab/capture"
	"github.com/rocekit/rocekit/perftest"
)

// demoCase is the capture case the demo runs: an ib_send_bw pair with
// --report_gbits on rxe0 over a veth, server and client in one guest.
const demoCase = "perftest/send-bw-gbits"

// cmdDemo is the main job until the examples exist: boot each image, load
// rdma_rxe, create rxe0 on a veth, pick the RoCE v2 GID, run an ib_send_bw
// pair with identical parameters, and print both sides' parsed results.
func cmdDemo(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ExitOnError)
	var c commonFlags
	c.register(fs)
	asJSON := fs.Bool("json", false, "print the parsed results as JSON")
	timeout := fs.Duration("timeout", 10*time.Minute, "deadline per suite")
	fs.Parse(args)

	s, err := c.start(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	capBin, err := s.capture(ctx)
	if err != nil {
		return err
	}
	for _, img := range s.imgs {
		suite := img.Manifest.Suite
		g := lab.Guest{Name: suite, Image: img, SMP: 2,
			Files: []lab.OverlayFile{{Path: lab.BinDir + "/capture", Mode: 0o755, Source: capBin}},
			Plan: lab.Plan{
				Steps: []lab.Step{{Name: "ib_send_bw pair", Path: lab.BinDir + "/capture",
					Args: []string{"-out", "/lab/out", "-suite", suite, "-only", "^" + demoCase + "$"}}},
				Collect: "/lab/out",
			}}
		runCtx, cancel := context.WithTimeout(ctx, *timeout)
		began := time.Now()
		res, err := lab.Run(runCtx, []lab.Guest{g}, lab.RunOptions{Agent: s.agent})
		cancel()
		if res == nil {
			return err
		}
		r := res[0]
		if err != nil || !r.Steps[0].Exit.OK() {
			printFailure(r)
			fmt.Fprintf(os.Stderr, "%s%s", r.Steps[0].Stdout, r.Steps[0].Stderr)
			return fmt.Errorf("%s: the ib_send_bw pair did not run (%v, %s)", suite, err, r.Steps[0].Exit)
		}
		if err := printDemo(img, r, time.Since(began), *asJSON); err != nil {
			return err
		}
	}
	return nil
}

// printDemo parses both sides of the captured pair and prints them.
func printDemo(img *lab.Image, r *lab.Result, took time.Duration, asJSON bool) error {
	var cs capture.Case
	if err := json.Unmarshal(r.Files[demoCase+"/case.json"], &cs); err != nil {
		return fmt.Errorf("%s: case record: %w", r.Guest, err)
	}
	fmt.Printf("%s: kernel %s, perftest %s, %.0fs in the guest\n",
		r.Guest, r.Agent.Kernel, img.Manifest.Packages["perftest"], took.Seconds())
	for _, side := range cs.Sides {
		out := r.Files[demoCase+"/"+side.Stdout]
		errOut := r.Files[demoCase+"/"+side.Stderr]
		parsed, err := perftest.ParseOutput(out, errOut)
		if err != nil {
			return fmt.Errorf("%s %s: %w\n%s", r.Guest, side.Role, err, out)
		}
		fmt.Printf("  %-6s $ %s\n", side.Role, side.Command)
		if asJSON {
			b, err := json.MarshalIndent(parsed, "         ", "  ")
			if err != nil {
				return err
			}
			fmt.Printf("         %s\n", bytes.TrimSpace(b))
			continue
		}
		h := parsed.Header
		fmt.Printf("         %s on %s: %d QP, %s, MTU %d, link %s, GID index %d\n",
			parsed.Test, h.Device, h.QPs, h.Connection, h.MTU, h.LinkType, h.GIDIndex)
		for _, row := range parsed.BW {
			peak := "not measured"
			if row.PeakMeasured {
				peak = fmt.Sprintf("%.3f Gb/s", row.BWPeakGbps)
			}
			fmt.Printf("         %d B x %d: average %.3f Gb/s, peak %s, %.6f Mpps\n",
				row.Bytes, row.Iterations, row.BWAvgGbps, peak, row.MsgRateMpps)
		}
		for _, w := range parsed.Warnings {
			fmt.Printf("         warning: %s\n", w)
		}
	}
	fmt.Println("  (lab numbers are emulated under TCG: only the mechanics are meaningful)")
	return nil
}
