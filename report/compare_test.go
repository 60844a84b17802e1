package report

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/internal/warnjson"
)

// TestCompareMatchesBenchstat checks the statistics against what benchstat
// (golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
// -table ”) printed for testdata/golden/benchfmt/mtu1500.txt and
// mtu9000.txt, the WriteBenchfmt output of the same rounds:
//
//	Rocekit/metric=bw_avg/size=65536   3.960 ± 2%   5.890 ± 2%  +48.74% (p=0.000 n=10)
//	Rocekit/metric=t_typical/size=2    34.25 ± 1%   34.25 ± 1%  ~ (p=0.956 n=10)
func TestCompareMatchesBenchstat(t *testing.T) {
	base, cand := baselineRound(), candidateRound()
	keep := fmt.Sprint(base.Metrics[0].Values)
	c := Compare(base, cand, CompareOptions{})
	if fmt.Sprint(base.Metrics[0].Values) != keep {
		t.Fatal("Compare sorted the caller's values")
	}
	type row struct {
		Key              string
		BaseMed, CandMed float64
		BaseCI, CandCI   string // benchstat's "± 2%"
		Delta            string // benchstat's "+48.74%"
		P                string // benchstat's "p=0.000"
		Verdict          Verdict
	}
	var got []row
	for _, m := range c.Metrics {
		got = append(got, row{m.Key, m.Baseline.Median, m.Candidate.Median, "± " + m.Baseline.PctRange(), "± " + m.Candidate.PctRange(),
			fmt.Sprintf("%+.2f%%", m.DeltaPct), fmt.Sprintf("p=%.3f", m.P), m.Verdict})
	}
	diff(t, []row{
		{"bw_avg/size=65536", 3.96, 5.89, "± 2%", "± 2%", "+48.74%", "p=0.000", VerdictBetter},
		{"t_typical/size=2", 34.25, 34.25, "± 1%", "± 1%", "+0.00%", "p=0.956", VerdictNoChange},
	}, got)
	diff(t, []FieldDiff{{"nic[eth1].mtu", "1500", "9000"}, {"nic[eth1].roce_path_mtu", "1024", "4096"}}, c.EnvDiff)
	diff(t, []FieldDiff{{"mtu", "1500", "9000"}}, c.ParamDiff)
}

func TestCompareVerdicts(t *testing.T) {
	hi := Metric{Name: "bw", Unit: UnitGbps, Better: HigherIsBetter}
	lo := Metric{Name: "lat", Unit: UnitMicros, Better: LowerIsBetter}
	un := Metric{Name: "sent", Unit: UnitMessages}
	with := func(m Metric, v ...float64) Metric { m.Values = v; return m }
	for _, tc := range []struct {
		name       string
		base, cand Metric
		want       Verdict
		warn       string
	}{
		{"higher better", with(hi, 1, 2, 3, 4), with(hi, 5, 6, 7, 8), VerdictBetter, ""},
		{"higher worse", with(hi, 5, 6, 7, 8), with(hi, 1, 2, 3, 4), VerdictWorse, ""},
		{"lower better", with(lo, 5, 6, 7, 8), with(lo, 1, 2, 3, 4), VerdictBetter, ""},
		{"lower worse", with(lo, 1, 2, 3, 4), with(lo, 5, 6, 7, 8), VerdictWorse, ""},
		{"no direction", with(un, 1, 2, 3, 4), with(un, 5, 6, 7, 8), VerdictChanged, ""},
		{"overlap", with(hi, 1, 2, 3, 4, 5), with(hi, 2, 3, 4, 5, 6), VerdictNoChange, ""},
		{"three each", with(hi, 1, 2, 3), with(hi, 7, 8, 9), VerdictTooFewSamples, "need >= 4 samples"},
		{"one each", with(hi, 1), with(hi, 9), VerdictTooFewSamples, "need >= 4 samples"},
		{"empty", with(hi), with(hi, 9), VerdictTooFewSamples, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := CompareMetric(tc.base, tc.cand, 0.95, 0.05)
			if mc.Verdict != tc.want || mc.NeedSamples != 4 {
				t.Errorf("verdict %q need %d (p=%v), want %q need 4", mc.Verdict, mc.NeedSamples, mc.P, tc.want)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(mc.Warnings, ";"), tc.warn) {
				t.Errorf("warnings %q lack %q", mc.Warnings, tc.warn)
			}
		})
	}
}

func TestCompareSmallSampleCI(t *testing.T) {
	s := CompareMetric(Metric{Name: "a", Unit: "u", Values: []float64{1, 2, 3, 4, 5}},
		Metric{Name: "a", Unit: "u", Values: []float64{1, 2, 3, 4, 5, 6}}, 0.95, 0.05)
	if s.Baseline.HasCI() || !s.Candidate.HasCI() {
		t.Errorf("CI with 5 values %v, with 6 %v", s.Baseline, s.Candidate)
	}
	if !strings.Contains(strings.Join(warnjson.Strings(s.Baseline.Warnings), ";"), "need >= 6 samples") {
		t.Errorf("no CI warning: %q", s.Baseline.Warnings)
	}
}

