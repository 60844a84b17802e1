package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseList reads a flag's comma-separated integers ("-mtus
// 1500,4200,9000", "-qps 1,2,4,8"), each within [lo, hi] and given once,
// and returns them sorted. name is the flag, for errors (which match
// ErrBadFlag).
func ParseList(name, s string, lo, hi int) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, Usage(fmt.Sprintf("-%s %q: empty entry", name, s))
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, Usage(fmt.Sprintf("-%s %q: %q is not a number", name, s, f))
		}
		if n < lo || n > hi {
			return nil, Usage(fmt.Sprintf("-%s %q: %d is outside %d–%d", name, s, n, lo, hi))
		}
		if slices.Contains(out, n) {
			return nil, Usage(fmt.Sprintf("-%s %q: %d twice", name, s, n))
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// SplitList reads a flag's comma-separated names ("-netdevs eth0, eth1"),
// without spaces or empty entries.
func SplitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
