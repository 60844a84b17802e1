package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/rocekit/rocekit/internal/warnjson"
)

// Verdict is the judgement on one metric of a comparison.
type Verdict string

// The verdicts.
const (
	// VerdictBetter: the samples differ (Mann–Whitney U, p < alpha) and the
	// median moved in the metric's better direction.
	VerdictBetter Verdict = "better"
	// VerdictWorse: the samples differ and the median moved the other way.
	VerdictWorse Verdict = "worse"
	// VerdictChanged: the samples differ, but the metric has no better
	// direction.
	VerdictChanged Verdict = "changed"
	// VerdictNoChange: enough samples, and no significant difference.
	VerdictNoChange Verdict = "no significant change"
	// VerdictTooFewSamples: the U test cannot reach p < alpha with this
	// many samples, whatever they are; MetricComparison.NeedSamples says
	// how many per side it takes.
	VerdictTooFewSamples Verdict = "too few samples"
	// VerdictMissing: the metric is in only one of the rounds.
	VerdictMissing Verdict = "missing"
)

// Summary is a sample's median and its confidence interval.
type Summary struct {
	N      int     `json:"n"`      // number of values
	Median float64 `json:"median"` // the center benchstat prints
	// Lo and Hi bound the CI; they are ±Inf when the sample is too small
	// for one (benchmath needs 6 values for a 95% CI of the median).
	Lo float64 `json:"-"`
	Hi float64 `json:"-"` // upper bound of the CI
	// Confidence is the CI's actual level (≥ the level asked for).
	Confidence float64 `json:"confidence"`
	// Warnings are benchmath's: errors in Go, strings in JSON.
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// HasCI reports whether the interval is finite.
func (s Summary) HasCI() bool { return !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) }

// MetricComparison is one metric of a candidate round against the same
// metric of the baseline.
type MetricComparison struct {
	Key       string  `json:"key"`              // Metric.Key: "bw_avg/size=65536"
	Name      string  `json:"name"`             // Metric.Name
	Labels    []Param `json:"labels,omitempty"` // Metric.Labels
	Unit      string  `json:"unit"`             // the baseline's unit
	Better    Better  `json:"better"`           // the baseline's direction
	Baseline  Summary `json:"baseline"`         // the baseline's sample
	Candidate Summary `json:"candidate"`        // the candidate's sample
	// DeltaPct is the change of the median in percent of the baseline's
	// (NaN when the baseline median is 0).
	DeltaPct float64 `json:"delta_pct"`
	// P is the Mann–Whitney U test's p-value; Alpha the level it is
	// judged at.
	P     float64 `json:"p"`
	Alpha float64 `json:"alpha"` // the significance level
	// Verdict judges the change; NeedSamples is the number of values per
	// side the U test needs to detect one (set for every verdict).
	Verdict     Verdict  `json:"verdict"`
	NeedSamples int      `json:"need_samples"`       // per side, for the U test at Alpha
	Warnings    []string `json:"warnings,omitempty"` // benchmath's, and unit mismatches
	// SameAs names the metrics Compare left out because both rounds hold
	// exactly this metric's values for them (UDP_STREAM's
	// recv_throughput is its throughput).
	SameAs []string `json:"same_as,omitempty"`
}

// Comparison is a candidate round judged against a baseline.
type Comparison struct {
	Baseline  string `json:"baseline"`  // the baseline round name
	Candidate string `json:"candidate"` // the candidate round name
	// EnvDiff names the fingerprint fields that differ: a change that is
	// not the one under test makes the comparison suspect.
	EnvDiff []FieldDiff `json:"env_diff,omitempty"`
	// ParamDiff names the parameters that differ (normally the one that
	// was changed on purpose).
	ParamDiff []FieldDiff        `json:"param_diff,omitempty"`
	Metrics   []MetricComparison `json:"metrics"` // the baseline's order, then the candidate's new metrics
	// Notes are the sample warnings (benchmath's "need >= 6 samples ..."),
	// each once for the whole comparison with the number of metrics it
	// concerns, instead of once per metric and side.
	Notes []string `json:"notes,omitempty"`
}

// CompareOptions tune Compare. The zero value means a 95% CI and
// alpha 0.05.
type CompareOptions struct {
	Confidence float64 // 0–1; 0 means 0.95
	Alpha      float64 // 0 means 0.05
}

