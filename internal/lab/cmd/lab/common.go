package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/rocekit/rocekit/internal/lab"
)

// commonFlags are shared by every subcommand.
type commonFlags struct {
	suites string
	cache  string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.suites, "suite", strings.Join(lab.Suites, ","), "comma-separated Debian suites")
	fs.StringVar(&c.cache, "cache", lab.DefaultCacheDir(), "image cache folder")
}

func (c *commonFlags) suiteList() []string {
	var out []string
	for _, s := range strings.Split(c.suites, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// images builds (or finds) the image of every selected suite.
func (c *commonFlags) images(ctx context.Context) ([]*lab.Image, error) {
	var imgs []*lab.Image
	for _, s := range c.suiteList() {
		img, err := lab.Cache{Dir: c.cache}.Build(ctx, lab.DefaultSpec(s), os.Stderr)
		if err != nil {
			return nil, err
		}
		imgs = append(imgs, img)
	}
	return imgs, nil
}

// workDir makes a temporary folder for binaries built for one command.
func workDir() (string, func(), error) {
	dir, err := os.MkdirTemp("", "rocekit-lab-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

func printFailure(r *lab.Result) {
	for _, l := range r.Log {
		fmt.Fprintf(os.Stderr, "%s: agent: %s\n", r.Guest, l)
	}
	for _, e := range r.ProtocolErrors {
		fmt.Fprintf(os.Stderr, "%s: protocol: %s\n", r.Guest, e)
	}
}
