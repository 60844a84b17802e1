// Package didyoumean finds the known name a mistyped one was meant to be:
// the one suggestion of report's unknown names, the peer agent's unknown
// operations and the examples' flag values.
//
// Similar to: git's "The most similar command is", go's "did you mean".
package didyoumean

import "strings"

// Nearest is the known name closest to s by edit distance when it is
// close enough to be a typo (at most 2 edits, or a third of s), else "".
// A tie goes to the first in known.
func Nearest(s string, known []string) string {
	best, bestD := "", max(2, len(s)/3)+1
	for _, k := range known {
		if d := Distance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Suffix is " (did you mean "NAME"?)" for the Nearest name, "" for none:
// what an error message appends.
func Suffix(s string, known []string) string {
	n := Nearest(s, known)
	if n == "" || n == s {
		return ""
	}
	var b strings.Builder
	b.WriteString(` (did you mean "`)
	b.WriteString(n)
	b.WriteString(`"?)`)
	return b.String()
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
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

// UnknownError is a name that is none of the known ones: a flag value
// (-rounds Q), an operation.
type UnknownError struct {
	What  string   // what the name names: "-rounds value", "operation"
	Name  string   // as given
	Known []string // the names there are, in the order to show them
}

// Error names the value, the likely meant one and the known ones:
// `unknown -rounds value "Q" (did you mean "S"?); known: A, S, B, C, V`.
func (e *UnknownError) Error() string {
	return "unknown " + e.What + ` "` + e.Name + `"` + Suffix(e.Name, e.Known) + "; known: " + strings.Join(e.Known, ", ")
}

// Check is nil when name is one of known, else an *UnknownError.
func Check(what, name string, known []string) error {
	for _, k := range known {
		if k == name {
			return nil
		}
	}
	return &UnknownError{What: what, Name: name, Known: append([]string(nil), known...)}
}
