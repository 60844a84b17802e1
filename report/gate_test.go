package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestGate: the MTU 9000 candidate against the MTU 1500 baseline passes;
// the other way round, bw_avg regresses 32.8% and fails the gate, with
// the metric, both medians and the tolerance in the error; latency did
// not move and is not listed.
func TestGate(t *testing.T) {
	base, cand := baselineRound(), candidateRound()
	if err := Gate(Compare(base, cand, CompareOptions{}), GateOptions{}); err != nil {
		t.Errorf("improvement gated: %v", err)
	}
	err := Gate(Compare(cand, base, CompareOptions{}), GateOptions{})
	var re *RegressionError
	if !errors.Is(err, ErrRegression) || !errors.As(err, &re) || len(re.Regressions) != 1 {
		t.Fatalf("Gate = %v, want one regression", err)
	}
	r := re.Regressions[0]
	if r.Key != "bw_avg/size=65536" || math.Abs(r.Baseline-5.89) > 1e-9 || r.Candidate != 3.96 || r.TolerancePct != 5 || r.Verdict != VerdictWorse {
		t.Errorf("regression %+v", r)
	}
	if !strings.Contains(err.Error(), "bw_avg/size=65536: 5.89 -> 3.96 Gbit/s, 32.8% worse (allowed 5%; worse)") {
		t.Errorf("message %q", err)
	}
	// A tolerance above the drop lets it through; a gate on latency only
	// ignores bandwidth.
	if err := Gate(Compare(cand, base, CompareOptions{}), GateOptions{Tolerance: map[string]float64{"bw_avg": 40}}); err != nil {
		t.Errorf("within tolerance: %v", err)
	}
	if err := Gate(Compare(cand, base, CompareOptions{}), GateOptions{Metrics: []string{"t_typical"}}); err != nil {
		t.Errorf("latency-only gate: %v", err)
	}
}

func TestGateSmallSamplesAndMissing(t *testing.T) {
	hi := func(v ...float64) Round {
		return Round{Name: "r", Metrics: []Metric{{Name: "bw", Unit: UnitGbps, Better: HigherIsBetter, Values: v}}}
	}
	c := Compare(hi(10, 10, 10), hi(8, 8, 8), CompareOptions{})
	if err := Gate(c, GateOptions{}); !errors.Is(err, ErrRegression) {
		t.Errorf("20%% drop on 3 samples, median gate: %v", err)
	}
	if err := Gate(c, GateOptions{Significant: true}); err != nil {
		t.Errorf("20%% drop on 3 samples cannot be significant: %v", err)
	}
	gone := Compare(hi(10, 10, 10), Round{Name: "r"}, CompareOptions{})
	if err := Gate(gone, GateOptions{}); err != nil {
		t.Errorf("missing metric without FailMissing: %v", err)
	}
	if err := Gate(gone, GateOptions{FailMissing: true}); err == nil || !strings.Contains(err.Error(), "bw: missing from the candidate") {
		t.Errorf("missing metric with FailMissing: %v", err)
	}
}

func ExampleGate() {
	base := Round{Name: "nightly-1", Metrics: []Metric{{Name: "throughput", Unit: UnitMbps, Better: HigherIsBetter, Values: []float64{940, 941, 939}}}}
	cand := Round{Name: "nightly-2", Metrics: []Metric{{Name: "throughput", Unit: UnitMbps, Better: HigherIsBetter, Values: []float64{700, 702, 701}}}}
	err := Gate(Compare(base, cand, CompareOptions{}), GateOptions{Tolerance: map[string]float64{"throughput": 3}})
	fmt.Println(err)
	// Output:
	// report: nightly-2 regressed against nightly-1 on 1 metric(s):
	//   throughput: 940 -> 701 Mbit/s, 25.4% worse (allowed 3%; too few samples)
}

// TestGateUnknownMetric: a gate on a metric name no round has (a typo)
// is an error naming it, suggesting the near name and listing the names
// there are, not a pass while bw_avg fell; a misspelled tolerance key
// too.
func TestGateUnknownMetric(t *testing.T) {
	base, cand := baselineRound(), candidateRound()
	c := Compare(cand, base, CompareOptions{}) // bw_avg fell 32.8%
	for _, opt := range []GateOptions{
		{Metrics: []string{"bw_avgg"}},
		{Metrics: []string{"t_typical", "bw_avgg"}},
		{Tolerance: map[string]float64{"bw_avgg": 40}},
	} {
		err := Gate(c, opt)
		var ue *UnknownNameError
		if !errors.Is(err, ErrUnknownName) || !errors.As(err, &ue) || errors.Is(err, ErrRegression) {
			t.Fatalf("Gate(%+v) = %v, want an *UnknownNameError", opt, err)
		}
		diff(t, []string{"bw_avgg"}, ue.Names)
		if ue.Kind != "metric" || !slices.Contains(ue.Known, "bw_avg") || !slices.Contains(ue.Known, "t_typical") {
			t.Errorf("kind %q, known %v", ue.Kind, ue.Known)
		}
		if msg := err.Error(); !strings.Contains(msg, `no metric named "bw_avgg" (did you mean "bw_avg"?)`) || !strings.HasSuffix(msg, "; there are: bw_avg, t_typical") {
			t.Errorf("message %q", msg)
		}
	}
	// A metric key instead of its name is unknown too (Gate matches names).
	if err := Gate(c, GateOptions{Metrics: []string{"bw_avg/size=65536"}}); !errors.Is(err, ErrUnknownName) {
		t.Errorf("key as name: %v", err)
	}
}

// TestGateNoDirection: a metric named in Metrics that has no better
// direction can never be gated: an error, not a silent pass.
func TestGateNoDirection(t *testing.T) {
	r := func(v float64) Round {
		return Round{Name: "r", Metrics: []Metric{{Name: "sent", Unit: UnitMessages, Values: []float64{v}},
			{Name: "loss_ratio", Unit: UnitRatio, Better: LowerIsBetter, Values: []float64{0.1}}}}
	}
	c := Compare(r(100), r(10), CompareOptions{})
	err := Gate(c, GateOptions{Metrics: []string{"loss_ratio", "sent"}})
	if !errors.Is(err, ErrNoDirection) || !strings.Contains(err.Error(), "sent") || strings.Contains(err.Error(), "loss_ratio") {
		t.Errorf("Gate on sent = %v, want ErrNoDirection naming it", err)
	}
	if err := Gate(c, GateOptions{}); err != nil {
		t.Errorf("ungated by default: %v", err)
	}
}
