package host

import (
	"context"
	"io"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"
)

// Lines yields each line as soon as it is written, before the stream ends.
func TestOutputLinesAsTheyArrive(t *testing.T) {
	o := newOutput(0, 0, nil)
	r, w := io.Pipe()
	go o.pump(r, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	next, stop := iter.Pull(o.Lines(ctx))
	defer stop()
	for _, want := range []string{"alpha", "", "gamma"} {
		if _, err := io.WriteString(w, want+"\n"); err != nil {
			t.Fatal(err)
		}
		got, ok := next()
		if !ok || got != want {
			t.Fatalf("got %q, %v; want %q before the stream ends", got, ok, want)
		}
	}
	io.WriteString(w, "tail without newline")
	w.Close()
	if got, ok := next(); !ok || got != "tail without newline" {
		t.Fatalf("last line %q, %v", got, ok)
	}
	if _, ok := next(); ok {
		t.Fatal("iterator did not end with the stream")
	}
	if got, want := o.String(), "alpha\n\ngamma\ntail without newline"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if !o.Closed() {
		t.Error("not closed")
	}
}

func TestOutputLinesStopsWithContext(t *testing.T) {
	o := newOutput(0, 0, nil)
	o.add("one", true)
	ctx, cancel := context.WithCancel(context.Background())
	var got []string
	done := make(chan struct{})
	go func() {
		for l := range o.Lines(ctx) {
			got = append(got, l)
		}
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Lines did not stop when its context ended")
	}
	if len(got) > 1 {
		t.Errorf("got %q", got)
	}
}

func TestOutputLongLineSplit(t *testing.T) {
	o := newOutput(0, 0, nil)
	long := strings.Repeat("x", maxLineBytes*2+5)
	o.pump(strings.NewReader(long+"\nend\n"), nil)
	var lines []string
	for l := range o.Lines(context.Background()) {
		lines = append(lines, l)
	}
	want := []string{long[:maxLineBytes], long[maxLineBytes : 2*maxLineBytes], "xxxxx", "end"}
	if !slices.Equal(lines, want) {
		t.Errorf("got %d lines of lengths %v", len(lines), lens(lines))
	}
}

// With MaxLineBytes, a line longer than the default and even than the
// kept bound reaches the callback whole; a longer one still is split.
func TestOutputMaxLineBytes(t *testing.T) {
	var seen []string
	o := newOutput(1<<10, 3*maxLineBytes, func(l string) { seen = append(seen, l) })
	whole := strings.Repeat("y", 2*maxLineBytes+7)
	over := strings.Repeat("z", 3*maxLineBytes+1)
	o.pump(strings.NewReader(whole+"\n"+over+"\n"), nil)
	if len(seen) != 3 || seen[0] != whole || len(seen[1]) != 3*maxLineBytes || seen[2] != "z" {
		t.Errorf("callback saw lines of lengths %v, want %d, %d, 1", lens(seen), len(whole), 3*maxLineBytes)
	}
}

func lens(ss []string) []int {
	var n []int
	for _, s := range ss {
		n = append(n, len(s))
	}
	return n
}

// A bounded output keeps the first and the last lines; an iterator that
// starts late skips the dropped middle; the callback sees every line.
func TestOutputBounded(t *testing.T) {
	var all []string
	o := newOutput(40, 0, func(l string) { all = append(all, l) })
	var in strings.Builder
	for i := range 100 {
		in.WriteString(strings.Repeat(string(rune('a'+i%26)), 3) + "\n") // 4 bytes a line
	}
	o.pump(strings.NewReader(in.String()), nil)
	got := o.String()
	if want := "aaa\nbbb\nccc\nddd\neee\nrrr\nsss\nttt\nuuu\nvvv\n"; got != want {
		t.Errorf("kept %q, want %q", got, want)
	}
	if n, size := o.Dropped(); n != 90 || size != 360 {
		t.Errorf("Dropped = %d lines %d bytes, want 90, 360", n, size)
	}
	if len(all) != 100 {
		t.Errorf("callback saw %d lines", len(all))
	}
	var lines []string
	for l := range o.Lines(context.Background()) {
		lines = append(lines, l)
	}
	if want := []string{"aaa", "bbb", "ccc", "ddd", "eee", "rrr", "sss", "ttt", "uuu", "vvv"}; !slices.Equal(lines, want) {
		t.Errorf("Lines = %q", lines)
	}
	if tail := o.tailString(9); tail != "uuu\nvvv\n" {
		t.Errorf("tailString(9) = %q", tail)
	}
}
