package nic

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// netDevColumns names the columns of /proc/net/dev as the files in
// /sys/class/net/NAME/statistics are named, so the counters line up with
// Stats.Link.
var netDevColumns = []string{
	"rx_bytes", "rx_packets", "rx_errors", "rx_dropped", "rx_fifo_errors", "rx_frame_errors", "rx_compressed", "multicast",
	"tx_bytes", "tx_packets", "tx_errors", "tx_dropped", "tx_fifo_errors", "collisions", "tx_carrier_errors", "tx_compressed",
}

// ParseNetDev parses /proc/net/dev: netdev → counter (named like Stats.Link:
// rx_packets, rx_dropped, ...). A malformed line is an error naming its
// number; the netdevs before it are returned.
func ParseNetDev(r io.Reader) (map[string]map[string]uint64, error) {
	out := map[string]map[string]uint64{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n <= 2 || strings.TrimSpace(line) == "" {
			continue // the two header lines
		}
		name, rest, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return out, parseError("net/dev", n, line, fmt.Errorf("no \"name:\""))
		}
		f := strings.Fields(rest)
		if len(f) != len(netDevColumns) {
			return out, parseError("net/dev", n, line, fmt.Errorf("%d columns, want %d", len(f), len(netDevColumns)))
		}
		m := make(map[string]uint64, len(f))
		for i, v := range f {
			u, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return out, parseError("net/dev", n, line, err)
			}
			m[netDevColumns[i]] = u
		}
		out[name] = m
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%w: net/dev: %w", ErrParse, err)
	}
	return out, nil
}

// NetDev reads the kernel's counters of every netdev in the namespace the
// Root's /proc shows (/proc/net/dev).
//
// Similar to: cat /proc/net/dev; ip -s link
func (r Root) NetDev() (map[string]map[string]uint64, error) {
	f, err := r.fs().Open("proc/net/dev")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseNetDev(f)
}
