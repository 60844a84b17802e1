package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// clocked is a Printer on b whose clock the test moves.
func clocked(b *bytes.Buffer, total int) (*Printer, func(time.Duration)) {
	p := New(b, total)
	now := p.start
	p.now = func() time.Time { return now }
	return p, func(d time.Duration) { now = now.Add(d) }
}

func lines(b *bytes.Buffer) string { return strings.TrimSpace(b.String()) }

// twoSteps is what a Printer of total steps prints for the step first,
// then, d later, the step second.
func twoSteps(total int, first string, d time.Duration, second string) string {
	var b bytes.Buffer
	p, tick := clocked(&b, total)
	p.Step("%s", first)
	tick(d)
	p.Step("%s", second)
	return lines(&b)
}

func TestPlain(t *testing.T) {
	var b bytes.Buffer
	p, tick := clocked(&b, 3)
	p.Step("prepare %s", "rxe0")
	tick(10 * time.Second)
	p.Step("run 1")
	tick(10 * time.Second)
	p.Step("run 2")
	p.Done()
	want := "[1/3] prepare rxe0 (0s elapsed, ETA unknown)\n" +
		"[2/3] run 1 (10s elapsed, ETA 20s)\n" +
		"[3/3] run 2 (20s elapsed, ETA 10s)\n" +
		"done: 3 steps in 20s"
	if got := lines(&b); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestNoETAFromAnInstant: a first step that took no time used to give
// "ETA 0s" for the whole run.
func TestNoETAFromAnInstant(t *testing.T) {
	out := twoSteps(3, "read the netdev", 200*time.Millisecond, "run 1 (30s)")
	if got := strings.Split(out, "\n")[1]; got != "[2/3] run 1 (30s) (0s elapsed, ETA unknown)" {
		t.Errorf("second step: %q", got)
	}
}

// TestPastTheTotal: a step more than announced grows the total; with no
// total there is a count and no ETA.
func TestPastTheTotal(t *testing.T) {
	if got := strings.Split(twoSteps(1, "a", 4*time.Second, "b"), "\n")[1]; got != "[2/2] b (4s elapsed, ETA 4s)" {
		t.Errorf("past the total: %q", got)
	}
	if got := twoSteps(0, "a", 4*time.Second, "b"); got != "[1] a (0s elapsed, ETA unknown)\n[2] b (4s elapsed, ETA unknown)" {
		t.Errorf("no total: %q", got)
	}
}
