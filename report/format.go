package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/bottleneck"
)

// num formats a value for tables: 4 significant digits, no exponent for
// everyday magnitudes, "—" for NaN.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "-∞"
	case v != 0 && math.Abs(v) < 1e-3:
		return strconv.FormatFloat(v, 'e', 3, 64)
	case math.Abs(v) >= 1e4:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// full formats a value for CSV: every digit, "" for NaN.
func full(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func labelString(ps []Param) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Key + "=" + p.Value
	}
	return strings.Join(s, " ")
}

// mdEscape keeps a cell inside its Markdown table column.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func pValue(p float64) string {
	if math.IsNaN(p) {
		return "—"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func signedPct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.2f%%", v)
}

func nan64() float64 { return math.NaN() }

// ciText is a summary's spread for a table cell: "± 1.2%", or "n = 3: no
// CI" when the sample is too small for a confidence interval (was "± ∞").
func ciText(s Summary) string {
	if !s.HasCI() {
		return fmt.Sprintf("n = %d: no CI", s.N)
	}
	return "± " + s.PctRange()
}

// valueText is a value for reading in its metric's unit: rates below 1
// Gbit/s, Mbit/s or Mpps and latencies from 1000 us on are scaled and carry
// their unit ("17 kbit/s", "1.25 ms"), since "1.7e-05 Gbit/s" is
// unreadable; other values print as num does, the row saying the unit.
func valueText(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return num(v)
	}
	switch a := math.Abs(v); {
	case unit == UnitGbps && a < 1:
		return bottleneck.FormatRate(v)
	case unit == UnitMbps && a < 1:
		return bottleneck.FormatRate(v / 1e3)
	case unit == UnitMpps && a < 1e-3:
		return strconv.FormatFloat(v*1e6, 'g', 3, 64) + " msg/s"
	case unit == UnitMpps && a < 1:
		return strconv.FormatFloat(v*1e3, 'g', 3, 64) + " kmsg/s"
	case unit == UnitMicros && a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + " s"
	case unit == UnitMicros && a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + " ms"
	}
	return num(v)
}
