package report

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// ErrRegression is matched by the *RegressionError Gate returns.
var ErrRegression = errors.New("report: regression against the baseline")

// ErrNoDirection is matched by Gate's error for a metric named in
// GateOptions.Metrics that has no better direction: it can never be
// gated, so gating it would pass whatever it did.
var ErrNoDirection = errors.New("report: metric has no better direction")

// GateOptions say how much worse a metric may get before Gate fails. The
// zero value allows 5% on every metric with a better direction and fails
// on the median's move alone.
type GateOptions struct {
	// Tolerance is the change allowed in the worse direction, in percent
	// of the baseline's median, by metric name ("bw_avg": 3). Metrics not
	// named get DefaultTolerance (0 means 5).
	Tolerance        map[string]float64
	DefaultTolerance float64
	// Metrics limits the gate to these metric names; nil gates every
	// metric with a better direction.
	Metrics []string
	// Significant also requires the U test to call the change worse
	// (VerdictWorse): with few samples a gate on the median alone is
	// noisier but never silent.
	Significant bool
	// FailMissing fails on a gated metric the candidate lacks.
	FailMissing bool
}

// Regression is one metric that got worse than allowed.
type Regression struct {
	Key          string  `json:"key"`  // "bw_avg/size=65536"
	Unit         string  `json:"unit"` // the baseline's
	Baseline     float64 `json:"baseline"`
	Candidate    float64 `json:"candidate"`
	WorsePct     float64 `json:"worse_pct"`     // how much worse, in percent of the baseline
	TolerancePct float64 `json:"tolerance_pct"` // what was allowed
	Verdict      Verdict `json:"verdict"`
}

// RegressionError lists every regression of a comparison. It matches
// ErrRegression.
type RegressionError struct {
	Baseline, Candidate string
	Regressions         []Regression
}

// Error names each regression on a line of its own.
func (e *RegressionError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "report: %s regressed against %s on %d metric(s):", e.Candidate, e.Baseline, len(e.Regressions))
	for _, r := range e.Regressions {
		if math.IsNaN(r.Candidate) {
			fmt.Fprintf(&b, "\n  %s: missing from the candidate", r.Key)
			continue
		}
		fmt.Fprintf(&b, "\n  %s: %.4g -> %.4g %s, %.1f%% worse (allowed %g%%; %s)", r.Key, r.Baseline, r.Candidate, r.Unit, r.WorsePct, r.TolerancePct, r.Verdict)
	}
	return b.String()
}

// Is matches ErrRegression.
func (e *RegressionError) Is(target error) bool { return target == ErrRegression }

// Gate is a CI gate on a comparison: nil when no gated metric got worse
// than its tolerance, else a *RegressionError listing each one. Metrics
// without a better direction are never gated (naming one in opt.Metrics
// is an error matching ErrNoDirection). A name in opt.Metrics or
// opt.Tolerance that is no metric's name in either round is an
// *UnknownNameError (matching ErrUnknownName), before anything is judged:
// a typo must not gate nothing and pass.
//
// Similar to: k8s-netperf's baseline check; benchstat old.txt new.txt and a human reading it
func Gate(c Comparison, opt GateOptions) error {
	known := map[string]bool{}
	for _, m := range c.Metrics {
		known[m.Name] = true
	}
	asked := append(slices.Clone(opt.Metrics), slices.Sorted(maps.Keys(opt.Tolerance))...)
	if err := unknownNames("metric", asked, known); err != nil {
		return err
	}
	if err := undirected(c, opt.Metrics); err != nil {
		return err
	}
	def := opt.DefaultTolerance
	if def == 0 {
		def = 5
	}
	var regs []Regression
	for _, m := range c.Metrics {
		if m.Better == BetterUnknown || (opt.Metrics != nil && !contains(opt.Metrics, m.Name)) {
			continue
		}
		tol, ok := opt.Tolerance[m.Name]
		if !ok {
			tol = def
		}
		if m.Verdict == VerdictMissing {
			if opt.FailMissing && m.Candidate.N == 0 {
				regs = append(regs, Regression{Key: m.Key, Unit: m.Unit, Baseline: m.Baseline.Median, Candidate: math.NaN(), TolerancePct: tol, Verdict: m.Verdict})
			}
			continue
		}
		worse := m.DeltaPct
		if m.Better == HigherIsBetter {
			worse = -worse
		}
		if math.IsNaN(worse) || worse <= tol || (opt.Significant && m.Verdict != VerdictWorse) {
			continue
		}
		regs = append(regs, Regression{Key: m.Key, Unit: m.Unit, Baseline: m.Baseline.Median, Candidate: m.Candidate.Median,
			WorsePct: worse, TolerancePct: tol, Verdict: m.Verdict})
	}
	if len(regs) == 0 {
		return nil
	}
	return &RegressionError{Baseline: c.Baseline, Candidate: c.Candidate, Regressions: regs}
}

// undirected refuses names of metrics that have no better direction in
// any comparison.
func undirected(c Comparison, names []string) error {
	var bad []string
	for _, n := range names {
		directed := false
		for _, m := range c.Metrics {
			directed = directed || (m.Name == n && m.Better != BetterUnknown)
		}
		if !directed && !slices.Contains(bad, n) {
			bad = append(bad, n)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s (Gate judges only metrics where higher or lower is better)", ErrNoDirection, strings.Join(bad, ", "))
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
