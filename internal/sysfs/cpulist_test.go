package sysfs

import (
	"errors"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"testing/quick"

	"github.com/google/go-cmp/cmp"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want CPUList
	}{
		{"", CPUList{}},
		{"\n", CPUList{}},
		{"0", CPUList{0}},
		{"0-3\n", CPUList{0, 1, 2, 3}},
		{"0-3,8,10-11", CPUList{0, 1, 2, 3, 8, 10, 11}},
		{"24-47,72-95", append(seq(24, 47), seq(72, 95)...)},
		{"8,0-1,1", CPUList{0, 1, 8}},
		{"0-7:2", CPUList{0, 2, 4, 6}},
		{" 5 , 3 ", CPUList{3, 5}},
	}
	for _, tt := range tests {
		got, err := ParseCPUList(tt.in)
		if err != nil {
			t.Errorf("ParseCPUList(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseCPUList(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseCPUListErrors(t *testing.T) {
	for _, in := range []string{"a", "1-", "-1", "3-1", "0,,1", "0-3:0", "70000", "0-99999999999", "1:2:3"} {
		if got, err := ParseCPUList(in); !errors.Is(err, ErrParse) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want ErrParse", in, got, err)
		}
	}
}

func TestCPUListString(t *testing.T) {
	tests := []struct {
		in   CPUList
		want string
	}{
		{nil, ""},
		{CPUList{0}, "0"},
		{CPUList{0, 1}, "0-1"},
		{CPUList{0, 1, 2, 3, 8, 10, 11}, "0-3,8,10-11"},
		{CPUList{1, 3, 5}, "1,3,5"},
		{append(seq(24, 47), seq(72, 95)...), "24-47,72-95"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("%v.String() = %q, want %q", []int(tt.in), got, tt.want)
		}
	}
}

func TestCPUListSetOps(t *testing.T) {
	a, b := CPUList{0, 1, 2, 3}, CPUList{2, 3, 4}
	if diff := cmp.Diff(CPUList{2, 3}, a.Intersect(b)); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff(CPUList{0, 1}, a.Without(b)); diff != "" {
		t.Error(diff)
	}
	if !a.Contains(3) || a.Contains(4) || !a.Equal(CPUList{0, 1, 2, 3}) {
		t.Error("Contains/Equal wrong")
	}
	if diff := cmp.Diff(CPUList{0, 2, 5}, NewCPUList(5, 0, 2, 2, -1)); diff != "" {
		t.Error(diff)
	}
}

func TestParseCPUMask(t *testing.T) {
	tests := []struct {
		in   string
		want CPUList
	}{
		{"1\n", CPUList{0}},
		{"f", CPUList{0, 1, 2, 3}},
		{"00000000,00000100", CPUList{8}},
		{"ff,ffffffff", seq(0, 39)},
		{"0", CPUList{}},
	}
	for _, tt := range tests {
		got, err := ParseCPUMask(tt.in)
		if err != nil {
			t.Errorf("ParseCPUMask(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseCPUMask(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, in := range []string{"", "xyz", ","} {
		if _, err := ParseCPUMask(in); !errors.Is(err, ErrParse) {
			t.Errorf("ParseCPUMask(%q) err = %v, want ErrParse", in, err)
		}
	}
}

// cpuSet is a random CPU set for testing/quick: sorted, unique ids below
// 1024, with runs so that ranges occur.
type cpuSet CPUList

func (cpuSet) Generate(r *rand.Rand, size int) reflect.Value {
	var s []int
	c := r.Intn(8)
	for n := r.Intn(size + 1); n > 0 && c < 1024; n-- {
		run := 1 + r.Intn(6)
		for k := 0; k < run && c < 1024; k++ {
			s = append(s, c)
			c++
		}
		c += 1 + r.Intn(5)
	}
	return reflect.ValueOf(cpuSet(s))
}

// TestCPUListRoundTrip: any set formats to a list that parses back to
// itself, and formatting is canonical (parse then format is the identity
// on formatted strings).
func TestCPUListRoundTrip(t *testing.T) {
	f := func(s cpuSet) bool {
		l := CPUList(s)
		str := l.String()
		back, err := ParseCPUList(str)
		if err != nil {
			t.Logf("%q: %v", str, err)
			return false
		}
		if len(l) == 0 {
			return len(back) == 0
		}
		return slices.Equal(l, back) && back.String() == str
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
}

// TestCPUMaskMatchesList: a set written as a hex mask parses to the same
// set as its list form.
func TestCPUMaskMatchesList(t *testing.T) {
	f := func(s cpuSet) bool {
		l := CPUList(s)
		got, err := ParseCPUMask(toMask(l))
		return err == nil && slices.Equal(got, NewCPUList(l...))
	}
	if err := quick.Check(f, nil); err != nil {
		t.Error(err)
	}
}

// toMask formats a set as the kernel's comma-separated 32-bit hex words.
func toMask(l CPUList) string {
	max := 0
	for _, c := range l {
		max = c
	}
	words := make([]uint32, max/32+1)
	for _, c := range l {
		words[c/32] |= 1 << (c % 32)
	}
	s := ""
	for i := len(words) - 1; i >= 0; i-- {
		if s != "" {
			s += ","
		}
		s += hex8(words[i])
	}
	return s
}

func hex8(v uint32) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b)
}

func seq(a, z int) CPUList {
	var out CPUList
	for c := a; c <= z; c++ {
		out = append(out, c)
	}
	return out
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"", "0", "0-3,8,10-11", "24-47,72-95", "0-7:2", "3-1", "a,b", "0-65535", "1,,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseCPUList(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != len(l) {
			t.Fatalf("ParseCPUList(%q) = %v: not sorted and unique", s, l)
		}
		back, err := ParseCPUList(l.String())
		if err != nil || !slices.Equal(back, l) {
			t.Fatalf("round trip of %q: %v -> %q -> %v, %v", s, l, l.String(), back, err)
		}
	})
}

func FuzzParseCPUMask(f *testing.F) {
	for _, s := range []string{"1", "ff,ffffffff", "00000000,00000100", "", "zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseCPUMask(s)
		if err == nil && !slices.IsSorted(l) {
			t.Fatalf("ParseCPUMask(%q) = %v: not sorted", s, l)
		}
	})
}

func BenchmarkParseCPUList(b *testing.B) {
	s := "0-23,48-71,96,98,100-127,200-255"
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := ParseCPUList(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCPUListString(b *testing.B) {
	l := append(seq(0, 23), seq(48, 71)...)
	b.SetBytes(int64(len(l.String())))
	for b.Loop() {
		_ = l.String()
	}
}
