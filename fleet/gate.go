package fleet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/report"
)

// DefaultLineRateRatio is ngc_multinode_perf's pass mark: a pair passes
// at 90 % of its line rate or more.
const DefaultLineRateRatio = 0.9

// ErrBelowLineRate is wrapped by *GateError: pairs fell short of their
// line rate, failed, or (with LineRateGate.RequireLineRate) had no known rate.
var ErrBelowLineRate = errors.New("fleet: pairs below line rate")

// LineRateGate is the line-rate check of a matrix.
type LineRateGate struct {
	// MinRatio is the share of the line rate a pair must reach;
	// 0 means DefaultLineRateRatio.
	MinRatio float64
	// RequireLineRate fails pairs whose line rate is unknown; by default
	// they are listed in GateError.Unjudged (or in the findings) only.
	RequireLineRate bool
}

// GateFailure is a pair that did not pass.
type GateFailure struct {
	Pair         Pair    `json:"pair"`
	Name         string  `json:"name"` // "a–b"
	BWGbps       float64 `json:"bw_gbps"`
	LineRateGbps float64 `json:"line_rate_gbps"`
	// Reason is "below line rate", "failed: ERROR" or "line rate unknown".
	Reason string `json:"reason"`
}

// String says which pair failed and why, with its numbers.
func (f GateFailure) String() string {
	if f.LineRateGbps > 0 && f.Reason == reasonBelow {
		return fmt.Sprintf("%s: %s of %s Gbit/s (%.0f%%)", f.Name, formatGbps(f.BWGbps), formatGbps(f.LineRateGbps), 100*f.BWGbps/f.LineRateGbps)
	}
	return f.Name + ": " + f.Reason
}

const (
	reasonBelow   = "below line rate"
	reasonUnknown = "line rate unknown"
)

// GateError lists the pairs that did not pass a line-rate gate.
type GateError struct {
	MinRatio float64
	Failures []GateFailure
	// Unjudged are pairs with no known line rate that did not fail the
	// gate (RequireLineRate unset).
	Unjudged []string
	// Pairs is the number of pairs judged or failed.
	Pairs int
}

// Error lists the failing pairs.
func (e *GateError) Error() string {
	s := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		s[i] = f.String()
	}
	return fmt.Sprintf("%v: %d of %d pairs under %.0f%%: %s", ErrBelowLineRate, len(e.Failures), e.Pairs, 100*e.MinRatio, strings.Join(s, "; "))
}

// Unwrap returns ErrBelowLineRate.
func (e *GateError) Unwrap() error { return ErrBelowLineRate }

// Check judges every cell of m against its line rate: a pair passes when
// its bandwidth is at least MinRatio of the slower NIC's line rate. A
// failed pair fails the gate; a pair with no known line rate fails it
// only with RequireLineRate. It returns nil when every pair passes, else
// a *GateError (ErrBelowLineRate) naming each failing pair, for a CI job
// to fail on.
//
// Similar to: ngc_multinode_perf's "BW is below 90% of line rate" check on every ib_write_bw pair
func (g LineRateGate) Check(m *Matrix) error {
	ratio := g.ratio()
	e := &GateError{MinRatio: ratio}
	for _, c := range m.Cells {
		e.Pairs++
		f := GateFailure{Pair: c.Pair, Name: c.A + "–" + c.B, BWGbps: c.BWGbps, LineRateGbps: c.LineRateGbps}
		switch {
		case !c.OK:
			f.Reason = "failed: " + c.Error
		case c.LineRateGbps <= 0 && g.RequireLineRate:
			f.Reason = reasonUnknown
		case c.LineRateGbps <= 0:
			e.Unjudged = append(e.Unjudged, f.Name)
			continue
		case c.BWGbps >= ratio*c.LineRateGbps:
			continue
		default:
			f.Reason = reasonBelow
		}
		e.Failures = append(e.Failures, f)
	}
	if len(e.Failures) == 0 {
		return nil
	}
	return e
}

