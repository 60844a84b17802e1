package irq

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// CPUTicks is one "cpu" line of /proc/stat: time spent in each state since
// boot, in USER_HZ ticks (1/100 s on Linux). User includes Guest and Nice
// includes GuestNice, as in the kernel.
type CPUTicks struct {
	CPU       int // -1 for the "cpu" line that sums all CPUs
	User      uint64
	Nice      uint64
	System    uint64
	Idle      uint64
	IOWait    uint64
	IRQ       uint64
	SoftIRQ   uint64
	Steal     uint64
	Guest     uint64
	GuestNice uint64
}

// Stat is the CPU part of /proc/stat.
type Stat struct {
	Total CPUTicks   // the "cpu" line
	CPUs  []CPUTicks // the "cpuN" lines, in file order (online CPUs)
}

// CPU returns the ticks of CPU cpu.
func (s Stat) CPU(cpu int) (CPUTicks, bool) {
	for _, c := range s.CPUs {
		if c.CPU == cpu {
			return c, true
		}
	}
	return CPUTicks{}, false
}

// Stat reads and parses the CPU lines of /proc/stat.
//
// Similar to: grep ^cpu /proc/stat
func (fs Root) Stat() (Stat, error) {
	b, err := fs.readFile(fs.procPath("stat"))
	if err != nil {
		return Stat{}, err
	}
	return parseStat(b, "/proc/stat")
}

// ParseStat parses the "cpu" lines of /proc/stat and ignores the others.
// Kernels before 2.6.33 print fewer than ten columns; the missing ones are
// 0. Lines that cannot be parsed are skipped and reported in the returned
// error; the others are kept.
//
// Not prometheus/procfs's Stat (checked against v0.23.0), which is right
// on a live file but fails the whole file on one bad intr or softirq
// line: this one keeps the cpu lines whatever the others hold, and reads
// pasted outputs with "..." for columns left out.
func ParseStat(r io.Reader) (Stat, error) {
	b, err := io.ReadAll(io.LimitReader(r, sysfs.MaxFileBytes))
	if err != nil {
		return Stat{}, err
	}
	return parseStat(b, "")
}

func parseStat(b []byte, file string) (Stat, error) {
	var s Stat
	var errs []error
	seen := false
	for n, line := range lines(b) {
		if !strings.HasPrefix(line, "cpu") {
			continue
		}
		toks, _ := fields(line)
		if len(toks) < 5 {
			errs = append(errs, newParseError(file, n+1, line, "fewer than 4 values"))
			continue
		}
		t := CPUTicks{CPU: -1}
		if id := strings.TrimPrefix(toks[0], "cpu"); id != "" {
			c, err := strconv.Atoi(id)
			if err != nil || c < 0 {
				errs = append(errs, newParseError(file, n+1, line, "bad cpu id"))
				continue
			}
			t.CPU = c
		}
		dst := []*uint64{&t.User, &t.Nice, &t.System, &t.Idle, &t.IOWait, &t.IRQ, &t.SoftIRQ, &t.Steal, &t.Guest, &t.GuestNice}
		ok := true
		for k, tok := range toks[1:] {
			if k == len(dst) {
				break
			}
			v, err := strconv.ParseUint(tok, 10, 64)
			if err != nil {
				errs = append(errs, newParseError(file, n+1, line, "bad value "+strconv.Quote(tok)))
				ok = false
				break
			}
			*dst[k] = v
		}
		if !ok {
			continue
		}
		if t.CPU < 0 {
			s.Total, seen = t, true
		} else {
			s.CPUs = append(s.CPUs, t)
		}
	}
	if !seen && len(errs) == 0 {
		errs = append(errs, newParseError(file, 1, "", `no "cpu" line`))
	}
	return s, errors.Join(errs...)
}
