package tune

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A tracked process's group is ended by Recover (after a crash or a lost
// link); a PID whose start time differs is another process, left alone.
func TestTrackProcessRecover(t *testing.T) {
	ctx := context.Background()
	start := func() *exec.Cmd {
		c := exec.Command("sh", "-c", "sleep 600 & wait")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
		return c
	}
	c := start()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	s, err := Begin(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.TrackProcess(c.Process.Pid, []string{"sh", "-c", "sleep 600 & wait"})
	if err != nil || e.Kind != KindProcess || e.Target.PID != c.Process.Pid || e.Target.PIDStart == 0 {
		t.Fatalf("TrackProcess = %+v, %v", e, err)
	}
	s.Close()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	rep, err := Recover(ctx, path)
	if err != nil || len(rep.Undone) != 1 {
		t.Fatalf("Recover = %+v, %v", rep, err)
	}
	if err := <-done; err == nil {
		t.Error("the tracked process exited 0; want killed")
	}
	// Its child (sleep) went with the group (reaped by init once gone).
	err = nil
	for i := 0; i < 250 && err != syscall.ESRCH; i++ {
		if err = syscall.Kill(-c.Process.Pid, 0); err != syscall.ESRCH {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if err != syscall.ESRCH {
		t.Errorf("process group %d after Recover: kill 0 = %v, want ESRCH", c.Process.Pid, err)
	}

	// Same PID, other start time: another process, not touched.
	other := start()
	path2 := filepath.Join(t.TempDir(), "j.jsonl")
	s2, err := Begin(path2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.TrackProcess(other.Process.Pid, nil); err != nil {
		t.Fatal(err)
	}
	s2.entries[0].Target.PIDStart++ // as a reused PID reads
	if _, err := undo(ctx, s2.sys, s2.jf, s2.entries); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Errorf("a process with another start time was signalled: %v", err)
	}
	if _, err := s2.TrackProcess(1, nil); err == nil {
		t.Error("TrackProcess on a closed session")
	}
}
