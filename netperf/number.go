package netperf

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseNumber reads a number as C's printf writes it (%d, %f, %.2f, %e,
// PRIu64), including "inf", "-inf", "nan" and "-nan". special is true for
// the last four. Go-only spellings that strconv accepts (underscores, hex
// floats) are refused.
func parseNumber(s string) (v float64, special, ok bool) {
	if s == "" {
		return 0, false, false
	}
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "nan":
		return math.NaN(), true, true
	case "inf", "infinity":
		if s[0] == '-' {
			return math.Inf(-1), true, true
		}
		return math.Inf(1), true, true
	}
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E':
		default:
			return 0, false, false
		}
	}
	if !digits {
		return 0, false, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, false
	}
	return v, false, true
}

// notNumber says why s is not a number, for a ParseError: a decimal
// comma (netperf run under a locale such as de_DE prints "1234,56"), a
// value out of range of a float64 (1e309), or just that.
func notNumber(what, s string) string {
	if i := strings.IndexByte(s, ','); i > 0 && i < len(s)-1 && !strings.ContainsAny(s[:i]+s[i+1:], ",.") {
		if _, _, ok := parseNumber(s[:i] + "." + s[i+1:]); ok {
			return fmt.Sprintf("%s %q has a decimal comma (a locale's LC_NUMERIC?): not a number", what, s)
		}
	}
	if _, err := strconv.ParseFloat(s, 64); errors.Is(err, strconv.ErrRange) {
		return fmt.Sprintf("%s %q is out of range of a float64", what, s)
	}
	return what + " is not a number"
}

// isNumber reports whether s is a number parseNumber accepts.
func isNumber(s string) bool {
	_, _, ok := parseNumber(s)
	return ok
}

// parseCount reads a non-negative integer count (%d, PRIu64, or %.0f of a
// double).
func parseCount(s string) (uint64, bool) {
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return n, true
	}
	v, special, ok := parseNumber(s)
	if !ok || special || v < 0 || v != math.Trunc(v) || v >= 1<<64 {
		return 0, false
	}
	return uint64(v), true
}

// parseInt reads a signed integer (%d).
func parseInt(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil
}
