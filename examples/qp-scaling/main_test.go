package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// TestParseQPs: -qps is a list flag from 1 to maxQPs.
func TestParseQPs(t *testing.T) {
	clitest.CheckList(t, "parseQPs", parseQPs, append(clitest.ListBounds(1, maxQPs),
		clitest.ListCase{In: "1,2,4,8", Want: []int{1, 2, 4, 8}},
		clitest.ListCase{In: "8, 1 ,4", Want: []int{1, 4, 8}},
		clitest.ListCase{In: "16", Want: []int{16}},
		clitest.ListCase{In: "-1", WantErr: "-1 is outside"},
		clitest.ListCase{In: "1,4096", WantErr: "4096 is outside"},
	))
}

// steps makes steps from QP counts and medians; NaN is "no bandwidth".
func steps(qpsAndBW ...float64) []step {
	var ss []step
	for i := 0; i < len(qpsAndBW); i += 2 {
		s := step{QPs: int(qpsAndBW[i]), Unit: report.UnitGbps}
		if bw := qpsAndBW[i+1]; !math.IsNaN(bw) {
			s.Median = &bw
		}
		ss = append(ss, s)
	}
	return ss
}

// vals turns optional ratios into strings, rounded, "-" for nil.
func vals(vs []*float64) []string {
	var out []string
	for _, v := range vs {
		if v == nil {
			out = append(out, "-")
			continue
		}
		out = append(out, strconv.FormatFloat(*v, 'f', 3, 64))
	}
	return out
}

func TestAnalyse(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name       string
		steps      []step
		efficiency []string
		gain       []string
		knee       int // 0: none
	}{
		{
			name:  "linear then flat",
			steps: steps(1, 1.0, 2, 2.0, 4, 3.0, 8, 3.1),
			// 3.1/(8×1.0)
			efficiency: []string{"1.000", "1.000", "0.750", "0.388"},
			gain:       []string{"-", "2.000", "1.500", "1.033"},
			knee:       4,
		},
		{
			name:       "scales all the way",
			steps:      steps(1, 1.0, 2, 1.9, 4, 3.5),
			efficiency: []string{"1.000", "0.950", "0.875"},
			gain:       []string{"-", "1.900", "1.842"},
		},
		{
			name:       "no gain from the start",
			steps:      steps(1, 2.0, 2, 2.1, 4, 4.0),
			efficiency: []string{"1.000", "0.525", "0.500"},
			gain:       []string{"-", "1.050", "1.905"},
			knee:       1,
		},
		{
			// The first count is not 1: per-QP bandwidth of the first.
			name:       "starts at 2",
			steps:      steps(2, 2.0, 4, 4.0, 8, 4.0),
			efficiency: []string{"1.000", "1.000", "0.500"},
			gain:       []string{"-", "2.000", "1.000"},
			knee:       4,
		},
		{
			// A step without bandwidth is skipped: 4 compares with 1.
			name:       "hole",
			steps:      steps(1, 1.0, 2, nan, 4, 1.05),
			efficiency: []string{"1.000", "-", "0.263"},
			gain:       []string{"-", "-", "1.050"},
			knee:       1,
		},
		{
			name:       "nothing measured",
			steps:      steps(1, nan, 2, nan),
			efficiency: []string{"-", "-"},
			gain:       []string{"-", "-"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := analyse(tc.steps, 1.10)
			if d := cmp.Diff(tc.efficiency, vals(sc.Efficiency)); d != "" {
				t.Errorf("efficiency (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.gain, vals(sc.Gain)); d != "" {
				t.Errorf("gain (-want +got):\n%s", d)
			}
			switch {
			case tc.knee == 0 && sc.Knee != nil:
				t.Errorf("knee %d, want none", *sc.Knee)
			case tc.knee != 0 && (sc.Knee == nil || *sc.Knee != tc.knee):
				t.Errorf("knee %v, want %d", sc.Knee, tc.knee)
			}
		})
	}
}

