package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/rocekit/rocekit/internal/warnjson"
)

// WriteJSON writes v (a Round, a Comparison, a []Finding, ...) as indented
// JSON. Non-finite statistics (a CI that does not exist, the p-value of a
// missing metric) are null.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("report: json: %w", err)
	}
	return nil
}

// finite is a float64 that encodes as null when it is NaN or ±Inf.
type finite float64

// MarshalJSON encodes f, or null when it is not finite.
func (f finite) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// MarshalJSON encodes the summary with "ci_lo" and "ci_hi", null when the
// sample is too small for a CI.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N          int             `json:"n"`
		Median     finite          `json:"median"`
		Lo         finite          `json:"ci_lo"`
		Hi         finite          `json:"ci_hi"`
		Confidence float64         `json:"confidence"`
		Warnings   warnjson.Errors `json:"warnings,omitempty"`
	}{s.N, finite(s.Median), finite(s.Lo), finite(s.Hi), s.Confidence, s.Warnings})
}

// MarshalJSON encodes the comparison with null for a p-value or delta
// that does not exist.
func (m MetricComparison) MarshalJSON() ([]byte, error) {
	type plain MetricComparison
	return json.Marshal(struct {
		plain
		DeltaPct finite `json:"delta_pct"`
		P        finite `json:"p"`
	}{plain(m), finite(m.DeltaPct), finite(m.P)})
}
