package zombie

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The child has exited when WaitExited returns, and is still a zombie
// until Wait reaps it.
func TestWaitExited(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 3")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	WaitExited(cmd.Process.Pid)
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	if err != nil {
		t.Fatalf("exited child already reaped: %v", err)
	}
	// The state follows the parenthesised command name.
	if _, rest, _ := strings.Cut(string(stat), ") "); !strings.HasPrefix(rest, "Z") {
		t.Errorf("child state %q, want Z (zombie)", rest)
	}
	if err := cmd.Wait(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Errorf("Wait = %v, state %v; want exit 3", err, cmd.ProcessState)
	}
}
