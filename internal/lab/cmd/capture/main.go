// Command capture records real tool outputs inside a lab guest as parser fixtures.
//
// Usage:
//
//	capture -out DIR -suite NAME [-only REGEXP] [-list]
//	        [-nic-a eth0 -nic-b eth1] [-veth-for-netperf] [-timeout-scale 1]
//
// It runs as root. It exits 0 when every setup phase and every case expected to succeed
// did, 1 otherwise, and 2 on bad usage. See package internal/lab/capture.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/rocekit/rocekit/internal/lab/capture"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("capture", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output directory: one DIR/<group>/<case>/ per case")
	suite := fs.String("suite", os.Getenv("ROCEKIT_LAB_SUITE"), "suite name copied into every case.json (default $ROCEKIT_LAB_SUITE)")
	only := fs.String("only", "", "run only the cases whose id (group/name) matches this regular expression")
	list := fs.Bool("list", false, "print the case ids and exit")
	nicA := fs.String("nic-a", "", "netperf NIC moved into nsA (default eth0, or rkcap0 with -veth-for-netperf)")
	nicB := fs.String("nic-b", "", "netperf NIC moved into nsB (default eth1, or rkcap1 with -veth-for-netperf)")
	veth := fs.Bool("veth-for-netperf", false, "create the netperf NICs as a veth pair (for runs outside the lab)")
	scale := fs.Float64("timeout-scale", 1, "multiply every timeout by this factor")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "capture: unexpected arguments %q\n", fs.Args())
		return 2
	}
	var onlyRE *regexp.Regexp
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintf(stderr, "capture: -only: %v\n", err)
			return 2
		}
		onlyRE = re
	}
	nics := capture.NICVirtio
	if *veth {
		nics = capture.NICVeth
		if *nicA == "" && *nicB == "" {
			*nicA, *nicB = "rkcap0", "rkcap1"
		}
	}
	if *list {
		for _, s := range capture.Select(capture.Cases(nics), onlyRE) {
			fmt.Fprintln(stdout, s.ID())
		}
		return 0
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	summary, err := capture.Run(ctx, capture.Options{
		OutDir: *out, Suite: *suite, Only: onlyRE,
		NICA: *nicA, NICB: *nicB, VethForNetperf: *veth,
		TimeoutScale: *scale, Progress: stderr,
	})
	if summary != nil {
		_ = summary.WriteTable(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "capture: %v\n", err)
		if summary == nil {
			return 2
		}
		return 1
	}
	if summary.Failed() {
		return 1
	}
	return 0
}
