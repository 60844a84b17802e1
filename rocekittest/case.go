package rocekittest

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/sentinel"
)

// captures holds the perftest and netperf captures of both lab suites.
//
//go:embed captures/*/perftest captures/*/netperf
var captures embed.FS

// Errors of the lookups and fakes.
var (
	// ErrNoCase: no embedded case has that ID.
	ErrNoCase = sentinel.NotExist("rocekittest: no such case")
	// ErrWrongTool: the case is of another tool than the fake asked for.
	ErrWrongTool = errors.New("rocekittest: case is of another tool")
	// ErrNotPair: FakePair was given a case that is not a server and
	// client run (a one-sided "cmd" case such as a version query), which
	// would play as a pair that prints nothing and exits 0.
	ErrNotPair = errors.New("rocekittest: case is not a server and client pair")
	// ErrNotKeyVal: netperf.Run reads omni -k output, and this case's
	// client printed a classic table (use UDPStreamFromClassic).
	ErrNotKeyVal = errors.New("rocekittest: netperf output is not in the -k form netperf.Run reads")
)

// Case is one captured run: the commands of its sides, what each printed
// and how it ended, and the tool version.
type Case struct {
	// ID is "SUITE/TOOL/NAME": "trixie/perftest/send-bw".
	ID string
	// Suite is the lab image: "bookworm", "trixie" ("synthetic" for
	// builders' cases).
	Suite string
	// Tool is "perftest" or "netperf"; Name the case folder.
	Tool, Name string
	// Kernel and ToolVersion are those of the guest that ran it
	// ("6.12.117+deb13-amd64", "25.01.0+0.80-1 (Version: 6.24)").
	Kernel, ToolVersion string
	// Note says what the case shows; Expect is "ok", "fail" or
	// "timeout-ok" (the capture's expectation).
	Note, Expect string
	// Sides are the commands run, usually "server" and "client" (a
	// version query has one "cmd").
	Sides []Side
	// Files are further files a side wrote (perftest's --out_json file),
	// by name.
	Files map[string][]byte
	// Log is the capture's log of the case ("server listening on port
	// 18516 after 0.491s (52 polls)").
	Log []string
	// Synthetic is set on cases made by a builder, not captured; Source
	// names the capture whose numbers it took, if any.
	Synthetic bool
	Source    string
}

// Side is one command of a case.
type Side struct {
	Role string // "server", "client" or "cmd"
	// Command is the command line as run (without Wrapper); Argv is it
	// split on blanks (no capture has a quoted argument).
	Command string
	Argv    []string
	// Wrapper is what ran it ("stdbuf -oL -eL"); Netns its namespace.
	Wrapper, Netns string
	// Exit is the exit code, -1 when it ended by Signal ("SIGTERM").
	// Stopped is set when the capture stopped it (a netserver after the
	// test); TimedOut when it ran into the capture's deadline.
	Exit              int
	Signal            string
	Stopped, TimedOut bool
	// Seconds is how long it ran in the guest (TCG-emulated).
	Seconds        float64
	Stdout, Stderr []byte
}

// Side returns the side of a role, or false.
func (c *Case) Side(role string) (Side, bool) {
	for _, s := range c.Sides {
		if s.Role == role {
			return s, true
		}
	}
	return Side{}, false
}

// caseFile is case.json as the capture program writes it.
type caseFile struct {
	Suite       string   `json:"suite"`
	Kernel      string   `json:"kernel"`
	Tool        string   `json:"tool"`
	ToolVersion string   `json:"tool_version"`
	Note        string   `json:"note"`
	Expect      string   `json:"expect"`
	Files       []string `json:"files"`
	Log         []string `json:"log"`
	Sides       []struct {
		Role     string  `json:"role"`
		Command  string  `json:"command"`
		Wrapper  string  `json:"wrapper"`
		Netns    string  `json:"netns"`
		Exit     int     `json:"exit"`
		Signal   string  `json:"signal"`
		Stopped  bool    `json:"stopped"`
		TimedOut bool    `json:"timed_out"`
		Seconds  float64 `json:"seconds"`
		Stdout   string  `json:"stdout"`
		Stderr   string  `json:"stderr"`
	} `json:"sides"`
}

