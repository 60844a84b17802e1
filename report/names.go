package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rocekit/rocekit/internal/didyoumean"
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

// nearest is the known name closest to s when it is a likely typo
// (didyoumean.Nearest), else "".
func nearest(s string, known []string) string { return didyoumean.Nearest(s, known) }
