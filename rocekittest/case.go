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

// captures holds every group of both lab suites' captures (the tools'
// runs, the kernel files, ethtool, rdma, setup) and the public outputs
// copied from testdata/realworld (realworld/: /proc files, ethtool -S,
// show_gids and RDMA counters of real hardware).
//
//go:embed captures/*/perftest captures/*/netperf captures/*/proc captures/*/sysfs captures/*/ethtool captures/*/rdma captures/*/setup realworld
var captures embed.FS

// Groups are the groups of the lab captures, as in an ID's middle part;
// the realworld cases' areas are "proc", "ethtool" and "rdma".
var Groups = []string{"perftest", "netperf", "proc", "sysfs", "ethtool", "rdma", "setup"}

// RealworldSuite is the Suite of the cases copied from public reports
// (IDs "realworld/AREA/NAME": "realworld/rdma/show_gids-mlx5-bond-vxlan").
const RealworldSuite = "realworld"

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
	// ID is "SUITE/GROUP/NAME": "trixie/perftest/send-bw",
	// "trixie/proc/interrupts", "realworld/ethtool/ice-e810-ethq".
	ID string
	// Suite is the lab image: "bookworm", "trixie" ("synthetic" for
	// builders' cases, RealworldSuite for public outputs).
	Suite string
	// Group is the ID's middle part (Groups); Name the case folder.
	Group, Name string
	// Tool is what made the output: "perftest", "netperf", "kernel" for
	// a file read (/proc, /sys), "ethtool", "rdma", ... (a realworld
	// case: its source's tool, "show_gids (MLNX_OFED)").
	Tool string
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
	// by name; a realworld case's outputs ("output.txt", "before.txt").
	Files map[string][]byte
	// Log is the capture's log of the case ("server listening on port
	// 18516 after 0.491s (52 polls)").
	Log []string
	// Synthetic is set on cases made by a builder, not captured; Source
	// names the capture whose numbers it took, if any, and for a
	// realworld case the page it was taken from.
	Synthetic bool
	Source    string

	dir string // the case's folder in captures ("" for a builder's)
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

// IDs lists every embedded case ID, sorted: the lab's
// ("trixie/proc/softirqs") and the realworld ones.
//
// Similar to: ls testdata/*/{perftest,netperf,proc,sysfs,ethtool,rdma,setup}
func IDs() []string {
	files, _ := fs.Glob(captures, "captures/*/*/*/case.json")
	rw, _ := fs.Glob(captures, RealworldSuite+"/*/*/source.json")
	ids := make([]string, 0, len(files)+len(rw))
	for _, f := range files {
		ids = append(ids, strings.TrimPrefix(path.Dir(f), "captures/"))
	}
	for _, f := range rw {
		ids = append(ids, path.Dir(f))
	}
	slices.Sort(ids)
	return ids
}

// Cases returns the embedded cases of a group ("perftest", "netperf",
// "proc", "ethtool", ...; see Groups) whose ToolVersion starts with
// version ("" for all), sorted by ID: the way to pick the captures of one
// perftest release ("4.5", "25.01") or every /proc file.
//
// Similar to: grep -l '"tool_version": "25.01' testdata/*/perftest/*/case.json
func Cases(group, version string) ([]*Case, error) {
	var out []*Case
	for _, id := range IDs() {
		if !strings.Contains(id, "/"+group+"/") {
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

// Lookup returns the case "SUITE/GROUP/NAME" ("trixie/perftest/send-bw",
// "bookworm/proc/softnet-stat", "trixie/ethtool/nic-a-stats",
// "realworld/rdma/show_gids-mlx5-bond-vxlan"), read from the embedded
// captures; ErrNoCase when there is none. A kernel file case's files are
// in its Tree.
//
// Similar to: cat testdata/trixie/perftest/send-bw/case.json
func Lookup(id string) (*Case, error) {
	dir := path.Join("captures", id)
	if id == "" || !fs.ValidPath(id) || strings.Count(id, "/") != 2 {
		return nil, fmt.Errorf("%w: %q", ErrNoCase, id)
	}
	if strings.HasPrefix(id, RealworldSuite+"/") {
		return lookupRealworld(id)
	}
	var cf caseFile
	err := readCaseJSON(dir, id, "case.json", &cf)
	if err != nil {
		return nil, err
	}
	c := &Case{ID: id, Suite: cf.Suite, Group: strings.Split(id, "/")[1], Tool: cf.Tool, Name: path.Base(id), Kernel: cf.Kernel,
		ToolVersion: cf.ToolVersion, Note: cf.Note, Expect: cf.Expect, Log: cf.Log, Files: map[string][]byte{}, dir: dir}
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

// readCaseJSON decodes the JSON file name of case id, in the folder dir
// of captures, into v: ErrNoCase when the file is not there.
func readCaseJSON(dir, id, name string, v any) error {
	b, err := captures.ReadFile(dir + "/" + name)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrNoCase, id)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("rocekittest: %s/%s: %w", id, name, err)
	}
	return nil
}

// readOptional reads a file of a case folder ("cmd.stdout",
// "tree/proc/interrupts"); "" is no file.
func readOptional(dir, name string) ([]byte, error) {
	if name == "" {
		return nil, nil
	}
	if !fs.ValidPath(name) {
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