// qpRound is a round as FromPerftest and run make it.
func qpRound(qps int, bw ...float64) report.Round {
	r := report.Round{Name: "ib_send_bw_q" + strconv.Itoa(qps)}
	r.SetParam("test", "Send BW Test")
	r.SetParam("qps", strconv.Itoa(qps))
	r.Metrics = []report.Metric{{Name: "bw_avg", Labels: []report.Param{{Key: "size", Value: "65536"}},
		Unit: report.UnitGbps, Better: report.HigherIsBetter, Values: bw}}
	return r
}

// TestKneeAgreesWithReport checks that the knee in words and summary.json
// is the one report.CheckQPScaling finds.
func TestKneeAgreesWithReport(t *testing.T) {
	rounds := []report.Round{qpRound(1, 1.0, 1.1, 0.9), qpRound(2, 2.0, 2.1), qpRound(4, 2.9, 3.0, 3.1), qpRound(8, 3.0, 3.2)}
	var ss []step
	for _, r := range rounds {
		q, _ := r.Param("qps")
		n, _ := strconv.Atoi(q)
		s := step{QPs: n}
		s.observe(r)
		ss = append(ss, s)
	}
	sc := analyse(ss, report.DefaultThresholds.MinQPGain)
	fs := report.CheckQPScaling(rounds, metric, report.DefaultThresholds)
	if len(fs) != 1 || sc.Knee == nil {
		t.Fatalf("report finds %v, analyse knee %v", fs, sc.Knee)
	}
	var want float64
	for _, e := range fs[0].Evidence {
		if e.Name == "knee_qps" {
			want = e.Value
		}
	}
	if float64(*sc.Knee) != want || want != 4 {
		t.Errorf("knee %d, report.CheckQPScaling says %v, want 4", *sc.Knee, want)
	}
	if got := kneeText(ss, sc); !strings.Contains(got, "The knee is at 4 QPs: going on to 8 QPs gives ×1.03 the bandwidth (less than ×1.10)") ||
		strings.Contains(got, "noisy") {
		t.Errorf("kneeText = %q", got)
	}
}

func TestKneeTextNoisy(t *testing.T) {
	ss := steps(1, 1.0, 2, 2.0, 4, 1.5, 8, 2.5)
	got := kneeText(ss, analyse(ss, 1.10))
	want := "The knee is at 2 QPs: going on to 4 QPs gives ×0.75 the bandwidth (less than ×1.10); more QPs than 2 buy little here." +
		" But 8 QPs rise again to ×1.25 of the knee's bandwidth: the curve is noisy, rerun with a larger -count before trusting the knee."
	if got != want {
		t.Errorf("kneeText =\n%s\nwant\n%s", got, want)
	}
	ss = steps(1, 1.0, 2, 2.0, 4, 2.1)
	if got, want := kneeText(ss, analyse(ss, 1.10)), "The knee is at 2 QPs: going on to 4 QPs gives ×1.05 the bandwidth (less than ×1.10); more QPs than 2 buy little here."; got != want {
		t.Errorf("kneeText = %q, want %q", got, want)
	}
	ss = steps(1, 1.0, 2, 1.9)
	if got := kneeText(ss, analyse(ss, 1.10)); got != "Bandwidth scales over the whole range (1, 2 QPs): every step gains at least 10%." {
		t.Errorf("kneeText = %q", got)
	}
	ss = steps(1, math.NaN(), 2, 1.9)
	if got := kneeText(ss, analyse(ss, 1.10)); got != "Too few QP counts with a bandwidth to say how it scales." {
		t.Errorf("kneeText = %q", got)
	}
}

