package tune

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocekit/rocekit/irq"
)

// TestTwoWritersOneJournal starts two processes on one journal at the same
// moment, 40 times. Before the lock, both Begins succeeded in 7 of 40
// tries and Recover afterwards left changes in place in 5 of 40. Now one
// wins, the other is refused with ErrLocked naming the winner, and after
// the winner is killed Recover puts every file back.
func TestTwoWritersOneJournal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 80 processes")
	}
	for try := range 40 {
		fx := newIRQFixture(t)
		journal := filepath.Join(t.TempDir(), "journal.jsonl")
		plans := []crashPlan{
			{Journal: journal, Options: fx.opts, ReportLocked: true, Changes: []Change{Affinity(27, irq.NewCPUList(1))}},
			{Journal: journal, Options: fx.opts, ReportLocked: true, Changes: []Change{Affinity(28, irq.NewCPUList(2))}},
		}
		var wg sync.WaitGroup
		outcome := make([]string, 2)
		cmds := make([]*exec.Cmd, 2)
		for i, p := range plans {
			cmds[i] = childCmd(t, p)
		}
		for i := range cmds {
			wg.Go(func() { outcome[i] = firstWord(t, cmds[i]) })
		}
		wg.Wait()
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
		got := strings.Join(outcome, " ")
		if got != "APPLIED LOCKED" && got != "LOCKED APPLIED" {
			t.Fatalf("try %d: outcomes %q, want one APPLIED and one LOCKED", try, got)
		}
		if _, err := Recover(context.Background(), journal); err != nil {
			t.Fatalf("try %d: Recover: %v", try, err)
		}
		fx.wantOriginal(t)
	}
}

// firstWord starts cmd and returns APPLIED or LOCKED, whichever it
// prints first, or what it printed when it ended with neither.
func firstWord(t *testing.T, cmd *exec.Cmd) string {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err.Error()
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err.Error()
	}
	done := make(chan string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w, _, _ := strings.Cut(sc.Text(), " ")
			if w == "APPLIED" || w == "LOCKED" {
				done <- w
				return
			}
			lines = append(lines, sc.Text())
		}
		done <- strings.Join(lines, "\n") + stderr.String()
	}()
	select {
	case w := <-done:
		return w
	case <-time.After(2 * time.Minute):
		return "no answer within 2 minutes"
	}
}

// TestNotAJournalLeftAlone: a file that is not a journal (a notes file
// given as -journal by mistake) is refused by Begin and Recover, and not
// one byte of it changes; the torn-line repair used to cut its last line.
func TestNotAJournalLeftAlone(t *testing.T) {
	for name, content := range map[string]string{
		"notes":         "meeting notes\nMTU 9000 on both hosts\nlast line without newline",
		"json lines":    `{"a":1}` + "\n" + `{"b":2}`,
		"newer version": `{"rec":"header","version":99,"pid":1,"time":"2026-11-30T00:00:00Z"}` + "\n" + `{"rec":"change","seq":1,"entry":{"seq":1,"kind":"mtu"}}` + "\n{torn",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "notes.txt")
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := begin(path, "/proc", "/sys", newFake()); !errors.Is(err, ErrJournal) {
				t.Errorf("Begin = %v, want ErrJournal", err)
			}
			f := newFake()
			if _, err := recoverWith(context.Background(), path, func(string, string) system { return f }); !errors.Is(err, ErrJournal) {
				t.Errorf("Recover = %v, want ErrJournal", err)
			}
			if b, _ := os.ReadFile(path); string(b) != content {
				t.Errorf("file changed:\n%q\nwant\n%q", b, content)
			}
			if len(f.writes) != 0 {
				t.Errorf("Recover wrote %v", f.writes)
			}
		})
	}
}

// TestHeaderOnlyJournalRemoved: a session that ended before its first
// change (a failed peer operation) leaves a header, perhaps with a torn
// change line after it; nothing was changed, so Recover removes the file.
func TestHeaderOnlyJournalRemoved(t *testing.T) {
	for name, tail := range map[string]string{"header only": "", "torn change": `{"rec":"change","seq":1,"ent`} {
		t.Run(name, func(t *testing.T) {
			f := newFake()
			s := fakeSession(t, f)
			s.Close()
			if tail != "" {
				fh, _ := os.OpenFile(s.Path(), os.O_APPEND|os.O_WRONLY, 0)
				fh.WriteString(tail)
				fh.Close()
			}
			rep, err := recoverWith(context.Background(), s.Path(), func(string, string) system { return f })
			if err != nil || len(rep.Undone) != 0 || rep.Torn != len(tail) {
				t.Errorf("Recover = %+v, %v", rep, err)
			}
			if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("journal still there: %v", err)
			}
		})
	}
}
