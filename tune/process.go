package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// KindProcess is a process the run started (netserver, a perftest server
// on a peer): its process group is ended when the change is undone. The
// target is its PID with the start time the kernel gave it (field 22 of
// /proc/PID/stat, in clock ticks since boot), so that a PID reused by
// another process is never signalled.
const KindProcess Kind = "process"

// ProcessState is whether the journaled process still runs.
type ProcessState struct {
	Running bool     `json:"running"`
	Argv    []string `json:"argv,omitempty"` // for the reader; not checked
}

// String says "running ARGV" or "not running".
func (p ProcessState) String() string {
	if !p.Running {
		return "not running"
	}
	return "running " + strings.Join(p.Argv, " ")
}

// ProcessStart reads a process's start time (field 22 of /proc/PID/stat)
// and whether it is a zombie (it has exited, unreaped).
func ProcessStart(pid int) (start uint64, zombie bool, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false, err
	}
	start, zombie, err = parseProcStat(b)
	if err != nil {
		return 0, false, fmt.Errorf("tune: /proc/%d/stat: %w", pid, err)
	}
	return start, zombie, nil
}

// parseProcStat reads the state and start time of a /proc/PID/stat line.
func parseProcStat(b []byte) (start uint64, zombie bool, err error) {
	// comm is in parentheses and may hold anything: split after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false, errors.New("no ')' after the command name")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return 0, false, fmt.Errorf("%d fields after the command name, want at least 20", len(f))
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("start time: %w", err)
	}
	return start, f[0] == "Z" || f[0] == "X", nil
}

// TrackProcess journals the running process pid, leader of its process
// group (the caller itself, before it execs the program: rocekit-peer
// exec), so that Restore, and Recover after a crash or a lost SSH link,
// kill the group if that very process still runs.
//
// Similar to: echo $! >> pids; trap 'kill -- -$PID' EXIT
func (s *Session) TrackProcess(pid int, argv []string) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Entry{}, ErrClosed
	}
	if pid <= 1 {
		return Entry{}, invalid("pid", strconv.Itoa(pid), "not a process the run started")
	}
	start, zombie, err := ProcessStart(pid)
	if err != nil {
		return Entry{}, err
	}
	if zombie {
		return Entry{}, invalid("pid", strconv.Itoa(pid), "has exited")
	}
	e, err := s.jf.begin(Entry{Kind: KindProcess, Target: Target{PID: pid, PIDStart: start},
		Old: Value{Process: &ProcessState{}}, New: Value{Process: &ProcessState{Running: true, Argv: argv}}})
	if err != nil {
		return Entry{}, err
	}
	s.entries = append(s.entries, e)
	if err := s.jf.mark(recDone, e.Seq); err != nil {
		return e, err
	}
	s.entries[len(s.entries)-1].Done = true
	return s.entries[len(s.entries)-1], nil
}

// readProcess: running when the PID is there, not a zombie, with the
// journaled start time.
func readProcess(t Target) (Value, error) {
	start, zombie, err := ProcessStart(t.PID)
	if errors.Is(err, os.ErrNotExist) {
		return Value{Process: &ProcessState{}}, nil
	}
	if err != nil {
		return Value{}, err
	}
	return Value{Process: &ProcessState{Running: start == t.PIDStart && !zombie}}, nil
}

// processGone is how long writeProcess waits for a killed group to go.
const processGone = 5 * time.Second

// writeProcess ends the process group of a journaled process that still
// runs (SIGKILL: it is a leftover), and waits until it is gone.
func writeProcess(ctx context.Context, t Target, v Value) error {
	if v.Process == nil || v.Process.Running {
		return invalid("process", strconv.Itoa(t.PID), "a process can only be ended")
	}
	cur, err := readProcess(t)
	if err != nil || !cur.Process.Running {
		return err
	}
	if err := syscall.Kill(-t.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("tune: kill process group %d: %w", t.PID, err)
	}
	deadline := time.Now().Add(processGone)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if cur, err := readProcess(t); err != nil || !cur.Process.Running {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("tune: process group %d still there after SIGKILL", t.PID)
}

// validateProcessTarget: a PID that can be a group leader the run made.
func validateProcessTarget(t Target) error {
	if t.PID <= 1 || t.PIDStart == 0 {
		return invalid("pid", strconv.Itoa(t.PID), "no process (PID > 1 with its start time)")
	}
	return nil
}

func matchesProcess(want, got Value) bool {
	return want.Process != nil && got.Process != nil && want.Process.Running == got.Process.Running
}
