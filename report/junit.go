package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rocekit/rocekit/report/junit"
)

// GateJUnit is Gate as a JUnit test suite: a test case per gated metric
// of the comparison, failing with the regression's numbers when it got
// worse than allowed. An unknown metric name (a typo) is the error Gate
// gives, not a passing suite.
//
// Similar to: a CI step that fails on benchstat's output
func GateJUnit(c Comparison, opt GateOptions) (junit.Suite, error) {
	s := junit.Suite{Name: fmt.Sprintf("gate %s against %s", c.Candidate, c.Baseline)}
	err := Gate(c, opt)
	var re *RegressionError
	if err != nil && !errors.As(err, &re) {
		return s, err
	}
	failed := map[string]Regression{}
	if re != nil {
		for _, r := range re.Regressions {
			failed[r.Key] = r
		}
	}
	for _, m := range c.Metrics {
		if m.Better == BetterUnknown || (opt.Metrics != nil && !slices.Contains(opt.Metrics, m.Name)) {
			continue
		}
		tc := junit.Case{Name: m.Key, Class: "rocekit.gate"}
		if r, bad := failed[m.Key]; bad {
			tc.Failure = &junit.Failure{Type: "regression",
				Message: fmt.Sprintf("%s: %.4g → %.4g %s, %.1f %% worse (allowed %g %%)", r.Key, r.Baseline, r.Candidate, r.Unit, r.WorsePct, r.TolerancePct),
				Text:    fmt.Sprintf("verdict %s; baseline %s, candidate %s", r.Verdict, c.Baseline, c.Candidate)}
		} else {
			tc.Output = fmt.Sprintf("%s: %.4g → %.4g %s (%s)", m.Key, m.Baseline.Median, m.Candidate.Median, m.Unit, m.Verdict)
		}
		s.Cases = append(s.Cases, tc)
	}
	return s, nil
}

// FindingsJUnit is a workflow's findings as a JUnit test suite: a test
// case per finding, failing for a warning or a critical one with its
// evidence and action, passing (its summary in the output) for info.
func FindingsJUnit(workflow string, fs []Finding) junit.Suite {
	s := junit.Suite{Name: "findings " + workflow}
	for i, f := range fs {
		tc := junit.Case{Name: fmt.Sprintf("%s #%d", f.Rule, i+1), Class: "rocekit." + workflow}
		if f.Severity == SeverityInfo {
			tc.Output = f.Summary
		} else {
			var ev []string
			for _, e := range f.Evidence {
				ev = append(ev, fmt.Sprintf("%s = %g %s", e.Name, e.Value, e.Unit))
			}
			tc.Failure = &junit.Failure{Type: string(f.Severity) + " " + f.Rule, Message: f.Summary,
				Text: strings.Join(append(ev, "action: "+f.Action), "\n")}
		}
		s.Cases = append(s.Cases, tc)
	}
	return s
}