func TestFindingsAndSummary(t *testing.T) {
	rounds := []report.Round{qpRound(1, 1.0), qpRound(2, 1.02)}
	hot := &irq.HotCore{CPU: 2, SoftPct: 95, IdlePct: 0}
	cold := &irq.HotCore{CPU: -1}
	failed, _ := report.RunsFailed("2 QPs", 2, []string{"run 2: perftest: completion error"})
	ss := []step{{QPs: 1, Runs: 1, NearHot: hot, FarHot: cold},
		{QPs: 2, Runs: 2, NearHot: cold, Failures: []string{"run 2: perftest: completion error"}, Findings: []report.Finding{failed}}}
	for i := range ss {
		ss[i].observe(rounds[i])
	}
	sc := analyse(ss, report.DefaultThresholds.MinQPGain)
	// The last step stored the rules over all steps: listed once.
	ss[1].Findings = append(ss[1].Findings, crossFindings(rounds, ss)...)

	fs := qpFindings(rounds, ss)
	var got []string
	for _, f := range fs {
		got = append(got, string(f.Severity)+" "+f.Rule)
	}
	want := []string{"warning " + RuleRunFailed, "info " + report.RuleQPKnee, "info " + RuleQPEfficiency}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if s := fs[0].Summary; s != "2 QPs: 1 of 2 runs failed, the median is of the others: run 2: perftest: completion error" {
		t.Errorf("failed run finding: %q", s)
	}
	if s := fs[2].Summary; !strings.Contains(s, "1 QPs 100%, 2 QPs 51%") || !strings.Contains(s, "The knee is at 1 QPs") {
		t.Errorf("own finding: %q", s)
	}

	b, err := json.Marshal(buildSummary(runbook.TwoHosts, ss, sc, fs))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"mode":"two-host","rounds":[` +
		`{"qps":1,"median":1,"efficiency":1,"hot_core_near":2,"hot_core_far":-1,"failed_runs":0},` +
		`{"qps":2,"median":1.02,"efficiency":0.51,"hot_core_near":-1,"hot_core_far":null,"failed_runs":1}],` +
		`"knee":1,"findings":[`
	if !strings.HasPrefix(string(b), wantJSON) {
		t.Errorf("summary.json:\n got %s\nwant %s...", b, wantJSON)
	}

	// No knee, nothing measured: null, and empty lists rather than null.
	b, _ = json.Marshal(buildSummary(runbook.Loopback, nil, analyse(nil, 1.1), nil))
	if want := `{"mode":"loopback","rounds":[],"knee":null,"findings":[]}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// TestStepAllRunsFailed keeps a step whose every run failed: no bandwidth,
// no efficiency, its critical finding, and the other steps still analysed.
func TestStepAllRunsFailed(t *testing.T) {
	one := 1.0
	failed, _ := report.RunsFailed("8 QPs", 2, []string{"run 1: completion error", "run 2: completion error"})
	ss := []step{{QPs: 1, Runs: 2, Median: &one, Unit: "Gbit/s"},
		{QPs: 8, Runs: 2, Failures: []string{"run 1: completion error", "run 2: completion error"}, Findings: []report.Finding{failed}}}
	sc := analyse(ss, report.DefaultThresholds.MinQPGain)
	if sc.Efficiency[1] != nil || sc.Knee != nil {
		t.Errorf("a failed step got efficiency %v, knee %v", sc.Efficiency[1], sc.Knee)
	}
	fs := qpFindings(nil, ss)
	if len(fs) == 0 || fs[0].Severity != report.SeverityCritical || fs[0].Rule != RuleRunFailed ||
		!strings.HasPrefix(fs[0].Summary, "8 QPs: all 2 runs failed") {
		t.Errorf("findings: %+v", fs)
	}
	b, _ := json.Marshal(buildSummary(runbook.TwoHosts, ss, sc, fs))
	if !strings.Contains(string(b), `{"qps":8,"median":null,"efficiency":null,"hot_core_near":null,"hot_core_far":null,"failed_runs":2}`) {
		t.Errorf("summary.json: %s", b)
	}
	var md bytes.Buffer
	writeTable(&md, ss, sc, runbook.TwoHosts)
	if !strings.Contains(md.String(), "| 8 | 2 of 2 |") {
		t.Errorf("table:\n%s", md.String())
	}
}
