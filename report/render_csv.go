package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"
)

// WriteRoundsCSV writes rounds in long form for spreadsheets, one row per
// value: round, start, parameters (as "k=v k=v"), metric, labels, unit,
// better, repeat, value.
//
// Similar to: the results spreadsheet of a tuning runbook.
func WriteRoundsCSV(w io.Writer, rounds []Round) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"round", "start", "params", "metric", "labels", "unit", "better", "repeat", "value"})
	for _, r := range rounds {
		for _, m := range r.Metrics {
			for i, v := range m.Values {
				cw.Write([]string{r.Name, r.Start.UTC().Format(time.RFC3339), labelString(r.Params), m.Name,
					labelString(m.Labels), m.Unit, m.Better.String(), strconv.Itoa(i), full(v)})
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: csv: %w", err)
	}
	return nil
}

// WriteComparisonCSV writes a comparison, one row per metric: metric,
// labels, unit, better, baseline n, median, CI low and high, the same for
// the candidate, delta in percent, p-value, verdict and samples needed.
// Values that do not exist (a CI of too small a sample) are empty.
func WriteComparisonCSV(w io.Writer, c Comparison) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"baseline", "candidate", "metric", "labels", "unit", "better",
		"base_n", "base_median", "base_ci_lo", "base_ci_hi",
		"cand_n", "cand_median", "cand_ci_lo", "cand_ci_hi",
		"delta_pct", "p", "verdict", "need_samples"})
	for _, m := range c.Metrics {
		cw.Write([]string{c.Baseline, c.Candidate, m.Name, labelString(m.Labels), m.Unit, m.Better.String(),
			strconv.Itoa(m.Baseline.N), full(m.Baseline.Median), full(m.Baseline.Lo), full(m.Baseline.Hi),
			strconv.Itoa(m.Candidate.N), full(m.Candidate.Median), full(m.Candidate.Lo), full(m.Candidate.Hi),
			full(m.DeltaPct), full(m.P), string(m.Verdict), strconv.Itoa(m.NeedSamples)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: csv: %w", err)
	}
	return nil
}
