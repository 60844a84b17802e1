package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/rocekit/rocekit/internal/lab"
)

// cmdImage builds the images of the selected suites, or reports the cached
// ones.
func cmdImage(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("image", flag.ExitOnError)
	var c commonFlags
	c.register(fs)
	prune := fs.Bool("prune", false, "delete the selected suites' cached images that earlier package or module lists left")
	fs.Parse(args)
	imgs, err := c.images(ctx)
	if err != nil {
		return err
	}
	if *prune {
		var keep []lab.ImageSpec
		for _, img := range imgs {
			keep = append(keep, img.Manifest.Spec)
		}
		removed, err := lab.Cache{Dir: c.cache}.Prune(keep)
		for _, d := range removed {
			fmt.Println("removed", d)
		}
		if err != nil {
			return err
		}
	}
	for _, img := range imgs {
		m := img.Manifest
		fmt.Printf("%-9s kernel %-22s perftest %-16s netperf %-12s %4d MiB  built in %.0fs  %s\n",
			m.Suite, m.KernelRelease, m.Packages["perftest"], m.Packages["netperf"],
			m.InitrdBytes>>20, m.BuildSeconds, img.Dir)
	}
	return nil
}