// Compare judges every metric of candidate against the same metric (same
// Key) of baseline: median and CI of each, the change of the median, and
// the Mann–Whitney U test from golang.org/x/perf/benchmath — the same
// statistics benchstat prints. Metrics in only one round are listed as
// VerdictMissing; when no metric is in both, a note says that nothing was
// compared. The rounds are not modified.
func Compare(baseline, candidate Round, opts CompareOptions) Comparison {
	conf, alpha := opts.Confidence, opts.Alpha
	if conf == 0 {
		conf = 0.95
	}
	if alpha == 0 {
		alpha = 0.05
	}
	c := Comparison{
		Baseline: baseline.Name, Candidate: candidate.Name,
		EnvDiff:   DiffFingerprints(baseline.Fingerprint, candidate.Fingerprint),
		ParamDiff: diffParams(baseline.Params, candidate.Params),
	}
	for _, bm := range baseline.Metrics {
		cm, ok := candidate.Metric(bm.Key())
		if !ok {
			c.Metrics = append(c.Metrics, missing(bm, conf, alpha, true))
			continue
		}
		c.Metrics = append(c.Metrics, CompareMetric(bm, cm, conf, alpha))
	}
	for _, cm := range candidate.Metrics {
		if _, ok := baseline.Metric(cm.Key()); !ok {
			c.Metrics = append(c.Metrics, missing(cm, conf, alpha, false))
		}
	}
	c.Metrics = dedupeMetrics(c.Metrics, baseline, candidate)
	c.Notes = hoistSampleNotes(c.Metrics)
	if n := nothingInCommon(baseline, candidate); n != "" {
		c.Notes = append(c.Notes, n)
	}
	return c
}

// nothingInCommon says so when both rounds have metrics and no key is in
// both (other labels, another test): every metric is then "missing", and
// nothing was judged.
func nothingInCommon(baseline, candidate Round) string {
	if len(baseline.Metrics) == 0 || len(candidate.Metrics) == 0 {
		return ""
	}
	keys := func(r Round) []string {
		var ks []string
		for _, m := range r.Metrics {
			if _, ok := baseline.Metric(m.Key()); ok {
				if _, ok := candidate.Metric(m.Key()); ok {
					return nil
				}
			}
			ks = append(ks, m.Key())
		}
		return ks
	}
	bk, ck := keys(baseline), keys(candidate)
	if bk == nil || ck == nil {
		return ""
	}
	return fmt.Sprintf("no metric is in both rounds, nothing was compared: %s has %s, %s has %s",
		baseline.Name, strings.Join(bk, ", "), candidate.Name, strings.Join(ck, ", "))
}

