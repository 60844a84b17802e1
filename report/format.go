package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
