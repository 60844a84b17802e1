package irq

import (
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// Softirqs is /proc/softirqs: how often each softirq ran on each CPU since
// boot. These are counts of runs, not time; the time spent is in
// /proc/stat (see Stat and CPULoad.SoftPct).
type Softirqs struct {
	// CPUs holds the CPU id of each column, from the header.
	CPUs []int
	// Counts maps a softirq name ("NET_RX", "NET_TX", "TIMER", ...) to
	// its counts, parallel to CPUs (shorter if the kernel printed fewer).
	Counts map[string][]uint64
}

// Count returns softirq name's count on CPU cpu, and 0 if there is none.
func (s Softirqs) Count(name string, cpu int) uint64 {
	row := s.Counts[name]
	for k, c := range s.CPUs {
		if c == cpu && k < len(row) {
			return row[k]
		}
	}
	return 0
}

// Softirqs reads and parses /proc/softirqs.
//
// Similar to: cat /proc/softirqs
func (fs FS) Softirqs() (Softirqs, error) {
	b, err := fs.readFile(fs.procPath("softirqs"))
	if err != nil {
		return Softirqs{}, err
	}
	return parseSoftirqs(b, "/proc/softirqs")
}

// ParseSoftirqs parses the format of /proc/softirqs. Lines that cannot be
// parsed are skipped and reported in the returned error; the others are
// kept.
//
// Not prometheus/procfs's Softirqs, which is right on a live file: this
// one keeps each column's CPU id, also across "..." in pasted outputs.
func ParseSoftirqs(r io.Reader) (Softirqs, error) {
	b, err := io.ReadAll(io.LimitReader(r, sysfs.MaxFileBytes))
	if err != nil {
		return Softirqs{}, err
	}
	return parseSoftirqs(b, "")
}

func parseSoftirqs(b []byte, file string) (Softirqs, error) {
	ls := lines(b)
	s := Softirqs{Counts: map[string][]uint64{}}
	if len(ls) == 0 {
		return s, newParseError(file, 1, "", "empty file")
	}
	cpus, ok := parseCPUHeader(ls[0])
	if !ok {
		return s, newParseError(file, 1, ls[0], `header is not "CPU0 CPU1 ..."`)
	}
	s.CPUs = cpus
	var errs []error
	for n, line := range ls[1:] {
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, rest, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			errs = append(errs, newParseError(file, n+2, line, "no name"))
			continue
		}
		toks, _ := fields(rest)
		toks = slices.DeleteFunc(toks, isElision)
		if len(toks) > len(cpus) {
			toks = toks[:len(cpus)]
		}
		row := make([]uint64, 0, len(toks))
		for _, t := range toks {
			c, err := strconv.ParseUint(t, 10, 64)
			if err != nil {
				errs = append(errs, newParseError(file, n+2, line, "bad count "+strconv.Quote(t)))
				break
			}
			row = append(row, c)
		}
		s.Counts[name] = row
	}
	return s, errors.Join(errs...)
}
