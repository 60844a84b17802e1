package irq

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseStat(t *testing.T) {
	s, err := ParseStat(bytes.NewReader(readFixture(t, "trixie/traffic/before/proc/stat")))
	if err != nil {
		t.Fatal(err)
	}
	want := Stat{
		Total: CPUTicks{CPU: -1, User: 4005, System: 5015, Idle: 29154, SoftIRQ: 456},
		CPUs: []CPUTicks{
			{CPU: 0, User: 804, System: 1150, Idle: 7729, SoftIRQ: 113},
			{CPU: 1, User: 919, System: 1325, Idle: 7517, SoftIRQ: 114},
			{CPU: 2, User: 1363, System: 1470, Idle: 6618, SoftIRQ: 128},
			{CPU: 3, User: 918, System: 1069, Idle: 7288, SoftIRQ: 101},
		},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	h, err := fixtureFS(t, "host").Stat()
	if err != nil {
		t.Fatal(err)
	}
	c1, ok := h.CPU(1)
	if want := (CPUTicks{CPU: 1, User: 122504, System: 25784, Idle: 46235, IOWait: 1113, SoftIRQ: 1837, Steal: 378}); !ok || c1 != want {
		t.Errorf("host cpu1 = %+v, want %+v", c1, want)
	}
	if _, ok := h.CPU(7); ok {
		t.Error("CPU(7) found")
	}
}

func TestParseStatOldAndBroken(t *testing.T) {
	// 2.6.24-era lines have 8 values; a broken line is reported and
	// skipped.
	in := "cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\ncpu1 1 2 x 4\ncpuX 1 2 3 4\ncpu2 1 2\nintr 5\n"
	s, err := ParseStat(strings.NewReader(in))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "line 4") || !strings.Contains(err.Error(), "line 5") {
		t.Errorf("err = %v, want ErrParse on lines 3, 4 and 5", err)
	}
	want := Stat{
		Total: CPUTicks{CPU: -1, User: 1, Nice: 2, System: 3, Idle: 4, IOWait: 5, IRQ: 6, SoftIRQ: 7, Steal: 8},
		CPUs:  []CPUTicks{{CPU: 0, User: 1, Nice: 2, System: 3, Idle: 4, IOWait: 5, IRQ: 6, SoftIRQ: 7, Steal: 8}},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := ParseStat(strings.NewReader("intr 1\n")); !errors.Is(err, ErrParse) {
		t.Errorf("no cpu line: err = %v", err)
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add(readFixture(f, "host/proc/stat"))
	f.Add(readFixture(f, "bookworm/proc/stat"))
	f.Add([]byte("cpu 1 2 3 4\ncpu99999999999999999999 1 2 3 4\ncpu-1 1 2 3 4\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, _ := ParseStat(bytes.NewReader(b))
		for _, c := range s.CPUs {
			if c.CPU < 0 {
				t.Fatalf("negative CPU id %d", c.CPU)
			}
		}
	})
}

func genStat(ncpu int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "cpu  %d 0 %d %d 10 0 %d 0 0 0\n", ncpu*100, ncpu*50, ncpu*1000, ncpu*7)
	for c := 0; c < ncpu; c++ {
		fmt.Fprintf(&b, "cpu%d 100 0 50 1000 10 0 7 0 0 0\n", c)
	}
	b.WriteString("intr 1 2 3\nctxt 5\nbtime 1\nprocesses 3\nprocs_running 1\nprocs_blocked 0\nsoftirq 1 2 3\n")
	return []byte(b.String())
}

func BenchmarkParseStat(b *testing.B) {
	data := genStat(256)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseStat(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
