package fleet

import (
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/internal/didyoumean"
)

// ParseSchedule reads a schedule of the hosts named names as a command
// line gives it: "all" (AllPairs), "ring" (Ring), or pairs of host names
// "a-b,b-c" (Pack, in that order; a name may hold dashes itself). The
// error wraps ErrInvalidSchedule, and a misspelt "all" or "ring" says
// which was meant.
func ParseSchedule(spec string, names []string, perHost int) (Schedule, error) {
	switch spec {
	case "all":
		return AllPairs(len(names), perHost)
	case "ring":
		return Ring(len(names), perHost)
	}
	idx := map[string]int{}
	for i, n := range names {
		idx[n] = i
	}
	var pairs []Pair
	for _, p := range strings.Split(spec, ",") {
		ia, ib, ok := splitPair(p, idx)
		if !ok {
			return Schedule{}, fmt.Errorf("%w: %q: %q is not HOST-HOST of the host names%s", ErrInvalidSchedule, spec, p,
				didyoumean.Suffix(spec, []string{"all", "ring"}))
		}
		pairs = append(pairs, Pair{A: ia, B: ib})
	}
	return Pack(len(names), pairs, perHost)
}

// splitPair splits "a-b" at the dash that leaves two host names (names
// may hold dashes themselves).
func splitPair(p string, idx map[string]int) (int, int, bool) {
	for i := range p {
		if p[i] != '-' {
			continue
		}
		ia, okA := idx[p[:i]]
		ib, okB := idx[p[i+1:]]
		if okA && okB {
			return ia, ib, true
		}
	}
	return 0, 0, false
}