// dedupeMetrics drops a metric whose values equal, in both rounds, those
// of an earlier metric with the same unit and labels, and names it in the
// earlier one's SameAs.
func dedupeMetrics(ms []MetricComparison, baseline, candidate Round) []MetricComparison {
	values := func(r Round, key string) []float64 {
		m, _ := r.Metric(key)
		return m.Values
	}
	var out []MetricComparison
next:
	for _, m := range ms {
		bv, cv := values(baseline, m.Key), values(candidate, m.Key)
		for i := range out {
			o := &out[i]
			if o.Unit == m.Unit && labelString(o.Labels) == labelString(m.Labels) && len(bv)+len(cv) > 0 &&
				slices.Equal(values(baseline, o.Key), bv) && slices.Equal(values(candidate, o.Key), cv) {
				o.SameAs = append(o.SameAs, m.Name)
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

// hoistSampleNotes moves the sample warnings of every metric's summaries,
// and its own "need >= N samples" ones, into one list, each once with the count of metrics it was given for.
func hoistSampleNotes(ms []MetricComparison) []string {
	count := map[string]int{}
	var order []string
	for i := range ms {
		seen := map[string]bool{}
		for _, s := range []*Summary{&ms[i].Baseline, &ms[i].Candidate} {
			for _, w := range warnjson.Strings(s.Warnings) {
				if !seen[w] {
					seen[w] = true
					if count[w] == 0 {
						order = append(order, w)
					}
					count[w]++
				}
			}
			s.Warnings = nil
		}
		// benchmath's "need >= 4 samples to detect a difference" too.
		kept := ms[i].Warnings[:0]
		for _, w := range ms[i].Warnings {
			if !strings.HasPrefix(w, "need >= ") {
				kept = append(kept, w)
				continue
			}
			if !seen[w] {
				seen[w] = true
				if count[w] == 0 {
					order = append(order, w)
				}
				count[w]++
			}
		}
		ms[i].Warnings = slices.Clip(kept)
		if len(ms[i].Warnings) == 0 {
			ms[i].Warnings = nil
		}
	}
	notes := make([]string, len(order))
	for i, w := range order {
		notes[i] = fmt.Sprintf("%s (%d of %d metrics)", w, count[w], len(ms))
	}
	return notes
}

// CompareMetric compares two samples of one metric at the given confidence
// level (0–1) and alpha. It copies the values: benchmath sorts in place.
func CompareMetric(baseline, candidate Metric, confidence, alpha float64) MetricComparison {
	th := benchmath.DefaultThresholds
	th.CompareAlpha = alpha
	s1 := benchmath.NewSample(slices.Clone(baseline.Values), &th)
	s2 := benchmath.NewSample(slices.Clone(candidate.Values), &th)
	mc := MetricComparison{
		Key: baseline.Key(), Name: baseline.Name, Labels: baseline.Labels, Unit: baseline.Unit, Better: baseline.Better,
		Baseline:    summarize(s1, confidence),
		Candidate:   summarize(s2, confidence),
		Alpha:       alpha,
		NeedSamples: NeedSamples(alpha),
	}
	if candidate.Unit != baseline.Unit {
		mc.Warnings = append(mc.Warnings, fmt.Sprintf("unit %s in the baseline, %s in the candidate", baseline.Unit, candidate.Unit))
	}
	mc.DeltaPct = deltaPct(mc.Baseline.Median, mc.Candidate.Median)
	if len(s1.Values) == 0 || len(s2.Values) == 0 {
		mc.P, mc.Verdict = math.NaN(), VerdictTooFewSamples
		return mc
	}
	cmp := benchmath.AssumeNothing.Compare(s1, s2)
	mc.P = cmp.P
	for _, w := range cmp.Warnings {
		mc.Warnings = append(mc.Warnings, w.Error())
	}
	mc.Verdict = judge(mc, minP(len(s1.Values), len(s2.Values)))
	return mc
}

func judge(mc MetricComparison, minP float64) Verdict {
	switch {
	case mc.P < mc.Alpha && mc.Candidate.Median == mc.Baseline.Median:
		return VerdictChanged
	case mc.P < mc.Alpha:
		up := mc.Candidate.Median > mc.Baseline.Median
		switch mc.Better {
		case HigherIsBetter:
			return map[bool]Verdict{true: VerdictBetter, false: VerdictWorse}[up]
		case LowerIsBetter:
			return map[bool]Verdict{false: VerdictBetter, true: VerdictWorse}[up]
		}
		return VerdictChanged
	case minP >= mc.Alpha:
		return VerdictTooFewSamples
	}
	return VerdictNoChange
}

// NeedSamples returns the smallest number of values per side with which
// the two-sided Mann–Whitney U test can reach p < alpha: 4 at alpha 0.05
// (benchstat's "need >= 4 samples"), 5 at 0.01.
func NeedSamples(alpha float64) int {
	for n := 1; n < 100; n++ {
		if minP(n, n) < alpha {
			return n
		}
	}
	return 100
}

// minP is the smallest two-sided p-value the U test can give for samples of
// n1 and n2 distinct values: 2 / C(n1+n2, n1).
func minP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	lc, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Min(1, 2/math.Exp(lc-l1-l2))
}

func summarize(s *benchmath.Sample, confidence float64) Summary {
	if len(s.Values) == 0 {
		return Summary{Median: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1)}
	}
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	return Summary{N: len(s.Values), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Confidence: sum.Confidence,
		Warnings: append(warnjson.Errors(nil), sum.Warnings...)}
}

func missing(m Metric, conf, alpha float64, inBaseline bool) MetricComparison {
	s := summarize(benchmath.NewSample(slices.Clone(m.Values), &benchmath.DefaultThresholds), conf)
	mc := MetricComparison{Key: m.Key(), Name: m.Name, Labels: m.Labels, Unit: m.Unit, Better: m.Better,
		Verdict: VerdictMissing, P: math.NaN(), DeltaPct: math.NaN(), Alpha: alpha, NeedSamples: NeedSamples(alpha)}
	empty := Summary{Median: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1)}
	if inBaseline {
		mc.Baseline, mc.Candidate = s, empty
	} else {
		mc.Baseline, mc.Candidate = empty, s
	}
	return mc
}

func deltaPct(base, cand float64) float64 {
	if base == 0 {
		return math.NaN()
	}
	return 100 * (cand - base) / math.Abs(base)
}

func diffParams(b, c []Param) []FieldDiff {
	var ds []FieldDiff
	for _, p := range b {
		if v, _ := lookup(c, p.Key); v != p.Value {
			ds = append(ds, FieldDiff{p.Key, p.Value, v})
		}
	}
	for _, p := range c {
		if _, ok := lookup(b, p.Key); !ok {
			ds = append(ds, FieldDiff{p.Key, "", p.Value})
		}
	}
	return ds
}

// PctRange returns the CI as benchstat prints it after "±": "2%", "∞"
// when the sample is too small for a CI, "?" when it spans zero.
func (s Summary) PctRange() string {
	return benchmath.Summary{Center: s.Median, Lo: s.Lo, Hi: s.Hi}.PctRangeString()
}

// Summarize gives a metric's median and its 95% CI (as Compare does), for
// summaries that show one round alone. An empty metric has a NaN median.
func Summarize(m Metric) Summary {
	return summarize(benchmath.NewSample(slices.Clone(m.Values), &benchmath.DefaultThresholds), 0.95)
}
