package page

import (
	"fmt"

	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/plot"
)

// FromRounds makes a section from rounds alone, as a store keeps them, so
// that any earlier run can be shown again: the pictures plot.Auto draws,
// the rounds side by side, and the findings of the rules that need only
// rounds (report.CheckJitter and CheckUDPLoss per round, CheckMTU from
// the lowest to the highest "mtu" parameter, CheckQPScaling over the
// "qps" parameter).
//
// Similar to: re-running the spreadsheet of an old tuning session
func FromRounds(title string, rounds []report.Round) Section {
	s := Section{Title: title, Rounds: rounds}
	figs, err := plot.Auto(rounds)
	s.Figures = figs
	if err != nil {
		s.Notes = append(s.Notes, err.Error())
	}
	s.Findings = StoredFindings(rounds)
	if len(s.Findings) == 0 {
		s.Findings = roundFindings(rounds) // rounds stored before findings were
	}
	return s
}

// StoredFindings are the findings stored with the rounds
// (report.Round.Findings), each once, the most severe first: what the
// run concluded, counters and all, read back rather than worked out again.
func StoredFindings(rounds []report.Round) []report.Finding {
	var fs []report.Finding
	seen := map[string]bool{}
	for _, r := range rounds {
		for _, f := range r.Findings {
			k := f.Rule + "\x00" + f.Summary
			if !seen[k] {
				seen[k] = true
				fs = append(fs, f)
			}
		}
	}
	report.SortFindings(fs)
	return fs
}

// roundFindings runs the rules that need only rounds, for rounds that
// were stored without their findings.
func roundFindings(rounds []report.Round) []report.Finding {
	th := report.DefaultThresholds
	var fs []report.Finding
	for _, r := range rounds {
		fs = append(fs, report.CheckJitter(r, th)...)
		fs = append(fs, report.CheckUDPLoss(r, nil, nil, th)...)
	}
	key := plot.Headline(rounds)
	var lo, hi *report.Round
	var qps []report.Round
	for i := range rounds {
		r := &rounds[i]
		if mtu := intParam(*r, report.ParamMTU); mtu > 0 {
			if lo == nil || mtu < intParam(*lo, report.ParamMTU) {
				lo = r
			}
			if hi == nil || mtu > intParam(*hi, report.ParamMTU) {
				hi = r
			}
		}
		if intParam(*r, report.ParamQPs) > 0 {
			qps = append(qps, *r)
		}
	}
	if lo != nil && hi != nil && lo != hi && key != "" {
		fs = append(fs, report.CheckMTU(*lo, *hi, key, th)...)
	}
	if len(qps) > 1 && key != "" {
		fs = append(fs, report.CheckQPScaling(qps, key, th)...)
	}
	report.SortFindings(fs)
	return fs
}

func intParam(r report.Round, key string) int {
	v, _ := r.Param(key)
	var n int
	fmt.Sscan(v, &n)
	return n
}