func (g LineRateGate) ratio() float64 {
	if g.MinRatio <= 0 {
		return DefaultLineRateRatio
	}
	return g.MinRatio
}

// Rules of the findings this package makes.
const (
	RuleBelowLineRate = "fleet_pair_below_line_rate"
	RulePairFailed    = "fleet_pair_failed"
	RuleSlowLink      = "fleet_slow_link"
	RuleSlowHost      = "fleet_slow_host"
	RuleNoLineRate    = "fleet_line_rate_unknown"
)

// Findings turns the gate's verdict and the outliers of m into report
// findings: one per failing pair (critical for a failure, warning below
// line rate), one per outlier (a slow link or host), and one info finding
// for the pairs whose line rate is unknown.
func (g LineRateGate) Findings(m *Matrix, outliers []Outlier) []report.Finding {
	var fs []report.Finding
	var ge *GateError
	if errors.As(g.Check(m), &ge) {
		for _, f := range ge.Failures {
			fd := report.Finding{Rule: RuleBelowLineRate, Severity: report.SeverityWarning, Summary: f.String(),
				Evidence: []report.Evidence{{Name: "bw", Value: f.BWGbps, Unit: report.UnitGbps},
					{Name: "line_rate", Value: f.LineRateGbps, Unit: report.UnitGbps}},
				Action: "check both ends' link (ethtool IFACE: Speed, ethtool -S IFACE | grep -E 'discard|drop|pause'), the MTU, NUMA-local pinning and PFC/ECN on the switch ports"}
			switch f.Reason {
			case reasonBelow:
			case reasonUnknown:
				fd.Rule, fd.Action = RuleNoLineRate, "set the NICs' line rate (ethtool IFACE reports Speed: Unknown!)"
			default:
				fd.Rule, fd.Severity = RulePairFailed, report.SeverityCritical
				fd.Action = "rerun the pair alone; the error names the side and stage that failed"
			}
			fs = append(fs, fd)
		}
		if len(ge.Unjudged) > 0 {
			fs = append(fs, unjudgedFinding(ge.Unjudged))
		}
	} else if un := unjudged(m); len(un) > 0 {
		fs = append(fs, unjudgedFinding(un))
	}
	for _, o := range outliers {
		fd := report.Finding{Rule: RuleSlowLink, Severity: report.SeverityWarning, Summary: o.String(),
			Evidence: []report.Evidence{{Name: "bw", Value: o.BWGbps, Unit: report.UnitGbps},
				{Name: "peer_median", Value: o.PeerMedianGbps, Unit: report.UnitGbps}},
			Action: "the hosts are fine with other partners: check the cable, the switch ports and the path between " + strings.Join(o.Names, ", ")}
		if o.Blame == BlameHost {
			fd.Rule = RuleSlowHost
			fd.Action = "the host is slow with every partner: check " + o.Host + "'s NIC (ethtool -i, ethtool -S), its PCIe link (lspci -vv: LnkSta), NUMA pinning, MTU and IRQ placement"
		}
		fs = append(fs, fd)
	}
	return fs
}

func unjudged(m *Matrix) []string {
	var out []string
	for _, c := range m.Cells {
		if c.OK && c.LineRateGbps <= 0 {
			out = append(out, c.A+"–"+c.B)
		}
	}
	return out
}

func unjudgedFinding(names []string) report.Finding {
	return report.Finding{Rule: RuleNoLineRate, Severity: report.SeverityInfo,
		Summary:  fmt.Sprintf("%d pairs have no known line rate and were not gated: %s", len(names), strings.Join(names, ", ")),
		Evidence: []report.Evidence{{Name: "pairs", Value: float64(len(names)), Unit: "count"}},
		Action:   "virtio reports no speed (ethtool: Speed: Unknown!); give NIC.LineRateGbps"}
}
