package sysfs

import (
	"fmt"
	mathbits "math/bits"
	"slices"
	"strconv"
	"strings"
)

// MaxCPUID bounds the CPU ids a CPU list may name, so that a garbled range
// such as "0-4294967295" cannot allocate gigabytes. Linux's NR_CPUS is at
// most 8192 today.
const MaxCPUID = 1 << 16

// CPUList is a set of CPU ids, ascending and without duplicates, as the
// kernel prints it in cpulist files ("0-3,8,10-11"). Its String method
// gives that form back. The zero value is the empty set.
type CPUList []int

// ParseCPUList parses the kernel's list format: comma-separated ids and
// inclusive ranges, optionally with a stride ("0-7:2" as in
// Documentation/admin-guide/kernel-parameters.rst). Surrounding space and a
// trailing newline are allowed; an empty string is the empty list. The
// result is sorted and has no duplicates.
func ParseCPUList(s string) (CPUList, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return CPUList{}, nil
	}
	// A bitset keeps repeated or overlapping ranges from growing the
	// result: at most MaxCPUID bits whatever the input.
	var bits []uint64
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%w: cpu list %q: empty element", ErrParse, s)
		}
		stride := 1
		if r, st, ok := strings.Cut(part, ":"); ok {
			n, err := strconv.Atoi(st)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%w: cpu list %q: bad stride %q", ErrParse, s, st)
			}
			part, stride = r, n
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := parseCPUID(lo)
		if err != nil {
			return nil, fmt.Errorf("%w: cpu list %q: %v", ErrParse, s, err)
		}
		b := a
		if isRange {
			if b, err = parseCPUID(hi); err != nil {
				return nil, fmt.Errorf("%w: cpu list %q: %v", ErrParse, s, err)
			}
			if b < a {
				return nil, fmt.Errorf("%w: cpu list %q: range %s goes down", ErrParse, s, part)
			}
		}
		if need := b/64 + 1; need > len(bits) {
			bits = append(bits, make([]uint64, need-len(bits))...)
		}
		for c := a; c <= b; c += stride {
			if stride == 1 && c%64 == 0 && c+63 <= b {
				bits[c/64] = ^uint64(0)
				c += 63
				continue
			}
			bits[c/64] |= 1 << (c % 64)
		}
	}
	out := CPUList{}
	for w, v := range bits {
		for ; v != 0; v &= v - 1 {
			out = append(out, w*64+mathbits.TrailingZeros64(v))
		}
	}
	return out, nil
}

func parseCPUID(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad cpu id %q", s)
	}
	if n >= MaxCPUID {
		return 0, fmt.Errorf("cpu id %d above %d", n, MaxCPUID-1)
	}
	return n, nil
}

// NewCPUList returns the given CPU ids as a CPUList: sorted, without
// duplicates and without negative ids.
func NewCPUList(cpus ...int) CPUList {
	out := make(CPUList, 0, len(cpus))
	for _, c := range cpus {
		if c >= 0 {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// String formats the list as the kernel does: "0-3,8,10-11", with ranges for
// runs of two or more consecutive ids ("4-5"), and "" for the empty list. It
// assumes the list is sorted and unique, as ParseCPUList and NewCPUList
// make it.
func (l CPUList) String() string {
	var b strings.Builder
	for i := 0; i < len(l); {
		j := i
		for j+1 < len(l) && l[j+1] == l[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(l[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(l[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Contains reports whether cpu is in the list.
func (l CPUList) Contains(cpu int) bool {
	_, ok := slices.BinarySearch(l, cpu)
	return ok
}

// Equal reports whether both lists hold the same CPUs.
func (l CPUList) Equal(o CPUList) bool { return slices.Equal(l, o) }

// Intersect returns the CPUs that are in both lists.
func (l CPUList) Intersect(o CPUList) CPUList {
	out := CPUList{}
	for _, c := range l {
		if o.Contains(c) {
			out = append(out, c)
		}
	}
	return out
}

// Without returns the CPUs of l that are not in o.
func (l CPUList) Without(o CPUList) CPUList {
	out := CPUList{}
	for _, c := range l {
		if !o.Contains(c) {
			out = append(out, c)
		}
	}
	return out
}

// ParseCPUMask parses the kernel's hexadecimal mask format
// ("ff,ffffffff" as in /proc/irq/N/smp_affinity), where bit n is CPU n and
// commas separate 32-bit words.
func ParseCPUMask(s string) (CPUList, error) {
	s = strings.TrimSpace(s)
	hex := strings.ReplaceAll(s, ",", "")
	if hex == "" {
		return nil, fmt.Errorf("%w: cpu mask %q: empty", ErrParse, s)
	}
	if len(hex)*4 > MaxCPUID {
		return nil, fmt.Errorf("%w: cpu mask %q: longer than %d bits", ErrParse, s, MaxCPUID)
	}
	out := CPUList{}
	for i := len(hex) - 1; i >= 0; i-- {
		v, err := strconv.ParseUint(hex[i:i+1], 16, 8)
		if err != nil {
			return nil, fmt.Errorf("%w: cpu mask %q: bad digit %q", ErrParse, s, hex[i])
		}
		base := (len(hex) - 1 - i) * 4
		for bit := 0; bit < 4; bit++ {
			if v&(1<<bit) != 0 {
				out = append(out, base+bit)
			}
		}
	}
	return out, nil
}
