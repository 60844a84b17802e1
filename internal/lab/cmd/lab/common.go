package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
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

// session is what a subcommand that boots guests needs: the images, a
// folder for the binaries it builds, and the guest agent.
type session struct {
	imgs  []*lab.Image
	dir   string
	agent string
}

// start builds (or finds) the images and the agent; close removes the
// binaries.
func (c *commonFlags) start(ctx context.Context) (*session, error) {
	imgs, err := c.images(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "rocekit-lab-")
	if err != nil {
		return nil, err
	}
	s := &session{imgs: imgs, dir: dir}
	if s.agent, err = lab.BuildAgent(ctx, dir); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *session) close() { os.RemoveAll(s.dir) }

// capture builds the fixture capture program for the guests.
func (s *session) capture(ctx context.Context) (string, error) {
	return lab.BuildBinary(ctx, lab.Module+"/internal/lab/cmd/capture", filepath.Join(s.dir, "capture"))
}

func printFailure(r *lab.Result) {
	for _, l := range r.Log {
		fmt.Fprintf(os.Stderr, "%s: agent: %s\n", r.Guest, l)
	}
	for _, e := range r.ProtocolErrors {
		fmt.Fprintf(os.Stderr, "%s: protocol: %s\n", r.Guest, e)
	}
}
