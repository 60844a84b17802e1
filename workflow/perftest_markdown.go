package workflow

import (
	"fmt"
	"io"

	"github.com/rocekit/rocekit/report"
)

// WritePerftestMarkdown writes a step's part of a report: the round
// against the store's previous round of its name (the changed parameters
// named) or, without one, the round as the first of its name; then its
// findings. A step with no round (every run failed) says so, with the
// failure's findings.
func WritePerftestMarkdown(w io.Writer, res *PerftestResult) error {
	if res == nil {
		return nil
	}
	var err error
	switch {
	case !res.Measured:
		if len(res.Findings) == 0 {
			return nil // skipped (Skip)
		}
		_, err = fmt.Fprintf(w, "## %s: every run failed\n\n", res.Round.Name)
	case res.Comparison != nil:
		if _, err = fmt.Fprintf(w, "## %s against the previous round\n\n", res.Round.Name); err == nil {
			err = report.WriteComparisonMarkdown(w, *res.Comparison)
		}
	default:
		if _, err = fmt.Fprintf(w, "## %s (first round: the baseline)\n\n", res.Round.Name); err == nil {
			err = report.WriteRoundMarkdown(w, res.Round)
		}
	}
	if err != nil {
		return err
	}
	if err := report.WriteFindingsMarkdown(w, res.Findings); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w)
	return err
}
