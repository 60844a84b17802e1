package nic

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseCPUList parses a kernel CPU list such as local_cpulist or a NUMA
// node's cpulist ("0-3,8-11", "" for none) into sorted CPU ids.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%w: CPU list %q: bad CPU %q", ErrParse, s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("%w: CPU list %q: bad range %q", ErrParse, s, part)
			}
			if b-a > 1<<16 {
				return nil, fmt.Errorf("%w: CPU list %q: range %q too long", ErrParse, s, part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// FormatCPUList formats CPU ids the way the kernel does ("0-3,8-11").
func FormatCPUList(cpus []int) string {
	c := slices.Clone(cpus)
	slices.Sort(c)
	c = slices.Compact(c)
	var parts []string
	for i := 0; i < len(c); {
		j := i
		for j+1 < len(c) && c[j+1] == c[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(c[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", c[i], c[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
