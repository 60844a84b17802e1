package irq

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSoftirqs(t *testing.T) {
	s, err := ParseSoftirqs(bytes.NewReader(readFixture(t, "trixie/traffic/after/proc/softirqs")))
	if err != nil {
		t.Fatal(err)
	}
	want := Softirqs{CPUs: []int{0, 1, 2, 3}, Counts: map[string][]uint64{
		"HI":       {0, 0, 0, 0},
		"TIMER":    {2236, 2051, 3218, 4291},
		"NET_TX":   {0, 6, 7, 0},
		"NET_RX":   {399, 341, 457, 0},
		"BLOCK":    {0, 0, 0, 0},
		"IRQ_POLL": {0, 0, 0, 0},
		"TASKLET":  {11, 83, 296, 0},
		"SCHED":    {9254, 7740, 6642, 7546},
		"HRTIMER":  {0, 0, 0, 0},
		"RCU":      {8340, 8666, 9751, 8440},
	}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := s.Count("NET_RX", 2); got != 457 {
		t.Errorf("Count(NET_RX, 2) = %d", got)
	}
	if got := s.Count("NOPE", 2) + s.Count("NET_RX", 9); got != 0 {
		t.Errorf("missing counts = %d", got)
	}
	// The host capture, through the Root.
	h, err := fixtureFS(t, "host").Softirqs()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint64{4407283, 3936883}, h.Counts["NET_RX"]); diff != "" {
		t.Errorf("host NET_RX (-want +got):\n%s", diff)
	}
}

func TestParseSoftirqsErrors(t *testing.T) {
	s, err := ParseSoftirqs(strings.NewReader("  CPU0 CPU1\nNET_RX: 1 x\nTIMER: 3 4\nbroken\n"))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("err = %v, want ErrParse for lines 2 and 4", err)
	}
	if diff := cmp.Diff(map[string][]uint64{"NET_RX": {1}, "TIMER": {3, 4}}, s.Counts); diff != "" {
		t.Errorf("kept rows (-want +got):\n%s", diff)
	}
	for _, in := range []string{"", "HI: 1 2\n"} {
		if _, err := ParseSoftirqs(strings.NewReader(in)); !errors.Is(err, ErrParse) {
			t.Errorf("ParseSoftirqs(%q) err = %v", in, err)
		}
	}
}

func FuzzParseSoftirqs(f *testing.F) {
	f.Add(readFixture(f, "trixie/proc/softirqs"))
	f.Add(genSoftirqs(4))
	f.Add([]byte("CPU0\n:\nX: 18446744073709551616\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, _ := ParseSoftirqs(bytes.NewReader(b))
		for name, row := range s.Counts {
			if len(row) > len(s.CPUs) {
				t.Fatalf("%s: %d counts for %d CPUs", name, len(row), len(s.CPUs))
			}
			for _, c := range s.CPUs {
				_ = s.Count(name, c)
			}
		}
	})
}

func genSoftirqs(ncpu int) []byte {
	var b strings.Builder
	b.WriteString("                    ")
	for c := 0; c < ncpu; c++ {
		fmt.Fprintf(&b, "CPU%-8d", c)
	}
	b.WriteString("\n")
	for _, n := range []string{"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"} {
		fmt.Fprintf(&b, "%12s:", n)
		for c := 0; c < ncpu; c++ {
			fmt.Fprintf(&b, " %10d", c*1009)
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

func BenchmarkParseSoftirqs(b *testing.B) {
	data := genSoftirqs(256)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSoftirqs(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseSoftirqsElidedHeader: a header pasted with "..." for columns
// over rows that kept every count (the real trixie capture, its header
// shortened to "CPU0 CPU1 ... CPU3"): the rows say which CPUs the "..."
// stands for, and no count is put under the wrong CPU.
func TestParseSoftirqsElidedHeader(t *testing.T) {
	real := string(readFixture(t, "trixie/traffic/after/proc/softirqs"))
	header, rest, _ := strings.Cut(real, "\n")
	elided := strings.Replace(header, "CPU2", "...", 1)
	s, err := ParseSoftirqs(strings.NewReader(elided + "\n" + rest))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{0, 1, 2, 3}, s.CPUs); d != "" {
		t.Errorf("CPUs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]uint64{2236, 2051, 3218, 4291}, s.Counts["TIMER"]); d != "" || s.Count("NET_RX", 3) != 0 || s.Count("NET_RX", 2) != 457 {
		t.Errorf("TIMER (-want +got):\n%s; NET_RX on CPU2 %d, CPU3 %d", d, s.Count("NET_RX", 2), s.Count("NET_RX", 3))
	}
	// A row that does not fit the header either way is dropped, with its
	// line, rather than labelled wrong.
	mixed := elided + "\n" + strings.Replace(rest, "NET_RX:", "NET_RX:  7", 1)
	s, err = ParseSoftirqs(strings.NewReader(mixed))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 5") || s.Counts["NET_RX"] != nil || len(s.Counts["TIMER"]) != 4 {
		t.Errorf("err %v, NET_RX %v, TIMER %v", err, s.Counts["NET_RX"], s.Counts["TIMER"])
	}
	// Without "...", more counts than columns is an error too; the
	// counts under the header's columns are kept.
	s, err = ParseSoftirqs(strings.NewReader("  CPU0 CPU1\nNET_RX: 1 2 3\n"))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 2") || !slices.Equal(s.Counts["NET_RX"], []uint64{1, 2}) {
		t.Errorf("err %v, NET_RX %v", err, s.Counts["NET_RX"])
	}
}

// TestParseSoftirqsElided40: issue 28 item 8, a header "CPU0 CPU1 ...
// CPU39" over full rows of 40 counts: CPUs 0 to 39, every count kept
// under its own CPU, no error.
func TestParseSoftirqsElided40(t *testing.T) {
	var b strings.Builder
	b.WriteString("                    CPU0       CPU1 ...      CPU39\n")
	for _, name := range []string{"HI", "NET_RX"} {
		b.WriteString("     " + name + ":")
		for c := range 40 {
			fmt.Fprintf(&b, " %10d", 1000+c)
		}
		b.WriteString("\n")
	}
	s, err := ParseSoftirqs(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.CPUs) != 40 || s.CPUs[0] != 0 || s.CPUs[2] != 2 || s.CPUs[39] != 39 {
		t.Fatalf("CPUs %v", s.CPUs)
	}
	for _, c := range []int{0, 1, 2, 20, 38, 39} {
		if got := s.Count("NET_RX", c); got != uint64(1000+c) {
			t.Errorf("NET_RX on CPU%d = %d, want %d", c, got, 1000+c)
		}
	}
}
