package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// Previous returns the latest stored round of the same name as r that
// started before it, whatever else changed (MTU, -n, QPs, the host): the
// baseline the runbooks' loop compares with ("change one parameter,
// rerun, compare"). false when the store has none (or does not exist).
//
// Similar to: the last row of the spreadsheet for this test
func (s *Store) Previous(r Round) (Round, bool, error) {
	all, _, err := s.Load()
	if errors.Is(err, fs.ErrNotExist) {
		return Round{}, false, nil
	}
	if err != nil {
		return Round{}, false, err
	}
	var prev Round
	found := false
	for _, c := range all {
		if c.Name == r.Name && c.Start.Before(r.Start) && (!found || !c.Start.Before(prev.Start)) {
			prev, found = c, true
		}
	}
	return prev, found, nil
}

// WriteAgainstPrevious writes, for each round, its comparison with the
// store's previous round of the same test (Previous), the parameters that
// changed named first; rounds without one are listed as the first of
// their name. Nothing is written for no rounds.
func WriteAgainstPrevious(w io.Writer, s *Store, rounds []Round) error {
	if len(rounds) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "## Against the previous run\n\n"); err != nil {
		return err
	}
	var first []string
	for _, r := range rounds {
		prev, ok, err := s.Previous(r)
		if err != nil {
			return err
		}
		if !ok {
			first = append(first, r.Name)
			continue
		}
		if err := WriteComparisonMarkdown(w, Compare(prev, r, CompareOptions{})); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if len(first) > 0 {
		_, err := fmt.Fprintf(w, "First of their name (the baseline for the next run): %s.\n\n", mdEscape(strings.Join(first, ", ")))
		return err
	}
	return nil
}
