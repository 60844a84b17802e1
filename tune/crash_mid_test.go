package tune

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/irq"
)

// TestCrashMidApply kills the child with SIGKILL while it is still
// applying a long run of changes, at whatever change it has reached:
// Recover must bring every fixture file back, including the change that
// was journaled but not yet marked done.
func TestCrashMidApply(t *testing.T) {
	fx := newIRQFixture(t)
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	var changes []Change
	for i := range 400 {
		changes = append(changes, Affinity(27+i%2, irq.NewCPUList(i%4)), Governor(i%2, []string{"performance", "schedutil"}[i%2]))
	}
	raw, err := json.Marshal(crashPlan{Journal: journal, Options: fx.opts, Changes: changes})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), envCrashChild+"="+string(raw))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once some changes are journaled, long before all 800 are.
	deadline := time.Now().Add(time.Minute)
	for {
		if st, err := os.Stat(journal); err == nil && st.Size() > 20<<10 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the child journaled nothing within a minute")
		}
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("child was not killed mid-run: %v", cmd.ProcessState)
	}
	j, err := ReadJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	notDone := 0
	for _, e := range j.Entries {
		if !e.Done {
			notDone++
		}
	}
	t.Logf("killed after %d of %d changes journaled (%d not marked done, %d torn bytes)", len(j.Entries), len(changes), notDone, j.Torn)
	if len(j.Entries) == 0 || len(j.Entries) == len(changes) {
		t.Fatalf("%d entries: not killed mid-run", len(j.Entries))
	}

	rep, err := Recover(context.Background(), journal)
	if err != nil || len(rep.Undone) != len(j.Entries) {
		t.Fatalf("Recover = %d undone, %v", len(rep.Undone), err)
	}
	fx.wantOriginal(t)
	if rep, err := Recover(context.Background(), journal); err != nil || len(rep.Undone) != 0 {
		t.Errorf("second Recover = %+v, %v", rep, err)
	}
}