// IDs lists every embedded case ID, sorted.
//
// Similar to: ls testdata/*/{perftest,netperf}
func IDs() []string {
	files, _ := fs.Glob(captures, "captures/*/*/*/case.json")
	ids := make([]string, 0, len(files))
	for _, f := range files {
		ids = append(ids, strings.TrimPrefix(path.Dir(f), "captures/"))
	}
	slices.Sort(ids)
	return ids
}

// Cases returns the embedded cases of a tool ("perftest", "netperf") whose
// ToolVersion starts with version ("" for all), sorted by ID: the way to
// pick the captures of one perftest release ("4.5", "25.01").
//
// Similar to: grep -l '"tool_version": "25.01' testdata/*/perftest/*/case.json
func Cases(tool, version string) ([]*Case, error) {
	var out []*Case
	for _, id := range IDs() {
		if !strings.Contains(id, "/"+tool+"/") {
			continue
		}
		c, err := Lookup(id)
		if err != nil {
			return out, err
		}
		if strings.HasPrefix(c.ToolVersion, version) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Lookup returns the case "SUITE/TOOL/NAME" ("trixie/perftest/send-bw"),
// read from the embedded captures; ErrNoCase when there is none.
//
// Similar to: cat testdata/trixie/perftest/send-bw/case.json
func Lookup(id string) (*Case, error) {
	dir := path.Join("captures", id)
	if id == "" || !fs.ValidPath(dir) || strings.Count(id, "/") != 2 {
		return nil, fmt.Errorf("%w: %q", ErrNoCase, id)
	}
	b, err := captures.ReadFile(dir + "/case.json")
	if err != nil {
		return nil, fmt.Errorf("%w: %q", ErrNoCase, id)
	}
	var cf caseFile
	if err := json.Unmarshal(b, &cf); err != nil {
		return nil, fmt.Errorf("rocekittest: %s/case.json: %w", id, err)
	}
	c := &Case{ID: id, Suite: cf.Suite, Tool: cf.Tool, Name: path.Base(id), Kernel: cf.Kernel,
		ToolVersion: cf.ToolVersion, Note: cf.Note, Expect: cf.Expect, Log: cf.Log, Files: map[string][]byte{}}
	for _, s := range cf.Sides {
		side := Side{Role: s.Role, Command: s.Command, Argv: strings.Fields(s.Command), Wrapper: s.Wrapper,
			Netns: s.Netns, Exit: s.Exit, Signal: s.Signal, Stopped: s.Stopped, TimedOut: s.TimedOut, Seconds: s.Seconds}
		if side.Stdout, err = readOptional(dir, s.Stdout); err == nil {
			side.Stderr, err = readOptional(dir, s.Stderr)
		}
		if err != nil {
			return nil, fmt.Errorf("rocekittest: %s: %w", id, err)
		}
		c.Sides = append(c.Sides, side)
	}
	for _, f := range cf.Files {
		b, err := readOptional(dir, f)
		if err != nil {
			return nil, fmt.Errorf("rocekittest: %s: %w", id, err)
		}
		c.Files[f] = b
	}
	return c, nil
}

// readOptional reads a file of a case folder; "" is no file.
func readOptional(dir, name string) ([]byte, error) {
	if name == "" {
		return nil, nil
	}
	if !fs.ValidPath(name) || strings.Contains(name, "/") {
		return nil, fmt.Errorf("file name %q leaves the case folder", name)
	}
	return captures.ReadFile(dir + "/" + name)
}

// port returns the value of flag in argv as a TCP port, or def.
func port(argv []string, flag string, def uint16) uint16 {
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == flag {
			if p, err := strconv.ParseUint(argv[i+1], 10, 16); err == nil {
				return uint16(p)
			}
		}
	}
	return def
}
