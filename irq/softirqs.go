package irq

import (
	"errors"
	"fmt"
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
func (fs Root) Softirqs() (Softirqs, error) {
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
	// A header with "..." for columns ("CPU0 CPU1 ... CPU39") over rows
	// that have every count: the rows say how many CPUs are elided.
	filled := filledCPUs(ls[0], cpus)
	type row struct {
		n      int
		name   string
		line   string
		counts []uint64
	}
	var rows []row
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
		counts := make([]uint64, 0, len(toks))
		for _, t := range toks {
			c, err := strconv.ParseUint(t, 10, 64)
			if err != nil {
				errs = append(errs, newParseError(file, n+2, line, "bad count "+strconv.Quote(t)))
				break
			}
			counts = append(counts, c)
		}
		rows = append(rows, row{n + 2, name, line, counts})
	}
	if filled != nil && slices.ContainsFunc(rows, func(r row) bool { return len(r.counts) == len(filled) }) {
		s.CPUs = filled
	}
	for _, r := range rows {
		switch {
		case len(r.counts) <= len(s.CPUs) && (len(s.CPUs) == len(cpus) || len(r.counts) != len(cpus)):
			// One count per column, or fewer (the kernel printed fewer).
		case filled != nil:
			// A count under the wrong CPU is worse than none: the row is
			// dropped.
			errs = append(errs, newParseError(file, r.n, r.line, fmt.Sprintf(
				"%d counts for a header of %d CPU columns with elided CPUs (%d with them): cannot tell which CPU each is",
				len(r.counts), len(cpus), len(filled))))
			continue
		default:
			errs = append(errs, newParseError(file, r.n, r.line, fmt.Sprintf("%d counts for %d CPU columns", len(r.counts), len(s.CPUs))))
			r.counts = r.counts[:len(s.CPUs)]
		}
		s.Counts[r.name] = r.counts
	}
	return s, errors.Join(errs...)
}

// filledCPUs returns the CPU ids of a header with one "..." in place of
// columns, the elided ids filled in ("CPU0 CPU1 ... CPU39" gives 0 to
// 39), or nil when the header elides nothing or the ids around the "..."
// leave no room.
func filledCPUs(header string, cpus []int) []int {
	toks, _ := fields(header)
	at := slices.IndexFunc(toks, isElision)
	if at <= 0 || at >= len(toks)-1 || slices.ContainsFunc(toks[at+1:], isElision) || at >= len(cpus) {
		return nil
	}
	lo, hi := cpus[at-1], cpus[at]
	if hi-lo < 2 || hi-lo > sysfs.MaxCPUID {
		return nil
	}
	out := append([]int(nil), cpus[:at]...)
	for id := lo + 1; id < hi; id++ {
		out = append(out, id)
	}
	return append(out, cpus[at:]...)
}
