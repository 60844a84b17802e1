package tune

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/irq"
)

// envCrashChild carries a crashPlan to the test binary run as a child.
const envCrashChild = "ROCEKIT_TUNE_CRASH_CHILD"

// crashPlan is what the child applies before it is killed.
type crashPlan struct {
	Journal string
	Options Options
	Changes []Change
	// ReportLocked: a Begin refused with ErrLocked prints LOCKED and
	// ends the child without failing.
	ReportLocked bool
}

// TestCrashChild is not a test: it is the child of crashAfterApply. It
// applies the plan through a Session, says so, and waits to be killed.
func TestCrashChild(t *testing.T) {
	raw := os.Getenv(envCrashChild)
	if raw == "" {
		t.Skip("helper process of the crash tests")
	}
	var p crashPlan
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		t.Fatal(err)
	}
	s, err := Begin(p.Journal, p.Options)
	if p.ReportLocked && errors.Is(err, ErrLocked) {
		os.Stdout.WriteString("\nLOCKED " + err.Error() + "\n")
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(context.Background(), p.Changes...); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("\nAPPLIED\n")
	time.Sleep(time.Hour) // until SIGKILL; no Restore, no Close
}

// childCmd returns the command that runs this test binary as
// TestCrashChild with plan p, not yet started.
func childCmd(t *testing.T, p crashPlan) *exec.Cmd {
	t.Helper()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), envCrashChild+"="+string(raw))
	return cmd
}

// crashAfterApply runs this test binary as a child that applies p and
// kills it with SIGKILL once it has.
func crashAfterApply(t *testing.T, p crashPlan) {
	t.Helper()
	cmd := childCmd(t, p)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	applied := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if sc.Text() == "APPLIED" {
				applied <- nil
				return
			}
		}
		applied <- lines
	}()
	select {
	case lines := <-applied:
		if lines != nil {
			cmd.Wait()
			t.Fatalf("child ended before applying:\n%s", strings.Join(lines, "\n"))
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("child did not apply within 2 minutes")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, not by SIGKILL", cmd.ProcessState)
	}
}

// TestCrashRecoverFixture: a child applies IRQ affinity and governor
// changes to a fixture /proc and /sys and is killed with SIGKILL; Recover
// puts every file back, and a second Recover changes nothing.
func TestCrashRecoverFixture(t *testing.T) {
	fx := newIRQFixture(t)
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	crashAfterApply(t, crashPlan{Journal: journal, Options: fx.opts, Changes: []Change{
		Affinity(27, irq.NewCPUList(1)),
		Affinity(28, irq.NewCPUList(2, 3)),
		Governor(0, "performance"),
		Governor(1, "performance"),
		Affinity(27, irq.NewCPUList(3)), // changed twice: back to 0-3, not 1
	}})
	// The child did change them.
	fx.want(t, "proc/irq/27/smp_affinity_list", "3")
	fx.want(t, "proc/irq/28/smp_affinity_list", "2-3")
	fx.want(t, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance")
	fx.want(t, "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance")

	rep, err := Recover(context.Background(), journal)
	if err != nil || len(rep.Undone) != 5 || rep.AlreadyRestored != 0 {
		t.Fatalf("Recover = %+v, %v", rep, err)
	}
	fx.wantOriginal(t)

	// Again: nothing left to undo, no file written.
	stamps := fx.mtimes(t)
	rep, err = Recover(context.Background(), journal)
	if err != nil || len(rep.Undone) != 0 || rep.AlreadyRestored != 5 {
		t.Errorf("second Recover = %+v, %v", rep, err)
	}
	fx.wantOriginal(t)
	if d := fx.mtimes(t); !mapsEqual(stamps, d) {
		t.Errorf("second Recover wrote files: %v -> %v", stamps, d)
	}
}

func mapsEqual(a, b map[string]time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !b[k].Equal(v) {
			return false
		}
	}
	return true
}
