package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report/junit"
)

// A gate failure and a workflow's findings as JUnit: the file validates
// against junit-10.xsd and junitparser reads the failures back.
func TestGateAndFindingsJUnit(t *testing.T) {
	c := Compare(candidateRound(), baselineRound(), CompareOptions{}) // bandwidth fell a third
	gs, err := GateJUnit(c, GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fs := []Finding{{Rule: RuleUDPLoss, Severity: SeverityWarning, Summary: "lost 10 % of datagrams",
		Evidence: []Evidence{{Name: "loss_ratio", Value: 0.1, Unit: UnitRatio}}, Action: "raise net.core.rmem_max"},
		{Rule: RuleQPKnee, Severity: SeverityInfo, Summary: "the knee is at 4 QPs"}}
	var b bytes.Buffer
	if err := junit.Write(&b, junit.Suites{Name: "rocekit", Suites: []junit.Suite{gs, FindingsJUnit("netperf-udp-tuning", fs)}}); err != nil {
		t.Fatal(err)
	}
	got := labtest.CheckJUnit(t, b.Bytes())
	if len(got) != 2 || got[0].Failures == 0 || got[1].Tests != 2 || got[1].Failures != 1 {
		t.Fatalf("read back %+v", got)
	}
	var bw string
	for _, tc := range got[0].Cases {
		if strings.HasPrefix(tc.Name, "bw_avg") && len(tc.Results) > 0 {
			bw = tc.Results[0] + ": " + tc.Messages[0]
		}
	}
	if !strings.HasPrefix(bw, "Failure: bw_avg/size=65536: ") || !strings.Contains(bw, "% worse (allowed 5 %)") {
		t.Errorf("bw_avg case %q", bw)
	}
	if r := got[1].Cases[0]; len(r.Results) != 1 || r.Messages[0] != "lost 10 % of datagrams" {
		t.Errorf("finding case %+v", r)
	}
	// A misspelled metric is the gate's error, not a passing suite.
	if _, err := GateJUnit(c, GateOptions{Metrics: []string{"bw_avgg"}}); !errors.Is(err, ErrUnknownName) {
		t.Errorf("bw_avgg: %v", err)
	}
}
