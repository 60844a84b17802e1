// Package jsonfloat writes a float64 as encoding/json does, for the
// parsers' hand-written JSON (perftest's stream, netperf's interim lines),
// so their output equals json.Marshal's without its reflection.
//
//	b = jsonfloat.Append(b, 1e-7) // "1e-7"
package jsonfloat

import (
	"math"
	"strconv"
)

// Append appends a finite f in encoding/json's form: the shortest
// digits, an exponent from 1e21 and below 1e-6, "e-7" not "e-07". The
// caller handles inf and nan, which JSON cannot carry.
func Append(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
