package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrUnknownName is matched by the *UnknownNameError of Gate and Query: a
// metric, round or parameter name asked for that nothing has, which would
// otherwise match nothing and pass (a typo in a CI gate).
var ErrUnknownName = errors.New("report: unknown name")

// UnknownNameError names what was asked for and not found, with the names
// there are. It matches ErrUnknownName.
type UnknownNameError struct {
	Kind  string   // "metric", "round" or "parameter"
	Names []string // the names nothing has, as asked
	Known []string // the names there are, sorted
}

// Error names each unknown name, the nearest known one when it is a likely
// typo, and the known names.
func (e *UnknownNameError) Error() string {
	var b strings.Builder
	b.WriteString("report: ")
	for i, n := range e.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "no %s named %q", e.Kind, n)
		if s := nearest(n, e.Known); s != "" {
			fmt.Fprintf(&b, " (did you mean %q?)", s)
		}
	}
	if len(e.Known) == 0 {
		fmt.Fprintf(&b, "; there is no %s at all", e.Kind)
	} else {
		fmt.Fprintf(&b, "; there are: %s", strings.Join(e.Known, ", "))
	}
	return b.String()
}

// Is matches ErrUnknownName.
func (e *UnknownNameError) Is(target error) bool { return target == ErrUnknownName }

// unknownNames returns the *UnknownNameError for the names of asked that
// are not in known, nil when every one is.
func unknownNames(kind string, asked []string, known map[string]bool) error {
	var missing []string
	for _, n := range asked {
		if !known[n] && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	slices.Sort(names)
	return &UnknownNameError{Kind: kind, Names: missing, Known: names}
}

// nearest is the known name closest to s by edit distance when it is
// close enough to be a typo (at most 2 edits, or a third of s), else "".
// known is sorted, so a tie goes to the first.
func nearest(s string, known []string) string {
	best, bestD := "", max(2, len(s)/3)+1
	for _, k := range known {
		if d := editDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
