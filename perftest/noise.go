package perftest

import "strings"

// lineClass is what a line that is neither a row nor structure is.
type lineClass int

const (
	classOther         lineClass = iota
	classWarning                 // a tool message, kept as a Warning
	classPeakWarning             // "WARNING: BW peak won't be measured in this run."
	classClock                   // "Correlation coefficient r^2: ...", CPU frequency
	classServer                  // server status lines: no warning, marks the server
	classDumpStart               // "#, usec" or "#, cycles" (-U, -H)
	classLocalResults            // " Local results: " (--report-both)
	classRemoteResults           // " Remote results: "
	classEvents                  // " Test with events. Using mlx5_0_comp0" (-e)
	classMulticast               // " MultiCast runs on UD!" (-g)
)

// toolMessages are notes and warnings perftest prints to stdout or stderr
// (force_dependecies, check_mtu, ctx_set_*); matched by prefix after
// trimming.
var toolMessages = []string{
	"Disabling dynamic polling",
	"Increasing CQE polling batch",
	"Actual inline-size",
	"Device not recognized to implement inline feature",
	"Max msg size in UD is MTU",
	"Min msg size for RawEth is",
	"Changing to this MTU",
	"Requested mtu is higher than active mtu",
	"Changing to active mtu",
	"User stopped traffic",
	"Client closed connection",
}

// classifyNoise tells what kind of noise or marker a trimmed line is.
func classifyNoise(t string) lineClass {
	switch {
	case strings.HasPrefix(t, "WARNING"):
		if strings.Contains(t, "BW peak won't be measured") {
			return classPeakWarning
		}
		return classWarning
	case strings.HasPrefix(t, "Correlation coefficient"),
		strings.HasPrefix(t, "Conflicting CPU frequency values"):
		return classClock
	case strings.HasPrefix(t, "Waiting for client"),
		strings.HasPrefix(t, "Please run the same command with the IB/RoCE interface IP"):
		return classServer
	case t == "#, usec" || t == "#, cycles":
		return classDumpStart
	case strings.HasPrefix(t, "Local results:"):
		return classLocalResults
	case strings.HasPrefix(t, "Remote results:"):
		return classRemoteResults
	case strings.HasPrefix(t, "Test with events."):
		return classEvents
	case strings.HasPrefix(t, "MultiCast runs on UD"):
		return classMulticast
	}
	for _, p := range toolMessages {
		if strings.HasPrefix(t, p) {
			return classWarning
		}
	}
	// -W (--report-counters) prints "\tname=value" after each row.
	if k, v, ok := strings.Cut(t, "="); ok && k != "" && v != "" && !strings.ContainsAny(t, " \t:") {
		return classWarning
	}
	return classOther
}

// isDashes reports whether a trimmed line is a RESULT_LINE: 10 or more
// dashes and nothing else.
func isDashes(t []byte) bool {
	if len(t) < 10 {
		return false
	}
	for _, c := range t {
		if c != '-' {
			return false
		}
	}
	return true
}

// isDumpSample reports whether a trimmed line is a -U/-H sample: "17, 13.9".
func isDumpSample(t []byte) bool {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && t[i] == ',' && t[i+1] == ' '
}
