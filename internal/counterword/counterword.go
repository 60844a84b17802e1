// Package counterword splits the names of kernel and driver counters into
// words, for the classifiers of nic (ethtool -S) and rxe (RDMA port
// counters), which may not import each other, and pairs two snapshots of
// counters (Deltas).
//
//	counterword.Split("RcvbufErrors")   // rcvbuf, errors
//	counterword.Split("rx0_drops")      // rx0, drops
//	counterword.Split("rxDiscards")     // rx, discards
package counterword

import (
	"strings"
	"unicode"
)

// Split splits a counter name into lower-case words at every character
// that is neither a letter nor a digit, and at each lower-to-upper case
// change.
func Split(name string) []string {
	var words []string
	var cur strings.Builder
	prevLower := false
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range name {
		switch {
		case unicode.IsUpper(r):
			if prevLower {
				flush()
			}
			cur.WriteRune(unicode.ToLower(r))
			prevLower = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur.WriteRune(r)
			prevLower = unicode.IsLower(r)
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}
