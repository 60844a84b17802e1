package nic

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string][]int{
		"0-1\n":       {0, 1}, // lab guests' local_cpulist and node0/cpulist
		"0-3,8-11":    {0, 1, 2, 3, 8, 9, 10, 11},
		"5":           {5},
		"3,1,2":       {1, 2, 3},
		"0-2,1-3":     {0, 1, 2, 3},
		"":            nil,
		"\n":          nil,
		"24-27,72-75": {24, 25, 26, 27, 72, 73, 74, 75},
	} {
		got, err := ParseCPUList(in)
		if err != nil {
			t.Fatalf("ParseCPUList(%q): %v", in, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("ParseCPUList(%q) (-want +got):\n%s", in, d)
		}
	}
	for _, in := range []string{"a", "1-", "-1", "3-1", "1,,2", "0-99999999"} {
		if _, err := ParseCPUList(in); !errors.Is(err, ErrParse) {
			t.Errorf("ParseCPUList(%q) error = %v", in, err)
		}
	}
}

func TestFormatCPUList(t *testing.T) {
	for want, in := range map[string][]int{"0-3,8-11": {8, 9, 10, 11, 0, 1, 2, 3}, "5": {5}, "1,3,5": {5, 3, 1, 3}, "": nil} {
		if got := FormatCPUList(in); got != want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-1\n", "0-3,8-11", "", "1,", "7-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(cpus) {
			t.Fatalf("%q: unsorted %v", s, cpus)
		}
		back, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !slices.Equal(back, cpus) {
			t.Fatalf("%q: round trip %v -> %q -> %v, %v", s, cpus, FormatCPUList(cpus), back, err)
		}
	})
}

func BenchmarkParseCPUList(b *testing.B) {
	in := "0-23,48-71\n"
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ParseCPUList(in); err != nil {
			b.Fatal(err)
		}
	}
}
