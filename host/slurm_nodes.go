package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// MaxHostlistHosts bounds what ParseHostlist expands one list to, so that
// "n[0-999999999]" is an error, not an exhausted memory.
const MaxHostlistHosts = 1 << 20

// HostlistError is a malformed Slurm host list: what, and at which byte.
// It wraps ErrParse.
type HostlistError struct {
	List   string
	Offset int
	Msg    string
}

// Error quotes the list and says where it is malformed.
func (e *HostlistError) Error() string {
	return fmt.Sprintf("host: Slurm host list %q at byte %d: %s", e.List, e.Offset, e.Msg)
}

// Unwrap returns ErrParse.
func (e *HostlistError) Unwrap() error { return ErrParse }

// ParseHostlist expands Slurm's compressed host list syntax, as
// SLURM_JOB_NODELIST holds it: names separated by commas, each with any
// number of bracketed ranges ("node[01-03,07],gpu5", "rack[0-1]_n[1-2]");
// a range's numbers are as wide as its lower bound ("[08-10]" is 08 09
// 10). Several brackets expand as their product, the first varying
// slowest, as scontrol does. On a malformed item it returns the hosts of
// the items before it and a *HostlistError.
//
// Similar to: scontrol show hostnames LIST
func ParseHostlist(list string) ([]string, error) {
	var hosts []string
	start, depth := 0, 0
	for i := 0; i <= len(list); i++ {
		if i < len(list) {
			switch list[i] {
			case '[':
				depth++
				continue
			case ']':
				depth--
				continue
			}
			if list[i] != ',' || depth > 0 {
				continue
			}
		}
		item := strings.TrimSpace(list[start:i])
		if item != "" {
			expanded, err := expandItem(list, start, item, MaxHostlistHosts-len(hosts))
			if err != nil {
				return hosts, err
			}
			hosts = append(hosts, expanded...)
		}
		start = i + 1
	}
	return hosts, nil
}

// expandItem expands one comma-free item, at offset off of list.
func expandItem(list string, off int, item string, room int) ([]string, error) {
	fail := func(at int, msg string) error {
		return &HostlistError{List: list, Offset: off + at, Msg: msg}
	}
	out := []string{""}
	for i := 0; i < len(item); {
		j := strings.IndexAny(item[i:], "[]")
		if j < 0 {
			for k := range out {
				out[k] += item[i:]
			}
			break
		}
		j += i
		if item[j] == ']' {
			return nil, fail(j, "']' without '['")
		}
		prefix := item[i:j]
		end := strings.IndexAny(item[j+1:], "[]")
		if end < 0 || item[j+1+end] == '[' {
			return nil, fail(j, "'[' without ']'")
		}
		end += j + 1
		parts, err := expandRanges(item[j+1 : end])
		if err != nil {
			return nil, fail(j+1, err.Error())
		}
		if len(out)*len(parts) > room {
			return nil, fail(j, fmt.Sprintf("expands to more than %d hosts", MaxHostlistHosts))
		}
		next := make([]string, 0, len(out)*len(parts))
		for _, o := range out {
			for _, p := range parts {
				next = append(next, o+prefix+p)
			}
		}
		out = next
		i = end + 1
	}
	if len(out) == 1 && out[0] == "" {
		return nil, fail(0, "empty host name")
	}
	return out, nil
}

// expandRanges expands "01-03,07" to 01 02 03 07.
func expandRanges(s string) ([]string, error) {
	var out []string
	for _, r := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(r), "-")
		if !isRange {
			hi = lo
		}
		a, err1 := parseRangeNumber(lo)
		b, err2 := parseRangeNumber(hi)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		if b < a {
			return nil, fmt.Errorf("range %q runs backwards", r)
		}
		if b-a >= MaxHostlistHosts || len(out)+int(b-a+1) > MaxHostlistHosts {
			return nil, fmt.Errorf("range %q expands to more than %d hosts", r, MaxHostlistHosts)
		}
		for n := a; n <= b; n++ {
			out = append(out, fmt.Sprintf("%0*d", len(lo), n))
		}
	}
	return out, nil
}

func parseRangeNumber(s string) (uint64, error) {
	if s == "" || len(s) > 18 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return strconv.ParseUint(s, 10, 64)
}

// SlurmNodes lists the nodes of a Slurm host list, or of the caller's
// allocation (SLURM_JOB_NODELIST) when list is empty, in scontrol's
// order, by running scontrol on r (Local, normally: where the job's
// environment is); where scontrol is missing, with ParseHostlist. Outside
// an allocation, with no list given, it returns ErrNoAllocation.
//
// Similar to: scontrol show hostnames "$SLURM_JOB_NODELIST"
func SlurmNodes(ctx context.Context, r Runner, list string) ([]string, error) {
	if list == "" {
		list = os.Getenv("SLURM_JOB_NODELIST")
	}
	if strings.TrimSpace(list) == "" {
		return nil, ErrNoAllocation
	}
	p, err := Run(ctx, r, Cmd{Argv: []string{"scontrol", "show", "hostnames", list}})
	if errors.Is(err, ErrNotFound) {
		return ParseHostlist(list)
	}
	if err != nil {
		return nil, err
	}
	var nodes []string
	for _, l := range strings.Split(p.Stdout().String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			nodes = append(nodes, l)
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("host: scontrol show hostnames %q on %s printed no node", list, r)
	}
	return nodes, nil
}
