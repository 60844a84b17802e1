package irq

import (
	"errors"
	"io"
	"strconv"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// SoftnetStat is one line of /proc/net/softnet_stat: the receive path's
// counters of one CPU since boot. The kernel prints them as 32-bit hex.
type SoftnetStat struct {
	// CPU is the CPU id: the kernel's own 13th column (newer kernels),
	// or the line's position for older kernels, which skip offline CPUs.
	CPU int
	// Processed counts packets taken off the backlog.
	Processed uint64
	// Dropped counts packets dropped because the backlog was full
	// (netdev_max_backlog).
	Dropped uint64
	// TimeSqueeze counts net_rx_action runs that stopped with work left
	// because the budget (netdev_budget, netdev_budget_usecs) ran out.
	TimeSqueeze uint64
	// ReceivedRPS counts IPIs received for RPS/RFS.
	ReceivedRPS uint64
	// FlowLimit counts packets dropped by the flow limit.
	FlowLimit uint64
	// Columns is the number of columns the kernel printed (10 to 15).
	Columns int
}

// Softnet reads and parses /proc/net/softnet_stat. Kernels before 5.10
// print no CPU id column and skip offline CPUs, so rows are mapped to CPUs
// through /sys/devices/system/cpu/online when the Root's /sys has it (see
// ParseSoftnetOnline).
//
// Similar to: cat /proc/net/softnet_stat
func (fs Root) Softnet() ([]SoftnetStat, error) {
	b, err := fs.readFile(fs.procPath("net", "softnet_stat"))
	if err != nil {
		return nil, err
	}
	online, _ := fs.OnlineCPUs()
	return parseSoftnet(b, "/proc/net/softnet_stat", online)
}

// ParseSoftnet parses the format of /proc/net/softnet_stat: a line per
// online CPU of hex columns processed, dropped, time_squeeze, five zeros,
// cpu_collision, received_rps, flow_limit_count and, in newer kernels,
// backlog length, CPU id and input/process queue lengths. Without the CPU
// id column a row's CPU is its position, which is wrong when a CPU below
// it is offline: use ParseSoftnetOnline then. Lines that cannot be parsed
// are skipped and reported in the returned error; the others are kept.
//
// Not prometheus/procfs's NetSoftnetStat: without the CPU id column (before
// 5.10) it gives a row's position, and an offline CPU shifts the rest.
func ParseSoftnet(r io.Reader) ([]SoftnetStat, error) {
	return ParseSoftnetOnline(r, nil)
}

// ParseSoftnetOnline is ParseSoftnet for a machine whose online CPUs are
// online (/sys/devices/system/cpu/online when the file was read): the
// kernel prints a row per online CPU in order, so the k-th row without a
// CPU id column is CPU online[k]. A row's own CPU id column (kernel 5.10
// and later, RHEL 8.5) wins. With more rows than online CPUs, the extra
// rows fall back to their position and the error says so.
//
// Similar to: cat /proc/net/softnet_stat /sys/devices/system/cpu/online
func ParseSoftnetOnline(r io.Reader, online []int) ([]SoftnetStat, error) {
	b, err := io.ReadAll(io.LimitReader(r, sysfs.MaxFileBytes))
	if err != nil {
		return nil, err
	}
	return parseSoftnet(b, "", online)
}

func parseSoftnet(b []byte, file string, online []int) ([]SoftnetStat, error) {
	var out []SoftnetStat
	var errs []error
	row := 0
	for n, line := range lines(b) {
		toks, _ := fields(line)
		if len(toks) == 0 {
			continue
		}
		// Every line is a CPU, even one that does not parse.
		row++
		if len(toks) < 3 {
			errs = append(errs, newParseError(file, n+1, line, "fewer than 3 columns"))
			continue
		}
		v := make([]uint64, len(toks))
		bad := false
		for k, t := range toks {
			x, err := strconv.ParseUint(t, 16, 64)
			if err != nil {
				errs = append(errs, newParseError(file, n+1, line, "bad hex value "+strconv.Quote(t)))
				bad = true
				break
			}
			v[k] = x
		}
		if bad {
			continue
		}
		s := SoftnetStat{CPU: row - 1, Processed: v[0], Dropped: v[1], TimeSqueeze: v[2], Columns: len(v)}
		switch {
		case row-1 < len(online) && online[row-1] >= 0 && online[row-1] < sysfs.MaxCPUID:
			s.CPU = online[row-1]
		case len(online) > 0 && len(v) <= 12:
			errs = append(errs, newParseError(file, n+1, line, "more rows than online CPUs"))
		}
		if len(v) > 9 {
			s.ReceivedRPS = v[9]
		}
		if len(v) > 10 {
			s.FlowLimit = v[10]
		}
		if len(v) > 12 && v[12] < sysfs.MaxCPUID {
			s.CPU = int(v[12])
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}
