package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// CaseFile is the name of the record in every case directory.
const CaseFile = "case.json"

// Expect says which outcome of a case is normal.
type Expect string

const (
	// ExpectOK means every side must succeed: exit status 0, no timeout. A server that
	// capture stops on purpose after its client finished (netserver) counts as success.
	// A failure of such a case makes the whole run fail.
	ExpectOK Expect = "ok"
	// ExpectFail means the case shows a failure (no server, bad device, ...). Its outcome is
	// recorded and never makes the run fail.
	ExpectFail Expect = "fail"
	// ExpectTimeoutOK means the tool may hang (older perftest on mismatched parameters):
	// a timeout, like any other outcome, is recorded and never makes the run fail.
	ExpectTimeoutOK Expect = "timeout-ok"
)

// Roles of the sides of a case.
const (
	// RoleServer is the server of a pair (perftest server, netserver).
	RoleServer = "server"
	// RoleClient is the client of a pair (perftest client, netperf).
	RoleClient = "client"
	// RoleCmd is the only side of a single-command case.
	RoleCmd = "cmd"
	// RoleFile is a file copied from /proc or /sys; its Command reads "cat PATH".
	RoleFile = "file"
)

// Case is the record of one captured case, stored as DIR/<group>/<name>/case.json.
type Case struct {
	// ID is "<group>/<name>", e.g. "perftest/send-bw-gbits".
	ID string `json:"id"`
	// Suite is the lab image the case ran in, e.g. "bookworm".
	Suite string `json:"suite"`
	// Kernel is the release of the running kernel (uname -r).
	Kernel string `json:"kernel"`
	// Captured is when the case started, in UTC, to the second.
	Captured time.Time `json:"captured"`
	// Tool is the tool family: "perftest", "netperf", "rdma", "ethtool", "kernel", ...
	Tool string `json:"tool"`
	// ToolVersion is the Debian package version followed by the tool's own version text in
	// parentheses, e.g. "4.5+0.17-1 (Version: 6.06)".
	ToolVersion string `json:"tool_version"`
	// Note says what the case shows.
	Note string `json:"note"`
	// Expect is the outcome that is normal for this case.
	Expect Expect `json:"expect"`
	// Sides are the processes and copied files of the case, in the order they started.
	Sides []Side `json:"sides"`
	// Files are further files in the case directory that no side names as its stdout or
	// stderr, such as perftest's --out_json_file, relative to the case directory.
	Files []string `json:"files"`
	// Log holds what capture observed while running the case (readiness, polls, chosen
	// GID index), in order.
	Log []string `json:"log,omitempty"`
}

// Side is one process of a case (a server, a client, a single command) or one copied file.
type Side struct {
	// Role is RoleServer, RoleClient, RoleCmd, RoleFile, or the name of a setup step.
	Role string `json:"role"`
	// Command is the tool's command line, without the wrapper and without "ip netns exec".
	Command string `json:"command"`
	// Wrapper is what the command ran under, e.g. "stdbuf -oL -eL", or "".
	Wrapper string `json:"wrapper"`
	// Netns is the network namespace the command ran in ("" for the initial one).
	Netns string `json:"netns"`
	// Exit is the exit status, or -1 when the process was killed by a signal or did not start.
	Exit int `json:"exit"`
	// TimedOut is true when capture killed the process group at its deadline.
	TimedOut bool `json:"timed_out"`
	// Seconds is the wall time from start to exit, to the millisecond.
	Seconds float64 `json:"seconds"`
	// Stdout is the file (relative to the case directory) that holds the byte-exact stdout,
	// or the copied content for RoleFile. It is "" when a file could not be read.
	Stdout string `json:"stdout"`
	// Stderr is the file that holds the byte-exact stderr; "" for RoleFile read directly.
	Stderr string `json:"stderr"`
	// Signal names the signal that ended the process ("SIGKILL", "SIGTERM", "SIGPIPE"), if any.
	Signal string `json:"signal,omitempty"`
	// Stopped is true when capture ended the process on purpose after its client finished,
	// as it does with netserver. A stopped side counts as successful.
	Stopped bool `json:"stopped,omitempty"`
	// Errno is the kernel error name of a failed file read, e.g. "EINVAL" for an empty GID
	// slot's gid_attrs file.
	Errno string `json:"errno,omitempty"`
	// Error is capture's own error text: a process that could not start, or a file read
	// error such as "read /sys/...: invalid argument".
	Error string `json:"error,omitempty"`
}

// OK reports whether the side succeeded: exit status 0 or stopped on purpose, no timeout,
// no error.
func (s Side) OK() bool {
	return !s.TimedOut && s.Error == "" && (s.Exit == 0 || s.Stopped)
}

// Side returns the first side with the given role.
func (c *Case) Side(role string) (Side, bool) {
	for _, s := range c.Sides {
		if s.Role == role {
			return s, true
		}
	}
	return Side{}, false
}

// WriteCase writes c as dir/case.json, indented by two spaces.
func WriteCase(dir string, c *Case) error {
	rec := *c
	if rec.Sides == nil {
		rec.Sides = []Side{}
	}
	if rec.Files == nil {
		rec.Files = []string{}
	}
	data, err := json.MarshalIndent(&rec, "", "  ")
	if err != nil {
		return fmt.Errorf("capture: encode %s: %w", c.ID, err)
	}
	data = append(data, '\n')
	return os.WriteFile(filepath.Join(dir, CaseFile), data, 0o644)
}

// ReadCase reads dir/case.json. Unknown fields are an error, so that a reader notices when
// the record format moves on.
func ReadCase(dir string) (*Case, error) {
	data, err := os.ReadFile(filepath.Join(dir, CaseFile))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Case
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("capture: %s: %w", filepath.Join(dir, CaseFile), err)
	}
	return &c, nil
}

// CaseDirs returns every directory below root that holds a case.json, sorted.
func CaseDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == CaseFile {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}
