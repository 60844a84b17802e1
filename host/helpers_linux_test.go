package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// procStat is what the tests read of /proc/PID/stat.
type procStat struct {
	state byte
	ppid  int
	pgid  int
}

func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:]) // state ppid pgrp ...
	if i < 0 || len(f) < 3 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	return procStat{state: f[0][0], ppid: ppid, pgid: pgid}, true
}

// alive reports whether pid exists and is not a zombie (an orphan killed
// here may wait as a zombie for PID 1 to reap it; it runs no more).
func alive(pid int) bool {
	st, ok := readProcStat(pid)
	return ok && st.state != 'Z'
}

// procsWhere lists the processes, zombies included, for which keep is true.
func procsWhere(keep func(pid int, st procStat) bool) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && keep(pid, st) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// groupMembers lists the live processes of group pgid: a zombie runs no
// more, so it does not count as left behind.
func groupMembers(pgid int) []int {
	return procsWhere(func(_ int, st procStat) bool { return st.pgid == pgid && st.state != 'Z' })
}

// waitGone waits until none of pids is alive; the kill happened before, so
// this only waits for the kernel to finish tearing them down.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := poll(ctx, nil, func() (bool, error) {
		for _, pid := range pids {
			if alive(pid) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		for _, pid := range pids {
			if alive(pid) {
				st, _ := readProcStat(pid)
				t.Errorf("pid %d survived: %+v", pid, st)
			}
		}
	}
}

// waitLine reads o until a line equal to want arrives.
func waitLine(t *testing.T, o *Output, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for line := range o.Lines(ctx) {
		if line == want {
			return
		}
	}
	t.Fatalf("line %q did not arrive (%v); output so far: %q", want, ctx.Err(), o.String())
}

// testCancelKillsGroup starts a shell that leaves sleep children in its
// group (one of them orphaned), cancels the context and checks that every
// process of the group is gone and Wait says why.
func testCancelKillsGroup(t *testing.T, r Runner) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := r.Start(ctx, Cmd{Argv: []string{"sh", "-c", "sleep 1000 & sleep 1001 & (sleep 1002 &); echo ready; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	waitLine(t, p.Stdout(), "ready")
	if st, ok := readProcStat(p.PID()); !ok || st.pgid != p.PID() {
		t.Fatalf("pid %d: pgid %d, want its own group (ok=%v)", p.PID(), st.pgid, ok)
	}
	members := groupMembers(p.PID())
	if len(members) < 4 {
		t.Fatalf("group %d has %v, want the shell and 3 sleeps", p.PID(), members)
	}
	start := time.Now()
	cancel()
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer wcancel()
	err = p.Wait(wctx)
	var exitErr *ExitError
	if !errors.As(err, &exitErr) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, want an *ExitError wrapping context.Canceled", err)
	}
	if exitErr.Status.Signal != syscall.SIGKILL || p.Status() != exitErr.Status {
		t.Errorf("status %v (Status() %v), want signal KILL", exitErr.Status, p.Status())
	}
	t.Logf("%s: killed group %d %v in %v", r, p.PID(), members, time.Since(start))
	waitGone(t, members)
}

// openFDs maps the open file descriptors of the test process to what they
// point at. Descriptors that close while they are listed (the listing's own
// directory) have no target and are left out.
func openFDs(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	fds := map[string]string{}
	for _, e := range entries {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil {
			fds[e.Name()] = target
		}
	}
	return fds
}

// newFDs lists the descriptors of after that before did not have.
func newFDs(before, after map[string]string) []string {
	var added []string
	for fd, target := range after {
		if before[fd] != target {
			added = append(added, fd+" -> "+target)
		}
	}
	return added
}

// children lists the live or zombie children of the test process.
func children() []int {
	self := os.Getpid()
	return procsWhere(func(_ int, st procStat) bool { return st.ppid == self })
}

func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// helperCmd returns a Cmd that runs the test binary in helper mode.
func helperCmd(t testing.TB, mode string) Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Cmd{Argv: []string{exe, "-test.run=^$"}, Env: []string{helperEnv + "=" + mode}}
}
