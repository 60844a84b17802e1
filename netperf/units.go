package netperf

import "strings"

// Unit is a rate unit as netperf printed it: "10^6bits/sec" in classic
// titles, "10^6bits/s" in omni THROUGHPUT_UNITS and in the CPU titles,
// "KBytes/sec", "Trans/s". Its prefix is what netperf -f chose:
//
//	-f k, m, g   10^3bits, 10^6bits, 10^9bits  (powers of 1000, bits)
//	-f K, M, G   KBytes, MBytes, GBytes        (powers of 1024, bytes)
//	-f B         Bytes
//	-f b         10^0bits, but netperf divides by 1, so the value is bytes/s
//	-f x         Trans (transactions; the default for *_RR tests)
type Unit string

// Units this package assumes when netperf printed none (-P 0, -v 0): the
// defaults of netperf -f for stream and request/response tests.
const (
	UnitMbitsPerSec Unit = "10^6bits/sec"
	UnitTransPerSec Unit = "Trans/sec"
)

// Prefix returns the unit without its "/sec" or "/s" suffix: "10^6bits",
// "KBytes", "Trans".
func (u Unit) Prefix() string {
	s := string(u)
	if p, ok := strings.CutSuffix(s, "/sec"); ok {
		return p
	}
	if p, ok := strings.CutSuffix(s, "/s"); ok {
		return p
	}
	return s
}

// IsTransactions reports whether the unit counts transactions (Trans/s).
func (u Unit) IsTransactions() bool { return u.Prefix() == "Trans" }

// MbpsFactor returns what a value in u is multiplied by to give 10^6 bit/s,
// and false when u is not a data rate (Trans, Usec, empty, unknown).
func (u Unit) MbpsFactor() (float64, bool) {
	switch u.Prefix() {
	case "10^6bits":
		return 1, true
	case "10^9bits":
		return 1e3, true
	case "10^3bits":
		return 1e-3, true
	case "10^0bits":
		// -f b: format_units() says bits but calc_thruput() divides
		// bytes by 1, so the number is bytes per second.
		return 8e-6, true
	case "Bytes":
		return 8e-6, true
	case "KBytes":
		return 8 * 1024 / 1e6, true
	case "MBytes":
		return 8 * 1024 * 1024 / 1e6, true
	case "GBytes":
		return 8 * 1024 * 1024 * 1024 / 1e6, true
	}
	return 0, false
}

// Mbps converts v, a value in u, to 10^6 bit/s.
func (u Unit) Mbps(v float64) (float64, bool) {
	f, ok := u.MbpsFactor()
	if !ok {
		return 0, false
	}
	return v * f, true
}

// isUnitToken reports whether s reads like a netperf rate unit ("x/sec"
// or "x/s" with a known prefix).
func isUnitToken(s string) bool {
	u := Unit(s)
	if u.Prefix() == s {
		return false
	}
	if _, ok := u.MbpsFactor(); ok {
		return true
	}
	p := u.Prefix()
	return p == "Trans" || p == "Usec"
}

// Rate is a value with the unit netperf printed beside it.
type Rate struct {
	Value float64 // as printed
	Unit  Unit    // as printed, or assumed
	// Assumed is true when netperf printed no unit (-P 0 or -v 0) and Unit
	// is netperf's default for the test (10^6bits/sec for streams,
	// Trans/sec for request/response tests). A -f option on the command
	// line makes that assumption wrong; a warning says so in the Result.
	Assumed bool
}

// Mbps returns the rate in 10^6 bit/s, and false when the unit is not a
// data rate.
func (r Rate) Mbps() (float64, bool) { return r.Unit.Mbps(r.Value) }
