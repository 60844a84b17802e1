package tune

import (
	"os"
	"strings"
	"testing"
)

// A real line (testdata/README.md), the same with a command name holding
// ") (" and blanks, as a zombie, and cut.
func TestParseProcStat(t *testing.T) {
	b, err := os.ReadFile("testdata/proc-pid-stat.txt")
	if err != nil {
		t.Fatal(err)
	}
	real := string(b)
	odd := strings.Replace(real, "(sh)", "(a) (b c)", 1)
	for _, c := range []struct {
		in     string
		start  uint64
		zombie bool
		ok     bool
	}{
		{real, 398012, false, true},
		{odd, 398012, false, true},
		{strings.Replace(odd, ") S ", ") Z ", 1), 398012, true, true},
		{real[:strings.Index(real, " 398012")], 0, false, false},
		{strings.Replace(real, " 398012 ", " -5 ", 1), 0, false, false},
		{strings.ReplaceAll(real, ")", ""), 0, false, false},
		{"", 0, false, false},
	} {
		start, zombie, err := parseProcStat([]byte(c.in))
		if (err == nil) != c.ok || start != c.start || zombie != c.zombie {
			t.Errorf("parseProcStat(%q) = %d, %v, %v", c.in, start, zombie, err)
		}
	}
	// This process: running, with a start time.
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		if start, zombie, err := parseProcStat(b); err != nil || start == 0 || zombie {
			t.Errorf("own stat: %d %v %v", start, zombie, err)
		}
	}
}

func FuzzParseProcStat(f *testing.F) {
	if b, err := os.ReadFile("testdata/proc-pid-stat.txt"); err == nil {
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("7 (a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		start, zombie, err := parseProcStat(b)
		if err != nil && (start != 0 || zombie) {
			t.Errorf("error %v with values %d %v", err, start, zombie)
		}
	})
}