// TestSummaryWarningsJSON: a summary's warnings are errors in Go and the
// strings they always were in JSON, so a summary written when Warnings
// was a []string reads back, and one written now is byte for byte the same.
func TestSummaryWarningsJSON(t *testing.T) {
	// What json.Marshal wrote for this summary before.
	const old = `{"n":5,"median":3,"ci_lo":null,"ci_hi":5,"confidence":0.96875,"warnings":["need \u003e= 6 samples for confidence interval at level 0.95"]}`
	s := Summarize(Metric{Name: "a", Unit: "u", Values: []float64{1, 2, 3, 4, 5}})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != old {
		t.Errorf("got  %s\nwant %s", b, old)
	}
	var back Summary
	if err := json.Unmarshal([]byte(old), &back); err != nil {
		t.Fatal(err)
	}
	if back.N != 5 || back.Median != 3 || back.Confidence != 0.96875 || len(back.Warnings) != 1 || back.Warnings[0].Error() != "need >= 6 samples for confidence interval at level 0.95" {
		t.Errorf("decoded %+v", back)
	}
	if b, _ := json.Marshal(Summarize(Metric{Values: []float64{1, 2, 3, 4, 5, 6}})); strings.Contains(string(b), "warnings") {
		t.Errorf("no warnings written as %s", b)
	}
}

func TestCompareMissingMetric(t *testing.T) {
	a := Round{Name: "a", Metrics: []Metric{{Name: "x", Unit: "u", Values: []float64{1}}}}
	b := Round{Name: "b", Metrics: []Metric{{Name: "y", Unit: "u", Values: []float64{2}}}}
	c := Compare(a, b, CompareOptions{})
	var got []string
	for _, m := range c.Metrics {
		got = append(got, fmt.Sprintf("%s %s %v %v", m.Key, m.Verdict, m.Baseline.N, m.Candidate.N))
	}
	diff(t, []string{"x missing 1 0", "y missing 0 1"}, got)
}

func TestNeedSamples(t *testing.T) {
	diff(t, []int{4, 5, 7}, []int{NeedSamples(0.05), NeedSamples(0.01), NeedSamples(0.001)})
	if p := minP(3, 3); math.Abs(p-0.1) > 1e-12 {
		t.Errorf("minP(3,3) = %v", p)
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize(Metric{Name: "bw_avg", Unit: "Gbit/s", Values: []float64{3, 1, 2}})
	if s.N != 3 || s.Median != 2 || s.HasCI() {
		t.Errorf("Summarize = %+v, want n=3 median 2 without CI", s)
	}
	if s := Summarize(Metric{}); !math.IsNaN(s.Median) {
		t.Errorf("empty metric median %v, want NaN", s.Median)
	}
}

// TestCompareDedupe: UDP_STREAM's throughput and recv_throughput are the
// same numbers: one row remains, naming the other; the sample-size
// warnings are one note each for the comparison.
func TestCompareDedupe(t *testing.T) {
	round := func(name string, recv, send []float64) Round {
		return Round{Name: name, Metrics: []Metric{
			{Name: "throughput", Unit: UnitMbps, Better: HigherIsBetter, Values: recv},
			{Name: "send_throughput", Unit: UnitMbps, Better: HigherIsBetter, Values: send},
			{Name: "recv_throughput", Unit: UnitMbps, Better: HigherIsBetter, Values: recv},
		}}
	}
	a := round("a", []float64{100, 101, 99}, []float64{200, 201, 199})
	b := round("b", []float64{150, 151, 149}, []float64{200, 201, 199})
	c := Compare(a, b, CompareOptions{})
	var names []string
	for _, m := range c.Metrics {
		names = append(names, m.Name+fmt.Sprint(m.SameAs))
		if len(m.Warnings)+len(m.Baseline.Warnings)+len(m.Candidate.Warnings) > 0 {
			t.Errorf("%s keeps warnings %q %q %q", m.Name, m.Warnings, m.Baseline.Warnings, m.Candidate.Warnings)
		}
	}
	diff(t, []string{"throughput[recv_throughput]", "send_throughput[]"}, names)
	diff(t, []string{"need >= 6 samples for confidence interval at level 0.95 (2 of 2 metrics)",
		"need >= 4 samples to detect a difference at alpha level 0.05 (2 of 2 metrics)"}, c.Notes)
	var md strings.Builder
	if err := WriteComparisonMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(md.String(), "need >= 6 samples"); n != 1 {
		t.Errorf("markdown has the CI note %d times:\n%s", n, md.String())
	}
}

// TestCompareNothingInCommon: rounds without one metric key in common
// compare nothing, and the comparison says so instead of listing only
// missing metrics.
func TestCompareNothingInCommon(t *testing.T) {
	a := Round{Name: "a", Metrics: []Metric{{Name: "bw_avg", Labels: []Param{{"size", "65536"}}, Unit: UnitGbps, Better: HigherIsBetter, Values: []float64{1}}}}
	b := Round{Name: "b", Metrics: []Metric{{Name: "bw_avg", Labels: []Param{{"size", "8388608"}}, Unit: UnitGbps, Better: HigherIsBetter, Values: []float64{1}}}}
	c := Compare(a, b, CompareOptions{})
	want := "no metric is in both rounds, nothing was compared: a has bw_avg/size=65536, b has bw_avg/size=8388608"
	if !slices.Contains(c.Notes, want) {
		t.Errorf("notes %q, want %q", c.Notes, want)
	}
	if c := Compare(a, a, CompareOptions{}); slices.ContainsFunc(c.Notes, func(n string) bool { return strings.HasPrefix(n, "no metric") }) {
		t.Errorf("same round: %q", c.Notes)
	}
}
