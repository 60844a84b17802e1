package host

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Local runs commands on this host, in the caller's network namespace. Each
// process leads its own process group (setpgid), which is killed whole with
// SIGKILL when the context given to Start ends; when the leader exits, what
// is left of its group is killed too, so no run leaves a process behind.
// Each process also gets SIGKILL if the caller dies (PR_SET_PDEATHSIG). The
// kernel sends it when the forking OS thread exits, so every process is
// forked from one thread that the package keeps for the life of the program.
//
// Similar to: setsid PROG ARGS & ... kill -KILL -- -PGID
type Local struct {
	// ProcDir is the proc file system TCPSockets reads (net/tcp and
	// net/tcp6 under it); empty means "/proc". Tests point it at a fixture
	// tree.
	ProcDir string
}

// String returns "local".
func (Local) String() string { return "local" }

// TCPSockets lists the TCP sockets of the caller's network namespace.
//
// Similar to: cat /proc/net/tcp /proc/net/tcp6
func (l Local) TCPSockets(ctx context.Context) ([]TCPSocket, error) {
	dir := l.ProcDir
	if dir == "" {
		dir = "/proc"
	}
	return readTCPDir(filepath.Join(dir, "net"))
}

// readTCPDir parses dir/tcp and dir/tcp6; a missing tcp6 (a kernel without
// IPv6) is no error.
func readTCPDir(dir string) ([]TCPSocket, error) {
	v4, err := os.ReadFile(filepath.Join(dir, "tcp"))
	if err != nil {
		return nil, err
	}
	v6, err := os.ReadFile(filepath.Join(dir, "tcp6"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return ParseTCPTable(bytes.NewReader(append(v4, v6...)))
}
