package rocekittest

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// ErrNoFile: the case has no such captured file. It matches ErrNoCase
// and fs.ErrNotExist too.
var ErrNoFile = fmt.Errorf("%w: no such file", ErrNoCase)

// Tree returns the files a kernel file case read ("proc", "sysfs"
// groups), mirrored from the guest's root: "proc/interrupts",
// "sys/class/infiniband/rxe0/ports/1/gids/0". Hand it to the packages'
// readers as their root (nic.NewRootFS(c.Tree()), irq.FS, rxe.Root) to
// read a lab guest's /proc and /sys. A case with no tree has an empty
// one.
//
// Similar to: cp -r testdata/trixie/sysfs/rxe0-port1/tree /tmp/root
func (c *Case) Tree() fs.FS {
	if c.dir == "" {
		return emptyFS{}
	}
	sub, err := fs.Sub(captures, c.dir+"/tree")
	if err != nil {
		return emptyFS{}
	}
	return sub
}

// File returns a captured file by its path on the guest
// ("/proc/net/softnet_stat", "/sys/class/net/eth0/mtu") from Tree, or a
// realworld case's file by name ("output.txt"); ErrNoFile when there is
// none.
//
// Similar to: cat /proc/net/softnet_stat, on the lab guest.
func (c *Case) File(name string) ([]byte, error) {
	if b, ok := c.Files[name]; ok {
		return b, nil
	}
	b, err := fs.ReadFile(c.Tree(), strings.TrimPrefix(name, "/"))
	if err != nil {
		return nil, fmt.Errorf("%w: %s in %s", ErrNoFile, name, c.ID)
	}
	return b, nil
}

type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// sourceFile is a realworld case's source.json (testdata/realworld's
// README names the fields).
type sourceFile struct {
	URL        string `json:"url"`
	Title      string `json:"title"`
	Device     string `json:"device"`
	Tool       string `json:"tool"`
	Version    string `json:"version"`
	Command    string `json:"command"`
	Whitespace string `json:"whitespace"`
	Notes      string `json:"notes"`
}

// lookupRealworld reads "realworld/AREA/NAME": its source.json and its
// outputs, the main one (output.txt) also as the side "cmd".
func lookupRealworld(id string) (*Case, error) {
	var sf sourceFile
	if err := readCaseJSON(id, id, "source.json", &sf); err != nil {
		return nil, err
	}
	note := sf.Title
	for _, s := range []string{sf.Device, sf.Notes} {
		if s != "" {
			note += "; " + s
		}
	}
	c := &Case{ID: id, Suite: RealworldSuite, Group: strings.Split(id, "/")[1], Name: path.Base(id), Tool: sf.Tool,
		ToolVersion: sf.Version, Note: note, Expect: "ok", Source: sf.URL, Files: map[string][]byte{}, dir: id}
	entries, err := fs.ReadDir(captures, id)
	if err != nil {
		return nil, fmt.Errorf("rocekittest: %s: %w", id, err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "source.json" {
			continue
		}
		if c.Files[e.Name()], err = captures.ReadFile(id + "/" + e.Name()); err != nil {
			return nil, fmt.Errorf("rocekittest: %s: %w", id, err)
		}
	}
	if out, ok := c.Files["output.txt"]; ok {
		// No Argv: the command is as the source wrote it ("show_gids (as
		// in the PR description)"), not a command line to split.
		c.Sides = []Side{{Role: "cmd", Command: sf.Command, Stdout: out}}
	}
	return c, nil
}
