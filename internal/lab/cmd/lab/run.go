package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/rocekit/rocekit/internal/lab"
)

// cmdRun runs one command in a guest of each selected suite and prints its
// output: the quickest way to look inside the lab.
func cmdRun(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	var c commonFlags
	c.register(fs)
	smp := fs.Int("smp", lab.DefaultSMP, "virtual CPUs")
	mem := fs.Int("mem", lab.DefaultMemMiB, "memory in MiB")
	nics := fs.Int("nics", 0, "virtio-net NICs on one hub")
	timeout := fs.Duration("timeout", 5*time.Minute, "deadline of the whole run")
	keep := fs.Bool("keep", false, "keep the run folder")
	fs.Parse(args)
	if fs.NArg() == 0 {
		return fmt.Errorf("run: no command; usage: lab run [flags] -- CMD ARGS")
	}
	s, err := c.start(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	failed := false
	for _, img := range s.imgs {
		g := lab.Guest{Name: img.Manifest.Suite, Image: img, SMP: *smp, MemMiB: *mem,
			Plan: lab.Plan{Steps: []lab.Step{{Name: "cmd", Path: "/usr/bin/env", Args: fs.Args()}}}}
		for i := 0; i < *nics; i++ {
			g.NICs = append(g.NICs, lab.NIC{Network: "hub"})
		}
		began := time.Now()
		res, err := lab.Run(ctx, []lab.Guest{g}, lab.RunOptions{Agent: s.agent, Live: os.Stdout, KeepDir: *keep})
		fmt.Fprintf(os.Stderr, "%s: kernel %s, agent started %.1fs after boot, run took %.1fs\n",
			g.Name, res[0].Agent.Kernel, res[0].Agent.UptimeS, time.Since(began).Seconds())
		if err != nil || !res[0].OK() {
			failed = true
			printFailure(res[0])
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
		}
	}
	if failed {
		return fmt.Errorf("run failed")
	}
	return nil
}
