package fleet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/rocekit/rocekit/report/junit"
)

// JUnit returns the matrix as a JUnit test suite judged by g: a test case
// per pair (a failure below the line rate, an error for a pair that did
// not run, the bandwidth in the output otherwise), one per unmeasured
// pair (skipped), and one per outlier (a failure naming the host or link
// blamed). A CI job reads it like any test report (junit.Write).
//
// Similar to: ngc_multinode_perf's per-pair PASS/FAIL lines, as a CI test report
func (g LineRateGate) JUnit(m *Matrix, outliers []Outlier) junit.Suite {
	class := "rocekit.fleet." + m.Name
	s := junit.Suite{Name: "fleet matrix " + m.Name,
		Properties: []junit.Property{{Name: "min_line_rate_ratio", Value: fmt.Sprintf("%.2f", g.ratio())}}}
	failures := map[Pair]GateFailure{}
	var ge *GateError
	if errors.As(g.Check(m), &ge) {
		for _, f := range ge.Failures {
			failures[f.Pair] = f
		}
	}
	for _, c := range m.Cells {
		tc := junit.Case{Name: pairCaseName(c), Class: class, Seconds: c.Elapsed.Seconds()}
		f, failed := failures[c.Pair]
		switch {
		case !c.OK:
			tc.Error = &junit.Failure{Type: RulePairFailed, Message: c.Error, Text: strings.Join(warnjson.Strings(c.Warnings), "\n")}
		case failed && f.Reason == reasonUnknown:
			tc.Failure = &junit.Failure{Type: RuleNoLineRate, Message: f.String()}
		case failed:
			tc.Failure = &junit.Failure{Type: RuleBelowLineRate, Message: f.String(),
				Text: fmt.Sprintf("bandwidth %s Gbit/s, line rate %s Gbit/s, pass mark %.0f %% (%s Gbit/s)",
					formatGbps(c.BWGbps), formatGbps(c.LineRateGbps), 100*g.ratio(), formatGbps(g.ratio()*c.LineRateGbps))}
		default:
			tc.Output = formatGbps(c.BWGbps) + " Gbit/s"
			if c.LineRateGbps <= 0 {
				tc.Output += " (line rate unknown: not gated)"
			}
		}
		s.Cases = append(s.Cases, tc)
	}
	for _, pr := range m.Unmeasured {
		s.Cases = append(s.Cases, junit.Case{Name: m.hostName(pr.A) + "–" + m.hostName(pr.B), Class: class, Skipped: "not measured: the run ended first"})
	}
	for _, o := range outliers {
		name, rule := "link "+strings.Join(o.Names, ", "), RuleSlowLink
		if o.Blame == BlameHost {
			name, rule = "host "+o.Host, RuleSlowHost
		}
		s.Cases = append(s.Cases, junit.Case{Name: "outlier: " + name, Class: class + ".outliers",
			Failure: &junit.Failure{Type: rule, Message: o.String(), Text: "pairs: " + strings.Join(o.Names, ", ")}})
	}
	return s
}

func pairCaseName(c Cell) string {
	n := c.A + "–" + c.B
	if c.ANIC != "" || c.BNIC != "" {
		n += " (" + c.ANIC + "–" + c.BNIC + ")"
	}
	return n
}

func (m *Matrix) hostName(i int) string {
	if i >= 0 && i < len(m.Hosts) {
		return m.Hosts[i]
	}
	return fmt.Sprintf("host %d", i)
}
