package perftest

import (
	"encoding/binary"
	"math"
	"strconv"
)

// maxFields is the most whitespace-separated fields a result row has
// (a per-port BW row with the CPU column) plus room to notice extra ones.
const maxFields = 12

// splitFields splits a line at runs of spaces and TABs into dst without
// allocating, and returns the number of fields; n > len(dst) means more
// fields than fit (only the first len(dst) are stored).
func splitFields(line []byte, dst *[maxFields][]byte) int {
	n := 0
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			break
		}
		start := i
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		if n < len(dst) {
			dst[n] = line[start:i]
		}
		n++
	}
	return n
}

// parseUint parses a decimal unsigned integer.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses a number as C's printf prints it with %f, %lf or %g:
// "8.45", "-3.2", "0.000135", "inf", "-inf", "nan", "-nan". Short decimals
// take an exact fast path (an integer below 2^53 divided by an exact power
// of ten rounds once, as strconv does); everything else goes to
// strconv.ParseFloat, so the result always equals strconv's.
func parseFloat(b []byte) (float64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	i := 0
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i++
	}
	if i < len(b) && (b[i] < '0' || b[i] > '9') && b[i] != '.' {
		return parseSpecial(b[i:], neg)
	}
	var mant uint64
	digits, frac := 0, 0
	dot := false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			if digits < 19 {
				mant = mant*10 + uint64(c-'0')
				if mant != 0 || digits > 0 {
					digits++
				}
				if dot {
					frac++
				}
			} else {
				return parseFloatSlow(b)
			}
		case c == '.' && !dot:
			dot = true
		default:
			return parseFloatSlow(b)
		}
	}
	if (digits == 0 && mant == 0 && !hasDigit(b)) || mant >= 1<<53 || frac >= len(pow10) {
		return parseFloatSlow(b)
	}
	v := float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

func hasDigit(b []byte) bool {
	for _, c := range b {
		if c >= '0' && c <= '9' {
			return true
		}
	}
	return false
}

func parseFloatSlow(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		// strconv reports overflow with ±Inf and an error; perftest never
		// prints such numbers, so treat them as unparsable.
		return 0, false
	}
	return v, true
}

// parseSpecial parses inf, infinity and nan (any case) after the sign.
func parseSpecial(b []byte, neg bool) (float64, bool) {
	switch {
	case equalFold(b, "inf"), equalFold(b, "infinity"):
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case equalFold(b, "nan"):
		return math.NaN(), true
	}
	return 0, false
}

// equalFold reports whether b equals the lower-case ASCII word s, ignoring
// case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// finite reports whether v is neither NaN nor infinite (x-x is NaN for
// both).
func finite(v float64) bool { return v-v == 0 }

// scanRow parses a result row: blank-separated numbers, the first two
// unsigned integers (size and iterations), the rest floats. It fills u and
// v (v[i] for field i >= 2), returns the number of fields (more than
// maxFields means too many) and whether every field parsed. Each byte is
// looked at once on the fast path (short decimals), which is what makes
// Parse fast on long -a and --run_infinitely tables.
func scanRow(line []byte, u *[2]uint64, v *[maxFields]float64) (n int, ok bool) {
	ok = true
	i := 0
	for {
		i = skipBlanks(line, i)
		if i == len(line) {
			return n, ok
		}
		good := true
		switch {
		case n >= maxFields:
			i = fieldEnd(line, i)
		case n < 2:
			u[n], i, good = scanUint(line, i)
		default:
			v[n], i, good = scanFloat(line, i)
		}
		ok = ok && good
		n++
	}
}

// fieldEnd returns the index of the first blank at or after i, or
// len(line).
func fieldEnd(line []byte, i int) int {
	for i < len(line) && line[i] != ' ' && line[i] != '\t' {
		i++
	}
	return i
}

// scanDigits reads decimal digits from line[i:] into mant; it returns the
// new mantissa, how many digits it read and the index after them.
func scanDigits(line []byte, i int, mant uint64) (uint64, int, int) {
	digits := 0
	for i < len(line) {
		c := line[i] - '0'
		if c > 9 {
			break
		}
		mant = mant*10 + uint64(c)
		digits++
		i++
	}
	return mant, digits, i
}

// scanUint reads the unsigned integer field that starts at line[i]: up to
// 19 digits on the fast path, parseUint otherwise. It returns the value,
// the index after the field and whether it parsed.
func scanUint(line []byte, i int) (uint64, int, bool) {
	start := i
	x, digits, i := scanDigits(line, i, 0)
	if digits == 0 || digits > 19 || i < len(line) && line[i] != ' ' && line[i] != '\t' {
		i = fieldEnd(line, i)
		x, good := parseUint(line[start:i])
		return x, i, good
	}
	return x, i, true
}

// scanFloat reads the float field that starts at line[i]:
// [-]digits[.digits] with at most 15 digits on the fast path, parseFloat
// (inf, nan, exponents, long numbers) otherwise. It returns the value, the
// index after the field and whether it parsed.
func scanFloat(line []byte, i int) (float64, int, bool) {
	start := i
	neg := line[i] == '-'
	if neg {
		i++
	}
	mant, digits, i := scanDigits(line, i, 0)
	frac := 0
	if i < len(line) && line[i] == '.' {
		mant, frac, i = scanDigits(line, i+1, mant)
	}
	if digits+frac == 0 || digits+frac > 15 || i < len(line) && line[i] != ' ' && line[i] != '\t' {
		i = fieldEnd(line, i)
		x, good := parseFloat(line[start:i])
		return x, i, good
	}
	x := float64(mant) / pow10[frac]
	if neg {
		x = -x
	}
	return x, i, true
}

// skipBlanks returns the index of the first byte at or after i that is
// neither a space nor a TAB. perftest pads its columns with runs of
// spaces, which it skips eight at a time.
func skipBlanks(line []byte, i int) int {
	const spaces = 0x2020202020202020
	for i+8 <= len(line) && binary.LittleEndian.Uint64(line[i:]) == spaces {
		i += 8
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}
